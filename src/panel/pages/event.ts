import { DomainError } from '../../core/errors';
import type { KeyRef } from '../../db/tenant';
import { presentEvent, readEvent } from '../../webhooks/event-reads';
import { replayEvent } from '../../webhooks/resource';
import { type C, doneFlash, idOf, pageOf, viewOf } from '../page';
import { eventPage as eventView } from '../views';

/** One event of the webhook, as `GET /v1/inbound-webhooks/{id}/events/{event_id}` reads it. */
export async function eventPage(c: C, key: KeyRef): Promise<Response> {
  const { webhook, event } = await readEvent(c.get('db'), key, idOf(c), idOf(c, 'event_id'));
  const e = presentEvent(event);
  const detail = {
    id: e.id,
    status: e.status,
    attempts: e.attempts,
    error: e.error,
    receivedAt: e.received_at,
    processedAt: e.processed_at,
    payload: e.payload,
    preview: e.preview,
    result: e.result,
  };
  const p = pageOf(c, true);
  return c.html(eventView(p, viewOf(webhook, c), detail, doneFlash(c, p)));
}

/**
 * Queues a failed event again (`replayEvent`, as `/v1` does) and goes back to its page; an event
 * that has not failed (a conflict) is left as it is, back on its page.
 */
export async function replayEventPage(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const eventId = idOf(c, 'event_id');
  const back = `/panel/webhooks/${id}/events/${eventId}`;
  try {
    await replayEvent(c.get('db'), key, c.env.EVENTS, id, eventId);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') return c.redirect(back, 303);
    throw err;
  }
  return c.redirect(`${back}?done=replayed`, 303);
}
