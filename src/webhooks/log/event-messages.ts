import { z } from 'zod';
import { MessageShard } from '../../contracts/queue';
import { sendMessages } from '../../core/queue-send';

/**
 * A queue message names an event and its shard; the payload stays in D1 (a message holds at most
 * 128 KB). `shard` is optional only for messages sent before shards (src/core/message-shard.ts).
 */
export const EventMessage = z.object({ event_id: z.number().int(), shard: MessageShard });
export type EventMessage = z.infer<typeof EventMessage>;

export const isEventMessage = (body: unknown): body is EventMessage => EventMessage.safeParse(body).success;

/** Hands shard `shard`'s events to the queue; a lost send is the cron's to repair (see sendMessages). */
export const enqueueEvents = (queue: Queue<EventMessage>, shard: number, ids: number[]): Promise<void> =>
  sendMessages(
    queue,
    ids.map((id) => ({ event_id: id, shard })),
    'events',
  );
