import { sendMessages } from '../core/queue-send';

/**
 * A queue message names a delivery (its body stays in D1), or asks for a fan-out run: the
 * journal's new entries made into deliveries (outbound/fanout.ts).
 */
export type DeliveryMessage = { delivery_id: number } | { fanout: true };

export const isDeliveryMessage = (body: unknown): body is { delivery_id: number } =>
  typeof body === 'object' &&
  body !== null &&
  Number.isSafeInteger((body as { delivery_id?: unknown }).delivery_id);

export const isFanoutMessage = (body: unknown): body is { fanout: true } =>
  typeof body === 'object' && body !== null && (body as { fanout?: unknown }).fanout === true;

/**
 * Asks for a fan-out run after a write committed. A lost ask loses nothing: the entries stay past
 * the cursor, and the next ask or the cron's run makes their deliveries.
 */
export async function askFanout(queue: Queue<DeliveryMessage>): Promise<void> {
  try {
    await queue.send({ fanout: true });
  } catch {
    // The cron fans out every run.
  }
}

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
