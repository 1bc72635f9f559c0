// Queue.sendBatch takes at most 100 messages.
const SEND_BATCH = 100;

/**
 * Hands messages to a queue. A failure is logged, not thrown: what they name is already stored
 * (an inbound event `pending`, an outbound delivery due), and the cron queues it again, so the
 * caller's answer does not depend on it. One message goes by `send`: the same message as a batch
 * of one, without the batch's JSON envelope and base64 around its serialized body.
 */
export async function sendMessages<T>(queue: Queue<T>, bodies: T[], what: string): Promise<void> {
  try {
    const [only] = bodies;
    if (bodies.length === 1 && only !== undefined) {
      await queue.send(only);
      return;
    }
    for (let i = 0; i < bodies.length; i += SEND_BATCH) {
      await queue.sendBatch(bodies.slice(i, i + SEND_BATCH).map((body) => ({ body })));
    }
  } catch (err) {
    console.error(
      JSON.stringify({
        level: 'error',
        msg: 'queue send failed; the cron will re-queue',
        [what]: bodies.length,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }
}
