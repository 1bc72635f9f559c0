import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { askFanout } from './messages';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After a `/v1` write that answered a success (its journal entries committed with it), asks for a
 * fan-out run, after the answer (`waitUntil`): no D1 round trip, no time added to the write.
 */
export const fanoutAfterWrite = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (READS.has(c.req.method) || c.res.status >= 400) return;
  c.executionCtx.waitUntil(askFanout(c.env.OUTBOUND));
});
