import type { Context, MiddlewareHandler, Next } from 'hono';
import { cors } from 'hono/cors';
import { ownVar } from '../core/own-vars';
import type { AppEnv } from '../env';
import { BOOKMARK_HEADER } from './bookmark';

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

const allowed = cors({
  // Only ever called for an origin already found in CORS_ORIGINS.
  origin: (origin) => origin,
  allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', BOOKMARK_HEADER],
  exposeHeaders: [
    'Location',
    'Link',
    'X-Request-Id',
    BOOKMARK_HEADER,
    'Server-Timing',
    'Retry-After',
    'Idempotent-Replayed',
  ],
  maxAge: 600,
});

/** CORS as `apiCors` describes it; a preflight's answer is returned, not yet the context's. */
async function corsFor(c: Context<AppEnv>, next: Next): Promise<Response | undefined> {
  const origins = configured(ownVar(c.env, 'CORS_ORIGINS') ?? '');
  const origin = c.req.header('Origin');
  if (origin !== undefined && origins.includes(origin)) return (await allowed(c, next)) ?? undefined;
  // Once any origin is allowed, answers depend on the origin: caches must keep them apart.
  const varies = origins.length > 0;
  if (c.req.method === 'OPTIONS') return c.body(null, 204, varies ? { Vary: 'Origin' } : {});
  await next();
  if (varies) c.res.headers.append('Vary', 'Origin');
  return undefined;
}

/**
 * CORS for `/v1`, before authentication: a preflight (any OPTIONS) is a 204 that needs no key and
 * no database. Only an origin listed in CORS_ORIGINS gets CORS headers; any other gets none, so a
 * browser keeps its pages from reading the API. Every answer, errors and preflights included, is
 * `Cache-Control: no-store`: an account's data is for no shared cache or disk (one link of the
 * chain, where no-store was a middleware of its own).
 */
export const apiCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const preflight = await corsFor(c, next);
  if (preflight) c.res = preflight;
  c.res.headers.set('Cache-Control', 'no-store');
};
