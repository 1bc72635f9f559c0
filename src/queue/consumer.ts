import { rootMessage } from '../core/errors';
import { logError } from '../core/log';
import { messageShard } from '../core/message-shard';
import { said } from '../core/said';
import { type Db, primaryDb } from '../db/client';
import { isAccountMoving } from '../db/errors';
import { isShard } from '../db/shards';
import type { Bindings } from '../env';
import { MOVES_QUEUE } from '../moves/messages';
import { consumeMoves } from '../moves/run';
import { askFanout } from '../outbound/messages';
import { failEvent, giveUpEvents, noteRetry, requeueStrandedEvents } from '../webhooks/log/event-log';
import { enqueueEvents, isEventMessage } from '../webhooks/log/event-messages';
import { processEvent } from '../webhooks/processing/process';
import { strandedAfterMs } from '../webhooks/rules/faults';
import { consumeImports } from './imports';
import { consumeOutbound, OUTBOUND_QUEUE } from './outbound';

/** Delay before retry n (1-based): 10 s, 20 s, 40 s, … capped well below the cron's window. */
export const retryDelaySeconds = (attempt: number): number => Math.min(10 * 2 ** (attempt - 1), 160);

/**
 * A pending event not handed to the queue for this long is queued again by the cron (the local
 * fault drill shortens it: see strandedAfterMs).
 */
export const STRANDED_AFTER_MS = 5 * 60_000;

/**
 * The database of a message's shard, or undefined (logged) for a message that is not an event's or
 * names a shard the Worker does not have (a binding removed): not ours to drop, so it is retried
 * and, after max_retries, lands in the dead-letter queue for a person to see.
 */
function shardDb(env: Bindings, message: Message<unknown>): Db | undefined {
  const body = message.body;
  const shard = isEventMessage(body) ? messageShard(body) : undefined;
  if (isShard(env, shard)) return primaryDb(env, shard);
  console.warn(JSON.stringify({ level: 'warn', msg: 'unknown queue message', id: message.id, shard }));
  return undefined;
}

async function handle(env: Bindings, message: Message<unknown>): Promise<void> {
  const body = message.body;
  const db = shardDb(env, message);
  if (!db || !isEventMessage(body)) {
    message.retry();
    return;
  }
  try {
    const outcome = await processEvent(db, body.event_id, { attempt: message.attempts, env });
    if (outcome.status === 'failed') {
      await failEvent(db, body.event_id, outcome.error);
    }
    // The records its flows wrote have journal entries: outbound webhooks tell of them.
    await askFanout(env.OUTBOUND, db.shard);
    message.ack();
  } catch (err) {
    // Its account is frozen by a move: the event stays pending, and the move queues it again on the
    // account's shard once it has switched (src/moves/switch.ts), so this message is done.
    if (isAccountMoving(err)) {
      message.ack();
      return;
    }
    logError(err, `event:${body.event_id}`);
    const delaySeconds = retryDelaySeconds(message.attempts);
    // Best effort: the retry happens whether or not this note is written.
    await noteRetry(
      db,
      body.event_id,
      said('retrying', { detail: rootMessage(err) }),
      Date.now() + delaySeconds * 1000,
    ).catch(() => undefined);
    message.retry({ delaySeconds });
  }
}

/** Messages that used up their retries: their events fail, keeping the last error, shard by shard. */
async function giveUp(env: Bindings, messages: readonly Message<unknown>[]): Promise<void> {
  const byShard = new Map<number, number[]>();
  for (const m of messages) {
    const shard = isEventMessage(m.body) ? messageShard(m.body) : undefined;
    if (isShard(env, shard) && isEventMessage(m.body))
      byShard.set(shard, [...(byShard.get(shard) ?? []), m.body.event_id]);
  }
  const known = [...byShard.values()].reduce((n, ids) => n + ids.length, 0);
  if (known < messages.length) {
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'unknown dead-letter messages',
        count: messages.length - known,
      }),
    );
  }
  for (const [shard, ids] of byShard) await giveUpEvents(primaryDb(env, shard), ids);
  for (const message of messages) message.ack();
}

/**
 * The queue consumer: events from `crm-events`, and from its dead-letter queue (by the `-dlq`
 * naming convention of wrangler.toml) the ones that ran out of retries; outbound webhook
 * deliveries from `crm-outbound` (queue/outbound.ts); import chunks; account moves' steps (moves/run.ts).
 */
export async function consume(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  if (batch.queue === OUTBOUND_QUEUE) return consumeOutbound(batch, env);
  if (batch.queue === 'crm-imports') return consumeImports(batch, env);
  if (batch.queue === MOVES_QUEUE) return consumeMoves(batch, env);
  if (batch.queue.endsWith('-dlq')) return giveUp(env, batch.messages);
  await Promise.all(batch.messages.map((message) => handle(env, message)));
}

/**
 * Queues again the pending events that were never handed over (the send failed after the 204) or
 * whose retry was lost, so no accepted event is left behind.
 */
export async function requeueStranded(env: Bindings, shard: number, now = Date.now()): Promise<number> {
  const db = primaryDb(env, shard);
  const cutoff = now - strandedAfterMs(env, STRANDED_AFTER_MS);
  const rows = await requeueStrandedEvents(db, cutoff, now);
  await enqueueEvents(
    env.EVENTS,
    shard,
    rows.map((r) => r.id),
  );
  return rows.length;
}
