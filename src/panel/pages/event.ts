import { DomainError } from '../../core/errors';
import type { KeyRef } from '../../db/tenant';
import { presentEvent, readEvent } from '../../webhooks/log/event-reads';
import { processTestEvent } from '../../webhooks/log/promote';
import { replayEvent } from '../../webhooks/resource/store';
import { type C, doneFlash, type Flash, idOf, pageOf, viewOf } from '../page';
import { eventPage as eventView, processConfirmPage } from '../views/event';
import type { Page } from '../views/layout';

/** The flashes of the event page's own writes, then the shared ones. */
function flashOf(c: C, p: Page): Flash | undefined {
  const done = c.req.query('done');
  if (done === 'processing') return { kind: 'ok', text: p.t.processQueued };
  if (done === 'not-processed') return { kind: 'error', text: p.t.processRefused };
  return doneFlash(c, p);
}

/**
 * One event, read with its webhook, the users its preview names and the records its result names:
 * one round trip.
 */
async function read(c: C, key: KeyRef) {
  const read = await readEvent(c.get('db'), key, idOf(c), idOf(c, 'event_id'), true);
  return {
    webhook: read.webhook,
    row: read.event,
    event: presentEvent(read.event),
    owners: new Map(read.owners.map((u) => [u.id, u.name])),
    trashed: new Set(read.owners.filter((u) => u.deletedAt !== null).map((u) => u.id)),
    names: read.names,
  };
}

/** One event of the webhook as a request inspector (`GET /v1/inbound-webhooks/{id}/events/{event_id}` and more). */
export async function eventPage(c: C, key: KeyRef): Promise<Response> {
  const { webhook, row, event, owners, trashed, names } = await read(c, key);
  const p = pageOf(c, true);
  const extra = { mode: row.mode, headers: row.headers, owners, trashed, names, flash: flashOf(c, p) };
  return c.html(eventView(p, viewOf(webhook, c), event, extra));
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

/**
 * Processes a test event for real (`processTestEvent`, as `POST …/process` does): first a page that
 * says it writes real records, then its confirming POST (`confirm=yes`). Refused (the event or the
 * webhook moved on meanwhile), it is back on its page with a flash that says so.
 */
export async function processEventPage(c: C, key: KeyRef): Promise<Response> {
  const form = await c.req.parseBody();
  const id = idOf(c);
  const eventId = idOf(c, 'event_id');
  const back = `/panel/webhooks/${id}/events/${eventId}`;
  if (form.confirm !== 'yes') {
    const { webhook, event, owners } = await read(c, key);
    // Nothing to confirm for an event this cannot take: its page says why.
    if (event.status !== 'test' || webhook.mode !== 'production') {
      return c.redirect(`${back}?done=not-processed`, 303);
    }
    return c.html(processConfirmPage(pageOf(c, true), viewOf(webhook, c), event, owners));
  }
  try {
    await processTestEvent(c.get('db'), key, c.env.EVENTS, id, eventId);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict')
      return c.redirect(`${back}?done=not-processed`, 303);
    throw err;
  }
  return c.redirect(`${back}?done=processing`, 303);
}
