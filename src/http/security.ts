/** What every response carries, as Hono's secureHeaders set them, less the two below. */
const HEADERS: [string, string][] = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/**
 * The two a route may set for itself, kept when it has: `/docs` and the panel have their own
 * Content-Security-Policy, the panel its own Referrer-Policy. The API serves JSON and empty bodies,
 * which need no source of any kind and may not be framed.
 */
const DEFAULTS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Referrer-Policy', 'no-referrer'],
];

/** Every security header of a response that set none itself (the `/health` fast path's). */
export const SECURITY_HEADERS: readonly [string, string][] = [...HEADERS, ...DEFAULTS];

/**
 * On every response, once the handler has answered: a fixed list set in one pass (Hono's
 * configurable middleware checked every header on every response for one a handler had set, and
 * deleted an `X-Powered-By` nothing here sets).
 */
export function secure(headers: Headers): void {
  for (const [name, value] of HEADERS) headers.set(name, value);
  for (const [name, value] of DEFAULTS) if (!headers.has(name)) headers.set(name, value);
}
