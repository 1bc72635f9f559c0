import type { OpenAPIHono } from '@hono/zod-openapi';
import { scopeOfRoute } from '../core/scopes';
import type { AppEnv } from '../env';
import { forbiddenResponse } from './openapi';

/**
 * States each `/v1` operation's scope in its security requirement (`bearerAuth: ["companies:read"]`,
 * as OpenAPI 3.1 allows for any scheme) and its 403, from the same method-and-path rule the
 * middleware enforces (`scopeOfRoute`), so the document and the API cannot disagree. A route under a
 * resource the rule does not know stops the Worker from building at all: no route can go without.
 */
export function stateScopes(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route') continue;
    const { route } = def;
    if (!route.security?.some((requirement) => 'bearerAuth' in requirement)) continue;
    const scope = scopeOfRoute(route.method.toUpperCase(), route.path);
    if (scope === undefined) {
      throw new Error(
        `${route.method.toUpperCase()} ${route.path} needs a scope: map its resource in src/core/scopes.ts`,
      );
    }
    route.security = [{ bearerAuth: scope === null ? [] : [scope] }];
    if (scope !== null) route.responses = { ...route.responses, 403: forbiddenResponse };
  }
}
