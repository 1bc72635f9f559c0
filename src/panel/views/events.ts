import { html } from 'hono/html';
import { eventStatuses } from '../../core/statuses';
import { statusLabel } from '../labels';
import { zoneName } from '../zone-labels';
import { counted, fill, layout, modeBanner, option, type Page, type WebhookView, when } from './layout';

/** Who a lead is, each part whole on its line when the cell is narrow (an email is not cut). */
export const leadParts = (parts: string[]) =>
  html`<span class="who">${parts.map((part, i) => html`${i ? ' · ' : ''}<span class="part">${part}</span>`)}</span>`;

/** One row of the event list: the event, who its lead is, and what went wrong. */
export type EventListRow = {
  id: number;
  status: (typeof eventStatuses)[number];
  attempts: number;
  receivedAt: string;
  /** The mapped contact's name, phone and email found in the payload, those present. */
  who: string[];
  warnings: number;
  /** The failure's error, or for a refused call its problem's detail worded by its code. */
  error: string | null;
};

/** The list's filter as the form holds it (the panel's own names; pages/events.ts maps them). */
export type EventListForm = { q: string; status: string; from: string; to: string };
/** The zone the form's days are read in (pages/events.ts). */
type Zone = { zone: string };

/** What the bulk replay offers: how many failed events the filter finds (counted in the page's read). */
export type BulkOffer = { failed: number; max: number };

/** The filter's fields as hidden inputs (the replay form) or a query string (the next page). */
const filled = (f: EventListForm) => Object.entries(f).filter(([, v]) => v !== '');

function filterForm(p: Page, base: string, f: EventListForm, { zone }: Zone) {
  return html`<form method="get" action="${base}" class="filters" role="search">
<p><label for="q">${p.t.findLead}</label>
<input id="q" name="q" type="search" value="${f.q}" minlength="3" maxlength="200" aria-describedby="q-hint" autocomplete="off">
<span class="hint" id="q-hint">${p.t.findLeadHint}</span></p>
<p class="row"><span><label for="from">${p.t.dateFrom}</label> <input id="from" name="from" type="date" value="${f.from}" aria-describedby="days-hint"></span>
<span><label for="to">${p.t.dateTo}</label> <input id="to" name="to" type="date" value="${f.to}" aria-describedby="days-hint"></span>
<span><label for="status">${p.t.status}</label>
<select id="status" name="status">${option('', p.t.all, !f.status)}${eventStatuses.map((s) => option(s, statusLabel(p, s), f.status === s))}${option('warnings', p.t.withWarnings, f.status === 'warnings')}</select></span></p>
<p class="hint" id="days-hint">${fill(p.t.daysInZone, { zone: zoneName(p.t, zone) })}</p>
<p class="row"><button type="submit">${p.t.filter}</button>${filled(f).length ? html` <a href="${base}">${p.t.clearFilter}</a>` : ''}</p>
</form>`;
}

/** The bulk replay: a button that opens its confirmation, which says how many. */
function bulkReplay(p: Page, base: string, f: EventListForm, offer: BulkOffer) {
  if (!offer.failed || !p.can('webhooks:update')) return '';
  const now = Math.min(offer.failed, offer.max);
  return html`<details class="confirm">
<summary class="danger">${p.t.replayAll} (${offer.failed})</summary>
<p>${fill(counted(p, p.t.replayAllConfirm, offer.failed), { n: offer.failed })}</p>
<form method="post" action="${base}/replay" class="inline">${filled(f).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit" class="danger">${fill(p.t.replayAllDo, { k: now })}</button></form>
</details>`;
}

/**
 * The delete: a button that opens its confirmation, whose form carries the filter and the time the
 * page was shown (`before`), so an event that arrives meanwhile is not deleted. Not offered for
 * `pending`, which is never deleted.
 */
function bulkDelete(p: Page, base: string, f: EventListForm, { max, now }: { max: number; now: number }) {
  if (!p.can('webhooks:delete') || f.status === 'pending') return '';
  const whole = filled(f).length === 0;
  return html`<details class="confirm">
<summary class="danger">${whole ? p.t.deleteAllUnfiltered : p.t.deleteAll}</summary>
<p>${fill(p.t.deleteAllConfirm, { k: max, what: whole ? p.t.deleteWhatAll : p.t.deleteWhatFilter, hint: whole ? p.t.deleteHintAll : '' })}</p>
<form method="post" action="${base}/delete" class="inline">${filled(f).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<input type="hidden" name="before" value="${new Date(now).toISOString()}"><button type="submit" class="danger">${p.t.deleteAllDo}</button></form>
</details>`;
}

function rowOf(p: Page, base: string, e: EventListRow) {
  return html`<tr><td data-label="${p.t.event}"><a href="${base}/${e.id}">#${e.id}</a></td><td data-label="${p.t.received}">${when(e.receivedAt, p)}</td><td data-label="${p.t.lead}">${leadParts(e.who)}</td><td data-label="${p.t.status}"><span class="badge ${e.status}">${statusLabel(p, e.status)}</span></td><td data-label="${p.t.warningsCol}">${e.warnings ? html`<span class="badge warned">${fill(counted(p, p.t.warningsCount, e.warnings), { n: e.warnings })}</span>` : ''}</td><td data-label="${p.t.attempts}">${e.attempts}</td><td data-label="${p.t.error}">${e.error ?? ''}</td></tr>`;
}

/** The flash after a bulk replay or delete: how many were queued (or deleted) and how many remain. */
export function bulkFlash(
  p: Page,
  { replayed, deleted, remaining }: Partial<Record<'replayed' | 'deleted' | 'remaining', string>>,
) {
  const done = replayed ?? deleted;
  if (!done || !/^\d{1,4}$/.test(done) || !remaining || !/^\d{1,9}$/.test(remaining)) return undefined;
  const n = Number(done);
  const m = Number(remaining);
  const [more, finished] = replayed
    ? [p.t.replayAllDone, p.t.replayAllFinished]
    : [p.t.deleteAllDone, p.t.deleteAllFinished];
  return { kind: 'ok' as const, text: fill(counted(p, m ? more : finished, n), { n, m }) };
}

/** The webhook's event log: the filter, who each lead is, and the bulk replay of its failures. */
export function eventsPage(
  p: Page,
  h: WebhookView,
  events: EventListRow[],
  view: Zone & {
    form: EventListForm;
    next: string | null;
    offer: BulkOffer;
    /** The most one delete takes, and the time the page is shown (the delete's upper bound). */
    deletes: { max: number; now: number };
    flash?: { kind: 'ok' | 'error'; text: string } | undefined;
  },
) {
  const base = `/panel/webhooks/${h.id}/events`;
  const { form, next, offer } = view;
  const filtering = filled(form).length > 0;
  return layout(
    p,
    `${p.t.events}: ${h.name}`,
    html`${modeBanner(p, h)}
<p><a href="/panel/webhooks/${h.id}">${p.t.back}</a></p>
${filterForm(p, base, form, view)}
${bulkReplay(p, base, form, offer)}
${bulkDelete(p, base, form, view.deletes)}
${
  events.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${p.t.events}"><table class="events">
<thead><tr><th scope="col">${p.t.event}</th><th scope="col">${p.t.received}</th><th scope="col">${p.t.lead}</th><th scope="col">${p.t.status}</th><th scope="col">${p.t.warningsCol}</th><th scope="col">${p.t.attempts}</th><th scope="col">${p.t.error}</th></tr></thead>
<tbody>${events.map((e) => rowOf(p, base, e))}</tbody></table></div>`
    : html`<p>${filtering ? p.t.noMatches : p.t.noEvents}</p>`
}
${next ? html`<p><a href="${base}?${new URLSearchParams([...filled(form), ['cursor', next]]).toString()}">${p.t.more}</a></p>` : ''}`,
    view.flash,
  );
}
