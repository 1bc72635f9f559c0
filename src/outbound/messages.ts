import { z } from 'zod';
import { MessageShard } from '../contracts/queue';
import { sendMessages } from '../core/queue-send';

/**
 * A queue message names a delivery (its body stays in D1), or asks for a fan-out run: the
 * journal's new entries made into deliveries (outbound/fanout.ts); either on its shard (each shard
 * has its own journal and cursor). `shard` is optional only for messages sent before shards.
 */
const Delivery = z.object({ delivery_id: z.number().int(), shard: MessageShard });
const Fanout = z.object({ fanout: z.literal(true), shard: MessageShard });
export type DeliveryMessage = z.infer<typeof Delivery> | z.infer<typeof Fanout>;

export const isDeliveryMessage = (body: unknown): body is z.infer<typeof Delivery> =>
  Delivery.safeParse(body).success;

export const isFanoutMessage = (body: unknown): body is z.infer<typeof Fanout> =>
  Fanout.safeParse(body).success;

/**
 * Asks for a fan-out run after a write committed. A lost ask loses nothing: the entries stay past
 * the cursor, and the next ask or the cron's run makes their deliveries.
 */
export async function askFanout(queue: Queue<DeliveryMessage>, shard: number): Promise<void> {
  try {
    await queue.send({ fanout: true, shard });
  } catch {
    // The cron fans out every run.
  }
}

/** Queues deliveries due now; a lost send is the cron's to repair (sendMessages). */
export const enqueueDeliveries = (
  queue: Queue<DeliveryMessage>,
  shard: number,
  ids: number[],
): Promise<void> =>
  sendMessages(
    queue,
    ids.map((id) => ({ delivery_id: id, shard })),
    'deliveries',
  );

/** Queues one delivery's next try after its delay (the Queue's own limit is 12 hours). */
export async function enqueueRetry(
  queue: Queue<DeliveryMessage>,
  shard: number,
  id: number,
  delayMs: number,
): Promise<void> {
  try {
    await queue.send({ delivery_id: id, shard }, { delaySeconds: Math.max(0, Math.ceil(delayMs / 1000)) });
  } catch {
    // The delivery stays pending with its due time: the cron queues it once that has passed.
  }
}
