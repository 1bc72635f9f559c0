import type { Context, MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { RouterRoute } from 'hono/types';
import { ApiError } from './problem';

/** The methods a route can be registered for, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY'] as const;

/**
 * The methods each path answers, from the app's registered routes: middleware is registered for
 * `ALL` and says nothing about which methods a path serves. Hono answers HEAD wherever it answers GET.
 */
function methodTable(routes: readonly RouterRoute[]): (path: string) => string[] {
  const table = new TrieRouter<true>();
  for (const route of routes) if (route.method !== 'ALL') table.add(route.method, route.path, true);
  return (path) =>
    METHODS.filter((method) => table.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0);
}

/**
 * 405 with `Allow` for a path the app serves under other methods; an unknown path goes on to its
 * 404. It needs no key and no database (the route table is public in /openapi.json), so it sits
 * before authentication. The app's routes are read on the first request, once every router is mounted.
 */
export function methodNotAllowed(app: { readonly routes: readonly RouterRoute[] }): MiddlewareHandler {
  let allowedAt: ((path: string) => string[]) | undefined;
  return async (c: Context, next) => {
    allowedAt ??= methodTable(app.routes);
    const allowed = allowedAt(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      throw new ApiError(
        405,
        'method_not_allowed',
        `${c.req.method} is not allowed here; this path takes ${allowed.join(', ')}.`,
        undefined,
        { Allow: allowed.join(', ') },
      );
    }
    await next();
  };
}
