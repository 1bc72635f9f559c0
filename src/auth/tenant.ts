import { createMiddleware } from 'hono/factory';
import { unauthorized } from '../core/errors';
import type { AppEnv } from '../env';
import { bearerToken, looksLikeApiKey, sha256Hex } from './secrets';

/**
 * `/v1` authentication costs no round trip of its own: the middleware only hashes the key, and
 * the key lookup travels in the same D1 batch as the request's first queries (see `scoped`).
 */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header('Authorization'));
  if (!token || !looksLikeApiKey(token)) throw unauthorized();
  c.set('keyHash', await sha256Hex(token));
  await next();
});
