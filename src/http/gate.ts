import type { MiddlewareHandler } from 'hono';
import { authenticate } from '../auth/tenant';
import type { AppEnv } from '../env';
import { checkBookmark } from './bookmark';
import { idempotency } from './idempotency';
import { clientOf, rateLimit } from './rate-limit';

/**
 * Every `/v1` request's checks, in this order, as one link of Hono's chain (they were five): its
 * client address against the client limit, its key (hashed; looked up in the request's first
 * batch), that key against the key limit, its bookmark, and last its Idempotency-Key, which wraps
 * the route. A failed check throws its problem before any later check runs, as the separate
 * middlewares did; the links before this one (request context, CORS, 405) answer as before.
 */
export const apiGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  await rateLimit(c.env, 'CLIENT_RATE_LIMITER', () => clientOf(c));
  await authenticate(c);
  await rateLimit(c.env, 'API_RATE_LIMITER', () => c.get('apiKeyHash'));
  checkBookmark(c);
  return idempotency(c, next);
};
