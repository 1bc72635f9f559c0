import { sendMessages } from '../../core/queue-send';

/** A queue message names an event; the payload stays in D1 (a message holds at most 128 KB). */
export type EventMessage = { event_id: number };

export const isEventMessage = (body: unknown): body is EventMessage =>
  typeof body === 'object' && body !== null && Number.isSafeInteger((body as Partial<EventMessage>).event_id);

/** Hands events to the queue; a lost send is the cron's to repair (see sendMessages). */
export const enqueueEvents = (queue: Queue<EventMessage>, ids: number[]): Promise<void> =>
  sendMessages(
    queue,
    ids.map((id) => ({ event_id: id })),
    'events',
  );
