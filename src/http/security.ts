/**
 * What every answer carries: the headers the OWASP REST Security Cheat Sheet lists for an API's
 * JSON answers ("Security Headers": a JSON or empty body needs no source of any kind, may not be
 * framed or sniffed, and is for no shared cache). The three after the first four are defaults a
 * route may set for itself: `/docs` and the panel have their own Content-Security-Policy, the panel
 * its own Referrer-Policy, and a static file (the panel's, `/docs`') its own Cache-Control.
 */
const API: [string, string][] = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
];
const DEFAULTS: [string, string][] = [
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Referrer-Policy', 'no-referrer'],
];

/**
 * What only an HTML document needs, as Hono's secureHeaders sets them: each tells a browser how to
 * treat a page it renders (its process, its opener, its downloads, Flash and old IE's filters), so a
 * JSON answer gains nothing from them (the cheat sheet lists none of them for APIs).
 */
const HTML: [string, string][] = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/** Every security header of an API answer that set none itself (the `/health` fast path's). */
export const SECURITY_HEADERS: readonly [string, string][] = [...API, ...DEFAULTS];

/**
 * On every response, once the handler has answered: a fixed list set in one pass (Hono's
 * configurable middleware checked every header on every response for one a handler had set), and
 * the HTML ones on an HTML page only (the panel's pages, `/docs`).
 */
export function secure(headers: Headers): void {
  for (const [name, value] of API) headers.set(name, value);
  for (const [name, value] of DEFAULTS) if (!headers.has(name)) headers.set(name, value);
  if (headers.get('Content-Type')?.startsWith('text/html')) {
    for (const [name, value] of HTML) headers.set(name, value);
  }
}
