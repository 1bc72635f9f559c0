import { conflict, notFound } from '../../core/errors';
import type { Db } from '../../db/client';
import { inboundWebhooks } from '../../db/schema';
import { type KeyRef, ownRow, scoped } from '../../db/tenant';
import { promoteTestEvent } from './event-log';
import { type EventMessage, enqueueEvents } from './event-messages';
import { type EventRow, eventQuery, ownEvent } from './event-reads';

/**
 * Processes the caller's test event for real, once its webhook is in production: the event goes
 * back to `pending` as a production event and the consumer writes its records. 404 when it is not
 * theirs; 409 when it is no test event, or its webhook is still in test mode.
 */
export async function processTestEvent(
  db: Db,
  keyHash: KeyRef,
  queue: Queue<EventMessage>,
  id: number,
  eventId: number,
): Promise<EventRow> {
  const theEvent = ownEvent(keyHash, id, eventId);
  // One batch: the update only takes a test event of a production webhook; the reads after it
  // tell 404 from each 409.
  const [, promoted, found, hooks] = await scoped(
    db,
    keyHash,
    promoteTestEvent(db, theEvent, Date.now()),
    eventQuery(db, theEvent),
    db
      .select({ mode: inboundWebhooks.mode })
      .from(inboundWebhooks)
      .where(ownRow(inboundWebhooks, keyHash, id)),
  );
  const row = found[0];
  if (!row) throw notFound();
  if (!promoted.length) {
    if (row.status !== 'test') {
      throw conflict(`Only a test event can be processed for real; this one is ${row.status}.`);
    }
    throw conflict(
      `The webhook is in ${hooks[0]?.mode ?? 'test'} mode: put it in production first, then process its test events for real.`,
    );
  }
  // If the hand-over fails the event stays pending, and the cron queues it again.
  await enqueueEvents(queue, db.shard, [row.id]);
  return row;
}
