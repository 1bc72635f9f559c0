import { createMiddleware } from 'hono/factory';
import { secureHeaders } from 'hono/secure-headers';

/**
 * On every response: the API serves JSON and empty bodies, which need no source of any kind and
 * may not be framed. `/docs` sets its own Content-Security-Policy, kept because nothing here
 * overwrites a header a handler has set.
 */
export const securityHeaders = secureHeaders({
  contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
  overwrite: false,
});

/** On every `/v1` response, errors included: an account's data is for no shared cache or disk. */
export const noStore = createMiddleware(async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
});
