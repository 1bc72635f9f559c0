import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { TrieRouter } from 'hono/router/trie-router';
import type { RouterRoute } from 'hono/types';
import { ApiError } from './problem';

/** The methods a route can be registered for, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY'] as const;

/**
 * The methods each path answers, from the app's registered routes: middleware is registered for
 * `ALL` and says nothing about which methods a path serves. Hono answers HEAD wherever it answers GET.
 */
function methodTable(routes: readonly RouterRoute[]) {
  const table = new TrieRouter<true>();
  for (const route of routes) if (route.method !== 'ALL') table.add(route.method, route.path, true);
  const serves = (method: string, path: string) =>
    table.match(method === 'HEAD' ? 'GET' : method, path)[0].length > 0;
  // A path registered as it is (`/v1/users/batch`) is that route's, though `/v1/users/{id}` would
  // match it under other methods: GET of it is a 405, not a read of the user "batch".
  const exact = new Map<string, Set<string>>();
  for (const route of routes) {
    if (route.method === 'ALL' || /[:*]/.test(route.path)) continue;
    exact.set(route.path, (exact.get(route.path) ?? new Set()).add(route.method));
  }
  const exactAt = (path: string) => {
    const methods = exact.get(path);
    return methods ? METHODS.filter((m) => methods.has(m === 'HEAD' ? 'GET' : m)) : [];
  };
  return {
    serves,
    exactAt,
    allowedAt: (path: string) => METHODS.filter((method) => serves(method, path)),
  };
}

/**
 * 405 with `Allow` for a path the app serves under other methods; an unknown path goes on to its
 * 404. It needs no key and no database (the route table is public in /openapi.json), so it sits
 * before authentication. The app's routes are read on the first request, once every router is mounted.
 */
export function methodNotAllowed(app: { readonly routes: readonly RouterRoute[] }): MiddlewareHandler {
  let table: ReturnType<typeof methodTable> | undefined;
  return async (c: Context, next) => {
    table ??= methodTable(app.routes);
    // No lookup of our own on a request a route serves: Hono's router has already matched the
    // request's routes for its method (HEAD as GET), and any but middleware (`ALL`) serves it.
    // Every method's lookup only on the way to a 405 or a 404.
    const exact = table.exactAt(c.req.path);
    const served =
      matchedRoutes(c).some((route) => route.method !== 'ALL') &&
      (exact.length === 0 || exact.includes(c.req.method as (typeof METHODS)[number]));
    const allowed = served ? [] : exact.length ? exact : table.allowedAt(c.req.path);
    if (allowed.length > 0) {
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
