import { html } from 'hono/html';
import type { KeyRef } from '../../db/tenant';
import { scoped } from '../../db/tenant';
import { presentEvent } from '../../webhooks/log/event-reads';
import { LEAD_SEARCH_LIMIT, searchLeads } from '../../webhooks/log/lead-search';
import { MAX_SEARCH, MIN_SEARCH } from '../../webhooks/rules/event-search';
import { keptBody, leadOf } from '../../webhooks/rules/lead-name';
import { statusLabel } from '../labels';
import { type C, pageOf } from '../page';
import { leadParts } from '../views/events';
import { layout, when } from '../views/layout';

// A lead found across every webhook of the account, from the panel's header: its events, who each
// was about, and a link to each event (whose page links the records it made).

/** The search page: the form, and for a query of 3 to 200 characters the events that match. */
export async function leadSearchPage(c: C, key: KeyRef): Promise<Response> {
  const q = (c.req.query('q') ?? '').trim();
  const p = pageOf(c, true);
  const usable = q.length >= MIN_SEARCH && q.length <= MAX_SEARCH;
  // Without a query the session is still checked, in the page's one round trip.
  const found = usable ? await searchLeads(c.get('db'), key, q) : undefined;
  if (!usable) await scoped(c.get('db'), key);
  const hooks = new Map(found?.webhooks.map((w) => [w.id, w]));
  const rows = (found?.events ?? []).map((row) => {
    const e = presentEvent(row);
    const hook = hooks.get(row.webhookId);
    // As stored when it arrived; an event stored before leads were kept, from the mapping now.
    const who = leadParts(row.lead ?? leadOf(hook?.fields ?? [], e.payload ?? keptBody(e.rejection?.body)));
    const link = `/panel/webhooks/${row.webhookId}/events/${e.id}`;
    return html`<tr><td data-label="${p.t.lead}">${who}</td><td data-label="${p.t.searchWebhook}">${hook?.name ?? ''}</td><td data-label="${p.t.event}"><a href="${link}">#${e.id}</a></td><td data-label="${p.t.received}">${when(e.received_at, p)}</td><td data-label="${p.t.status}"><span class="badge ${e.status}">${statusLabel(p, e.status)}</span></td></tr>`;
  });
  const table = html`<div class="scroll" tabindex="0" role="region" aria-label="${p.t.searchResults}"><table class="stacked">
<thead><tr><th scope="col">${p.t.lead}</th><th scope="col">${p.t.searchWebhook}</th><th scope="col">${p.t.event}</th><th scope="col">${p.t.received}</th><th scope="col">${p.t.status}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
  const result = !q
    ? html`<p class="hint">${p.t.searchHint}</p>`
    : !usable
      ? html`<p class="error" role="alert">${p.t.searchLength}</p>`
      : rows.length
        ? html`${rows.length === LEAD_SEARCH_LIMIT ? html`<p class="hint">${p.t.searchFirst}</p>` : ''}${table}`
        : html`<p>${p.t.searchNone}</p>`;
  return c.html(
    layout(
      p,
      p.t.searchTitle,
      html`<form method="get" action="/panel/search" class="filters" role="search"><label for="search-q">${p.t.searchLabel}</label> <input id="search-q" name="q" type="search" value="${q}" maxlength="${MAX_SEARCH}"> <button type="submit">${p.t.searchButton}</button></form>
${result}`,
    ),
    usable || !q ? 200 : 400,
  );
}
