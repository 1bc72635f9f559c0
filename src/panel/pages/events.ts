import { inboundEvents } from '../../db/schema';
import type { KeyRef } from '../../db/tenant';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import { eventSorts, WebhookEventQuery } from '../../webhooks/contract';
import { type EventRow, listEvents, presentEvent } from '../../webhooks/event-reads';
import { type C, idOf, pageOf, viewOf } from '../page';
import { eventsPage as eventsView } from '../views';

/**
 * The webhook's event log: the page `GET /v1/inbound-webhooks/{id}/events` answers, with its
 * status filter and keyset pages, in one round trip.
 */
export async function eventsPage(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  // An empty select ("all") submits `status=`: no filter.
  const query = WebhookEventQuery.safeParse(
    Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== '')),
  );
  if (!query.success) throw badRequest('invalid_query', 'The query string is not valid.');
  const page = keyset<EventRow>(inboundEvents, eventSorts, query.data, '-received_at');
  const { webhook, events } = await listEvents(c.get('db'), key, id, page, query.data.status);
  const shown = page.page(c, events, presentEvent);
  const rows = shown.data.map((e) => ({ ...e, receivedAt: e.received_at }));
  return c.html(
    eventsView(pageOf(c, true), viewOf(webhook, c), rows, query.data.status, shown.meta.next_cursor),
  );
}
