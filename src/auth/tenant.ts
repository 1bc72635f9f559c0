import type { Context } from 'hono';
import { unauthorized } from '../core/errors';
import { logError } from '../core/log';
import { scopeOfRoute } from '../core/scopes';
import { KeyGrant } from '../db/key-grant';
import type { AppEnv } from '../env';
import { apiKeyShard, bearerToken, sha256Hex } from './secrets';

/**
 * `/v1` authentication costs no round trip of its own: this step of `apiGate` only hashes the key
 * and names the scope the route needs (from its method and path, src/core/scopes.ts, so no route
 * can forget it); the key lookup travels in the same D1 batch as the request's first queries,
 * which are scoped by the grant (see `scoped`), on the shard the key names (src/db/shards.ts).
 */
export async function authenticate(c: Context<AppEnv>): Promise<void> {
  const token = bearerToken(c.req.header('Authorization'));
  const shard = token === undefined ? undefined : apiKeyShard(token);
  // The key names its shard: the request's session opens there, with no lookup of its own. A shard
  // the Worker does not have is an unknown key.
  if (!token || shard === undefined || !(await c.get('shard').serve(shard))) throw unauthorized();
  const hash = await sha256Hex(token);
  // A path no mapping names needs full access: a route added without one fails closed.
  const scope = scopeOfRoute(c.req.method, c.req.path);
  const writes = c.req.method !== 'GET' && c.req.method !== 'HEAD';
  const deferred = (touch: Promise<unknown>) =>
    c.executionCtx.waitUntil(touch.catch((err: unknown) => logError(err, c.get('requestId'))));
  c.set('apiKeyHash', hash);
  c.set('keyHash', new KeyGrant(hash, scope === undefined ? '*:*' : scope, Date.now(), deferred, writes));
}
