/** A queue message names an event; the payload stays in D1 (a message holds at most 128 KB). */
export type EventMessage = { event_id: number };

export const isEventMessage = (body: unknown): body is EventMessage =>
  typeof body === 'object' && body !== null && Number.isSafeInteger((body as Partial<EventMessage>).event_id);

// Queue.sendBatch takes at most 100 messages.
const SEND_BATCH = 100;

/**
 * Hands events to the queue. A failure is logged, not thrown: the events are already stored as
 * `pending`, and the cron queues them again, so the caller's answer does not depend on it. One
 * event (an ingest's) goes by `send`: the same message (its body, the default content type) as a
 * batch of one, without the batch's JSON envelope and base64 around its serialized body.
 */
export async function enqueueEvents(queue: Queue<EventMessage>, ids: number[]): Promise<void> {
  try {
    const [only] = ids;
    if (ids.length === 1 && only !== undefined) {
      await queue.send({ event_id: only });
      return;
    }
    for (let i = 0; i < ids.length; i += SEND_BATCH) {
      await queue.sendBatch(ids.slice(i, i + SEND_BATCH).map((id) => ({ body: { event_id: id } })));
    }
  } catch (err) {
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'queue send failed; the cron will re-queue',
        events: ids.length,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }
}
