import { sendMessages } from '../core/queue-send';

/** A queue message names a delivery; its body stays in D1. */
export type DeliveryMessage = { delivery_id: number };

export const isDeliveryMessage = (body: unknown): body is DeliveryMessage =>
  typeof body === 'object' &&
  body !== null &&
  Number.isSafeInteger((body as Partial<DeliveryMessage>).delivery_id);

/** Queues deliveries due now; a lost send is the cron's to repair (sendMessages). */
export const enqueueDeliveries = (queue: Queue<DeliveryMessage>, ids: number[]): Promise<void> =>
  sendMessages(
    queue,
    ids.map((id) => ({ delivery_id: id })),
    'deliveries',
  );

/** Queues one delivery's next try after its delay (the Queue's own limit is 12 hours). */
export async function enqueueRetry(
  queue: Queue<DeliveryMessage>,
  id: number,
  delayMs: number,
): Promise<void> {
  try {
    await queue.send({ delivery_id: id }, { delaySeconds: Math.max(0, Math.ceil(delayMs / 1000)) });
  } catch {
    // The delivery stays pending with its due time: the cron queues it once that has passed.
  }
}
