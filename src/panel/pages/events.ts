import { dayRange } from '../../core/zones';
import { inboundEvents } from '../../db/schema';
import type { KeyRef } from '../../db/tenant';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import {
  eventSorts,
  MAX_BULK_REPLAY,
  MAX_EVENT_DELETE,
  WebhookEventDeleteQuery,
  WebhookEventFilter,
  WebhookEventQuery,
} from '../../webhooks/contract/schemas';
import { replayMatching } from '../../webhooks/log/bulk-replay';
import { deleteMatching } from '../../webhooks/log/event-delete';
import { type EventRow, listEvents, presentEvent } from '../../webhooks/log/event-reads';
import { keptBody, leadOf } from '../../webhooks/rules/lead-name';
import { type C, idOf, pageOf, viewOf } from '../page';
import { detailText, failureText } from '../said-words';
import { bulkFlash, type EventListForm, type EventListRow, eventsPage as eventsView } from '../views/events';

// The panel's filter names its own fields as a configurer reads them (`from`/`to` are whole days,
// `status=warnings` is "with warnings") and turns them into the /v1 query the one contract reads.

/** The form's fields from a query string or a form body: absent ones empty. */
const formOf = (values: Record<string, unknown>): EventListForm => {
  const text = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : '');
  return { q: text('q'), status: text('status'), from: text('from'), to: text('to') };
};

/** A day's bound in the person's zone, or the typed value itself when it is no date (the contract then refuses it). */
const dayBound = (day: string, zone: string, end: 'from' | 'to') => dayRange(day, zone)?.[end] ?? day;

// The list's own parameters: the form's, and the report of a bulk replay (bulkFlash reads it).
const panelKeys = new Set(['q', 'status', 'from', 'to', 'replayed', 'deleted', 'remaining']);

/**
 * The /v1 query of the form, with the page's other parameters as sent (`cursor`, `limit`, `sort`;
 * anything else is refused as /v1 refuses it): what WebhookEventQuery and WebhookEventFilter read.
 * An empty value (an "all" select) is no filter.
 */
function queryOf(
  f: EventListForm,
  zone: string,
  others: Record<string, string> = {},
): Record<string, string> {
  const query = Object.fromEntries(
    Object.entries(others).filter(([key, value]) => !panelKeys.has(key) && value !== ''),
  );
  if (f.q.trim()) query.q = f.q;
  if (f.status === 'warnings') query.has_warnings = 'true';
  else if (f.status) query.status = f.status;
  if (f.from) query.received_at__gte = dayBound(f.from, zone, 'from');
  if (f.to) query.received_at__lt = dayBound(f.to, zone, 'to');
  return query;
}

/**
 * The webhook's event log: the page `GET /v1/inbound-webhooks/{id}/events` answers, with its
 * filters (a lead's text, days, status or warnings) and keyset pages, and how many failed events
 * the filter finds for the bulk replay, in one round trip.
 */
export async function eventsPage(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = formOf(c.req.query());
  const query = WebhookEventQuery.safeParse(queryOf(form, pageOf(c, true).zone, c.req.query()));
  if (!query.success) throw badRequest('invalid_query', 'The query string is not valid.');
  const page = keyset<EventRow>(inboundEvents, eventSorts, query.data, '-received_at');
  const { webhook, events, failed } = await listEvents(c.get('db'), key, id, page, query.data, true);
  const shown = page.page(c, events, presentEvent);
  const p = pageOf(c, true);
  const leads = new Map(events.map((row) => [row.id, row.lead]));
  const rows: EventListRow[] = shown.data.map((e) => ({
    id: e.id,
    status: e.status,
    attempts: e.attempts,
    receivedAt: e.received_at,
    who: leads.get(e.id) ?? leadOf(webhook.fields, e.payload ?? keptBody(e.rejection?.body)),
    warnings: e.warnings.length,
    error:
      failureText(p, e) ??
      (e.rejection ? detailText(p, e.rejection.code, e.rejection.detail, e.rejection.params) : null),
  }));
  return c.html(
    eventsView(p, viewOf(webhook, c), rows, {
      zone: p.zone,
      form,
      next: shown.meta.next_cursor,
      offer: { failed: failed ?? 0, max: MAX_BULK_REPLAY },
      deletes: { max: MAX_EVENT_DELETE, now: Date.now() },
      flash: bulkFlash(p, c.req.query()),
    }),
  );
}

/**
 * "Replay all failed of this filter": the form's filter, the same the list shows, replayed at most
 * MAX_BULK_REPLAY at a time (replayMatching: one round trip), then back to the list with the
 * report of how many were queued and how many remain.
 */
export async function replayEventsPage(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = formOf(await c.req.parseBody());
  const filter = WebhookEventFilter.safeParse(queryOf(form, pageOf(c, true).zone));
  if (!filter.success) throw badRequest('invalid_query', 'The filter is not valid.');
  const done = await replayMatching(c.get('db'), key, c.env.EVENTS, id, filter.data);
  const back = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
  back.set('replayed', String(done.replayed));
  back.set('remaining', String(done.remaining));
  return c.redirect(`/panel/webhooks/${id}/events?${back}`, 303);
}

/** The earlier of two instants given as ISO texts (either may be absent or no date). */
const earlier = (a: string | undefined, b: string | undefined) =>
  [a, b]
    .filter((t): t is string => !!t && !Number.isNaN(Date.parse(t)))
    .sort((x, y) => Date.parse(x) - Date.parse(y))[0];

/**
 * "Delete the events of this filter" (`DELETE /v1/inbound-webhooks/{id}/events`, deleteMatching:
 * one round trip), confirmed on the list's page: the form's filter, bounded by the time the page
 * was shown (`before`) or the filter's last day, whichever is earlier; then back to the list with
 * how many were deleted and how many remain.
 */
export async function deleteEventsPage(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const body = await c.req.parseBody();
  const form = formOf(body);
  const query = queryOf(form, pageOf(c, true).zone);
  const before = earlier(query.received_at__lt, typeof body.before === 'string' ? body.before : undefined);
  const filter = WebhookEventDeleteQuery.safeParse({ ...query, received_at__lt: before });
  if (!filter.success) throw badRequest('invalid_query', 'The filter is not valid.');
  const done = await deleteMatching(c.get('db'), key, id, filter.data);
  const back = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
  back.set('deleted', String(done.deleted));
  back.set('remaining', String(done.remaining));
  return c.redirect(`/panel/webhooks/${id}/events?${back}`, 303);
}
