import { logError } from '../core/log';
import { messageShard } from '../core/message-shard';
import { primaryDb } from '../db/client';
import { isAccountMoving } from '../db/errors';
import { isShard } from '../db/shards';
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
  // Every fan-out ask of the batch for one shard is one run: a run reads all that is new there.
  const asks = batch.messages.filter((message) => isFanoutMessage(message.body));
  for (const [shard, ofShard] of byShard(asks)) {
    try {
      if (!isShard(env, shard)) throw new Error(`fan-out asked of shard ${shard}, which the Worker lacks`);
      await fanOutOnce(env, shard);
      for (const ask of ofShard) ask.ack();
    } catch (err) {
      logError(err, `fanout:${shard}`);
      for (const ask of ofShard) ask.retry({ delaySeconds: 10 });
    }
  }
  await Promise.all(
    batch.messages
      .filter((message) => !isFanoutMessage(message.body))
      .map(async (message) => {
        const body = message.body;
        if (!isDeliveryMessage(body)) {
          console.warn(JSON.stringify({ level: 'warn', msg: 'unknown outbound message', id: message.id }));
          message.ack();
          return;
        }
        try {
          const shard = messageShard(body);
          if (!isShard(env, shard)) throw new Error(`a delivery of shard ${shard}, which the Worker lacks`);
          await deliverMessage(env, shard, body.delivery_id);
          message.ack();
        } catch (err) {
          // Its account is frozen by a move: the delivery stays due, and the move queues it again
          // on the account's shard once it has switched (src/moves/switch.ts).
          if (isAccountMoving(err)) {
            message.ack();
            return;
          }
          logError(err, `delivery:${body.delivery_id}`);
          message.retry({ delaySeconds: 30 });
        }
      }),
  );
}

/** The asks of a batch by the shard they name (a malformed one: its own group, -1, retried). */
function byShard(asks: readonly Message<unknown>[]): Map<number, Message<unknown>[]> {
  const groups = new Map<number, Message<unknown>[]>();
  for (const ask of asks) {
    const shard = messageShard(ask.body as object) ?? -1;
    groups.set(shard, [...(groups.get(shard) ?? []), ask]);
  }
  return groups;
}

/**
 * One fan-out run on a shard (its journal, its cursor): its deliveries queued, and another run
 * asked for when entries are left.
 */
export async function fanOutOnce(env: Bindings, shard: number): Promise<number> {
  const { deliveries, more } = await fanOut(primaryDb(env, shard), entryBody);
  await enqueueDeliveries(env.OUTBOUND, shard, deliveries);
  if (more) await askFanout(env.OUTBOUND, shard);
  return deliveries.length;
}

/** A delivery due for longer than this lost its message: the cron queues it again. */
export const DELIVERY_STRANDED_MS = 2 * 60_000;

/** The cron's repair: deliveries whose message was lost (after the commit, or mid-attempt) are queued again. */
export async function requeueStrandedDeliveries(
  env: Bindings,
  shard: number,
  now = Date.now(),
): Promise<number> {
  const rows = await strandedDeliveries(primaryDb(env, shard), now - DELIVERY_STRANDED_MS);
  await enqueueDeliveries(
    env.OUTBOUND,
    shard,
    rows.map((r) => r.id),
  );
  return rows.length;
}

/** The cron's retention of the delivery log (30 days), and of the endpoints in the trash past 30 days. */
export async function purgeDeliveries(env: Bindings, shard: number, now = Date.now()): Promise<number> {
  const db = primaryDb(env, shard);
  await purgeTrashedEndpoints(db, now);
  return purgeOldDeliveries(db, now);
}
