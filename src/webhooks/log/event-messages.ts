import { messageShard } from '../../core/message-shard';
import { sendMessages } from '../../core/queue-send';

/**
 * A queue message names an event and its shard; the payload stays in D1 (a message holds at most
 * 128 KB). `shard` is optional only for messages sent before shards (src/core/message-shard.ts).
 */
export type EventMessage = { event_id: number; shard?: number };

export const isEventMessage = (body: unknown): body is EventMessage =>
  typeof body === 'object' &&
  body !== null &&
  Number.isSafeInteger((body as Partial<EventMessage>).event_id) &&
  messageShard(body) !== undefined;

/** Hands shard `shard`'s events to the queue; a lost send is the cron's to repair (see sendMessages). */
export const enqueueEvents = (queue: Queue<EventMessage>, shard: number, ids: number[]): Promise<void> =>
  sendMessages(
    queue,
    ids.map((id) => ({ event_id: id, shard })),
    'events',
  );
