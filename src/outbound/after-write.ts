import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { askFanout } from './messages';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After a `/v1` write that answered a success (its journal entries committed with it), asks for a
 * fan-out run, after the answer (`waitUntil`): no D1 round trip, no time added to the write. Not
 * when the key's lookup found no endpoint of the account taking deliveries: no run could make one
 * of its entries, and a message and a run per write cost the other writes (bench/README.md,
 * "Against the code before the journal"). Its entries stay past the cursor until another run (another
 * account's write, the cron) passes them; an endpoint created meanwhile waits at most for that.
 */
export const fanoutAfterWrite = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (READS.has(c.req.method) || c.res.status >= 400) return;
  if (c.get('keyHash')?.listening === false) return;
  c.executionCtx.waitUntil(askFanout(c.env.OUTBOUND, c.get('db').shard));
});
