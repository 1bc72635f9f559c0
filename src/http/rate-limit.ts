import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { sha256Hex } from '../auth/secrets';
import type { AppEnv, Bindings } from '../env';
import { ApiError } from './problem';

/**
 * The window of every limiter, in seconds: the `period` of their `[[ratelimits]]` in wrangler.toml
 * (a test holds the two equal). A client over the limit may retry after at most this long.
 */
export const RATE_LIMIT_PERIOD_S = 60;

type Limiter = 'API_RATE_LIMITER' | 'HOOK_RATE_LIMITER' | 'CLIENT_RATE_LIMITER' | 'SIGN_IN_RATE_LIMITER';

/**
 * Counts one request against `key` (a hash, never a credential) and throws the 429 once it is over
 * the limit. The binding's counters live beside the Worker, so this costs no D1 round trip.
 * `RATE_LIMITS=off` is for local load runs only (bench, drill), never set in wrangler.toml.
 */
export async function rateLimit(env: Bindings, limiter: Limiter, key: string): Promise<void> {
  if (env.RATE_LIMITS === 'off') return;
  const { success } = await env[limiter].limit({ key });
  if (!success) {
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests; retry in ${RATE_LIMIT_PERIOD_S} seconds.`,
      undefined,
      { 'Retry-After': String(RATE_LIMIT_PERIOD_S) },
    );
  }
}

/**
 * The caller's address as a limiter key: an IPv6 client usually holds a whole /64, so that is what
 * counts. Hashed like the other keys, so no address is kept in the limiter's namespace.
 */
export function clientOf(c: Context): Promise<string> {
  const ip = c.req.header('CF-Connecting-IP') ?? '';
  const client = ip.includes(':') ? ip.split(':').slice(0, 4).join(':') : ip;
  return sha256Hex(`client:${client}`);
}

/**
 * Every `/v1` and `/hooks` request counts against its client address, before any key or token is
 * looked up: the per-key limits cannot stop a flood that makes up a new key or token for every
 * request, each of which would cost a D1 round trip to refuse.
 */
export const clientRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  await rateLimit(c.env, 'CLIENT_RATE_LIMITER', await clientOf(c));
  await next();
});

/** Every `/v1` request counts against its API key, after `apiKeyAuth` has hashed it. */
export const apiRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  await rateLimit(c.env, 'API_RATE_LIMITER', c.get('keyHash'));
  await next();
});
