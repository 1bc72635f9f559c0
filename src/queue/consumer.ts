import { rootMessage } from '../core/errors';
import { logError } from '../core/log';
import { said } from '../core/said';
import { type Db, primaryDb } from '../db/client';
import type { Bindings } from '../env';
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

async function handle(db: Db, env: Bindings, message: Message<unknown>): Promise<void> {
  const body = message.body;
  if (!isEventMessage(body)) {
    // Not ours to drop: after max_retries it lands in the dead-letter queue for a person to see.
    console.warn(JSON.stringify({ level: 'warn', msg: 'unknown queue message', id: message.id }));
    message.retry();
    return;
  }
  try {
    const outcome = await processEvent(db, body.event_id, { attempt: message.attempts, env });
    if (outcome.status === 'failed') {
      await failEvent(db, body.event_id, outcome.error);
    }
    // The records its flows wrote have journal entries: outbound webhooks tell of them.
    await askFanout(env.OUTBOUND);
    message.ack();
  } catch (err) {
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

/** Messages that used up their retries: their events fail, keeping the last error. */
async function giveUp(db: Db, messages: readonly Message<unknown>[]): Promise<void> {
  const ids = messages.flatMap((m) => (isEventMessage(m.body) ? [m.body.event_id] : []));
  if (ids.length < messages.length) {
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'unknown dead-letter messages',
        count: messages.length - ids.length,
      }),
    );
  }
  if (ids.length) await giveUpEvents(db, ids);
  for (const message of messages) message.ack();
}

/**
 * The queue consumer: events from `crm-events`, and from its dead-letter queue (by the `-dlq`
 * naming convention of wrangler.toml) the ones that ran out of retries; outbound webhook
 * deliveries from `crm-outbound` (queue/outbound.ts).
 */
export async function consume(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  if (batch.queue === OUTBOUND_QUEUE) return consumeOutbound(batch, env);
  if (batch.queue === 'crm-imports') return consumeImports(batch, env);
  const db = primaryDb(env.DB);
  if (batch.queue.endsWith('-dlq')) return giveUp(db, batch.messages);
  await Promise.all(batch.messages.map((message) => handle(db, env, message)));
}

/**
 * Queues again the pending events that were never handed over (the send failed after the 204) or
 * whose retry was lost, so no accepted event is left behind.
 */
export async function requeueStranded(env: Bindings, now = Date.now()): Promise<number> {
  const db = primaryDb(env.DB);
  const cutoff = now - strandedAfterMs(env, STRANDED_AFTER_MS);
  const rows = await requeueStrandedEvents(db, cutoff, now);
  await enqueueEvents(
    env.EVENTS,
    rows.map((r) => r.id),
  );
  return rows.length;
}
