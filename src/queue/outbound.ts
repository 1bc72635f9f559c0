import { logError } from '../core/log';
import { primaryDb } from '../db/client';
import type { Bindings } from '../env';
import { deliverMessage } from '../outbound/deliver';
import { strandedDeliveries } from '../outbound/deliveries';
import { entryBody } from '../outbound/entry-body';
import { fanOut } from '../outbound/fanout';
import { purgeOldDeliveries, purgeTrashedEndpoints } from '../outbound/log';
import { askFanout, enqueueDeliveries, isDeliveryMessage, isFanoutMessage } from '../outbound/messages';

/** The queue of outbound webhook deliveries (wrangler.toml: crm-outbound). */
export const OUTBOUND_QUEUE = 'crm-outbound';

/**
 * Each message is one attempt of one delivery. Its retries are new messages sent with their delay
 * (the delivery's state in D1 is the truth, not the message's attempts), so a message is acked once
 * its attempt is written; a throw (D1 unreachable) retries the message itself.
 */
export async function consumeOutbound(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  // Every fan-out ask of the batch is one run: a run reads all that is new, whoever asked.
  const asks = batch.messages.filter((message) => isFanoutMessage(message.body));
  if (asks.length) {
    try {
      await fanOutOnce(env);
      for (const ask of asks) ask.ack();
    } catch (err) {
      logError(err, 'fanout');
      for (const ask of asks) ask.retry({ delaySeconds: 10 });
    }
  }
  await Promise.all(
    batch.messages
      .filter((message) => !isFanoutMessage(message.body))
      .map(async (message) => {
        if (!isDeliveryMessage(message.body)) {
          console.warn(JSON.stringify({ level: 'warn', msg: 'unknown outbound message', id: message.id }));
          message.ack();
          return;
        }
        try {
          await deliverMessage(env, message.body.delivery_id);
          message.ack();
        } catch (err) {
          logError(err, `delivery:${message.body.delivery_id}`);
          message.retry({ delaySeconds: 30 });
        }
      }),
  );
}

/** One fan-out run: its deliveries queued, and another run asked for when entries are left. */
export async function fanOutOnce(env: Bindings): Promise<number> {
  const { deliveries, more } = await fanOut(primaryDb(env.DB), entryBody);
  await enqueueDeliveries(env.OUTBOUND, deliveries);
  if (more) await askFanout(env.OUTBOUND);
  return deliveries.length;
}

/** A delivery due for longer than this lost its message: the cron queues it again. */
export const DELIVERY_STRANDED_MS = 2 * 60_000;

/** The cron's repair: deliveries whose message was lost (after the commit, or mid-attempt) are queued again. */
export async function requeueStrandedDeliveries(env: Bindings, now = Date.now()): Promise<number> {
  const rows = await strandedDeliveries(primaryDb(env.DB), now - DELIVERY_STRANDED_MS);
  await enqueueDeliveries(
    env.OUTBOUND,
    rows.map((r) => r.id),
  );
  return rows.length;
}

/** The cron's retention of the delivery log (30 days), and of the endpoints in the trash past 30 days. */
export async function purgeDeliveries(env: Bindings, now = Date.now()): Promise<number> {
  await purgeTrashedEndpoints(primaryDb(env.DB), now);
  return purgeOldDeliveries(primaryDb(env.DB), now);
}
