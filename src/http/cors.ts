import type { Context, MiddlewareHandler, Next } from 'hono';
import { ownVar } from '../core/own-vars';
import type { AppEnv } from '../env';
import { BOOKMARK_HEADER } from './bookmark';
import { API_RATE_POLICY } from './rate-limit';

/** An origin as a browser sends it (`https://app.example.com`): not `null`, `*`, a path or capitals. */
const isOrigin = (text: string): boolean => URL.canParse(text) && new URL(text).origin === text;

/**
 * `CORS_ORIGINS`: comma-separated exact origins; empty: none. Anything else in the list is
 * ignored: `null` would let every sandboxed page and `data:` URL read the API, and `*`, a path or
 * capitals never equal an Origin header.
 */
export const corsOrigins = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(isOrigin);

/** The last CORS_ORIGINS read and its list: a Worker's vars do not change between its requests. */
let last: { value: string; origins: string[] } | undefined;

const configured = (value: string): string[] => {
  if (last?.value !== value) last = { value, origins: corsOrigins(value) };
  return last.origins;
};

/** What a listed origin may read of an answer, and send in a request. */
const EXPOSED = `Location,Link,X-Request-Id,${BOOKMARK_HEADER},Server-Timing,Retry-After,RateLimit,RateLimit-Policy,Idempotent-Replayed`;

/**
 * CORS as `apiCors` describes it, with the headers Hono's `cors` gave for this one configuration
 * (set on the answer once it is made, rather than copied into it from a placeholder); a preflight's
 * answer is returned, not yet the context's.
 */
async function corsFor(c: Context<AppEnv>, next: Next): Promise<Response | undefined> {
  const origins = configured(ownVar(c.env, 'CORS_ORIGINS') ?? '');
  const origin = c.req.header('Origin');
  const listed = origin !== undefined && origins.includes(origin) ? origin : undefined;
  // Once any origin is allowed, answers depend on the origin: caches must keep them apart.
  const varies = origins.length > 0;
  if (c.req.method === 'OPTIONS') {
    const headers = new Headers(varies ? { Vary: 'Origin' } : {});
    if (listed) {
      headers.set('Access-Control-Allow-Origin', listed);
      headers.set('Access-Control-Expose-Headers', EXPOSED);
      headers.set('Access-Control-Max-Age', '600');
      headers.set('Access-Control-Allow-Methods', 'GET,POST,PUT,DELETE');
      headers.set(
        'Access-Control-Allow-Headers',
        `Authorization,Content-Type,Idempotency-Key,X-Request-Id,${BOOKMARK_HEADER}`,
      );
      headers.append('Vary', 'Access-Control-Request-Headers');
    }
    return new Response(null, { status: 204, headers });
  }
  await next();
  const headers = c.res.headers;
  if (listed) {
    headers.set('Access-Control-Allow-Origin', listed);
    headers.set('Access-Control-Expose-Headers', EXPOSED);
  }
  if (varies) headers.append('Vary', 'Origin');
  return undefined;
}

/**
 * CORS for `/v1`, before authentication: a preflight (any OPTIONS) is a 204 that needs no key and
 * no database. Only an origin listed in CORS_ORIGINS gets CORS headers; any other gets none, so a
 * browser keeps its pages from reading the API. (`Cache-Control: no-store` is the security
 * headers': every API answer carries it, `src/http/security.ts`.)
 */
export const apiCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const preflight = await corsFor(c, next);
  if (preflight) c.res = preflight;
  // The limits every request but a preflight (which none counts) is held to: on a 429, both
  // policies rather than only the one it broke, which its `RateLimit` names.
  if (!preflight) c.res.headers.set('RateLimit-Policy', API_RATE_POLICY);
};
