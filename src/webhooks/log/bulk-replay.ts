import { and, asc, count, eq, sql } from 'drizzle-orm';
import { notFound } from '../../core/errors';
import type { Db } from '../../db/client';
import { inboundEvents, inboundWebhooks } from '../../db/schema';
import { type KeyRef, ownRow, scoped } from '../../db/tenant';
import { MAX_BULK_REPLAY } from '../contract/schemas';
import { type EventFilter, eventWhere } from './event-filter';
import { replayFailed } from './event-log';
import { type EventMessage, enqueueEvents } from './event-messages';
import { statusIn } from './event-states';

const e = inboundEvents;

/**
 * "Replay every failed event of this filter": the caller's webhook `id`'s failed events that
 * `filter` keeps (the list's own filter, event-filter.ts), oldest first, at most MAX_BULK_REPLAY
 * per call (one Queues sendBatch), moved failed → pending by the replay move and handed to the
 * queue. One round trip: the key check, the webhook's, the move and the count of the failed
 * events still matching after it, in one batch. not_found when the webhook is not theirs.
 */
export async function replayMatching(
  db: Db,
  keyHash: KeyRef,
  queue: Queue<EventMessage>,
  id: number,
  filter: EventFilter,
): Promise<{ replayed: number; remaining: number; ids: number[] }> {
  const failed = and(eventWhere(keyHash, id, filter), statusIn('replay'));
  const picked = db
    .select({ id: e.id })
    .from(e)
    .where(failed)
    .orderBy(asc(e.receivedAt), asc(e.id))
    .limit(MAX_BULK_REPLAY);
  const [, hooks, moved, left] = await scoped(
    db,
    keyHash,
    db
      .select({ id: inboundWebhooks.id })
      .from(inboundWebhooks)
      .where(ownRow(inboundWebhooks, keyHash, id)),
    replayFailed(db, sql`${e.id} in ${picked}`, Date.now()),
    db
      .select({ n: count() })
      .from(e)
      .where(and(failed, eq(e.webhookId, id))),
  );
  if (!hooks.length) throw notFound();
  const ids = moved.map((row) => row.id);
  // If the hand-over fails the events stay pending, and the cron queues them again.
  await enqueueEvents(queue, db.shard, ids);
  return { replayed: ids.length, remaining: left[0]?.n ?? 0, ids };
}
