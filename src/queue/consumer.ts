import type { Bindings } from '../env';

/**
 * Queue consumer. No message type is defined yet (the inbound webhook events of issue 5 will be
 * the first); anything that arrives is retried, so after `max_retries` it lands in the dead-letter
 * queue instead of being dropped.
 */
export async function consume(batch: MessageBatch<unknown>, _env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    console.warn(
      JSON.stringify({ level: 'warn', msg: 'unhandled queue message', queue: batch.queue, id: message.id }),
    );
    message.retry();
  }
}
