import type { z } from '@hono/zod-openapi';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { Args } from '../../core/said';
import type { Scope } from '../../core/scopes';
import type { WebhookEvent } from '../../webhooks/contract/schemas';
import type { ResultKind, ResultName } from '../../webhooks/log/result-records';
import type { EventMarkOutcome } from '../../webhooks/rules/event-history';
import type { Messages } from '../i18n';
import { modeLabel, statusLabel } from '../labels';
import { previewSentences } from '../preview-text';
import { actionName, detailText, failureText, saidText } from '../said-words';
import { localTime } from '../zone';
import { layout, modeBanner, type Page, type WebhookView, when } from './layout';

// One event as a request inspector: what it did (or would do), why it was refused, its warnings,
// its history of attempts, and the call as received (kept headers, body, Content-Type).

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type Event = z.infer<typeof WebhookEvent>;
type Flash = { kind: 'ok' | 'error'; text: string };

/**
 * Headers never shown, whatever was kept: ingest keeps none of them (routes/hooks.ts KEPT_HEADERS),
 * and this holds for events stored before that list, or after someone widens it.
 */
const CREDENTIAL_HEADER = /signature|secret|cookie|authori[sz]ation|token|api-?key|password/i;

/** The headers the page may show, in name order. */
export const shownHeaders = (headers: Record<string, string>): [string, string][] =>
  Object.entries(headers)
    .filter(([name]) => !CREDENTIAL_HEADER.test(name))
    .sort(([a], [b]) => a.localeCompare(b));

const markLabel = (p: Page, outcome: EventMarkOutcome) => p.t[`mark_${outcome}`];

/**
 * Past this many characters a body is shown as stored, on one line: indenting a deep body (up to
 * 32 levels) of 256 KiB could make a page of megabytes.
 */
const MAX_PRETTY_CHARS = 512 * 1024;

const pretty = (value: unknown) => {
  const indented = JSON.stringify(value, null, 2);
  return html`<pre tabindex="0">${indented.length > MAX_PRETTY_CHARS ? JSON.stringify(value) : indented}</pre>`;
};

function table(caption: string, heads: string[], rows: (Html | string)[][]) {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table>
<thead><tr>${heads.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell, i) => html`<td data-label="${heads[i] ?? ''}">${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

const RESULT_KINDS = {
  contacts: { scope: 'contacts:read', word: 'recContact' },
  companies: { scope: 'companies:read', word: 'recCompany' },
  deals: { scope: 'deals:read', word: 'recDeal' },
  tasks: { scope: 'tasks:read', word: 'recTask' },
} as const satisfies Record<ResultKind, { scope: Scope; word: keyof Messages }>;

/**
 * A record the result names: "Contato: Ana Souza", linked to its page, as the record pages name
 * one: a key without that record's read scope sees "Contato #12" and no name; a record no longer
 * found (purged, or never the account's) is its number.
 */
function resultLink(p: Page, kind: ResultKind, id: number | null, names: readonly ResultName[]) {
  if (id === null) return '';
  const { scope, word } = RESULT_KINDS[kind];
  if (!p.can(scope))
    return html`<li>${p.t[word]} #${id} <span class="hint">(${p.t.recNeeds} ${scope})</span></li>`;
  const found = names.find((n) => n.kind === kind && n.id === id);
  const label = found
    ? `${p.t[word]}: ${found.name}${found.deletedAt === null ? '' : ` (${p.t.inTrash})`}`
    : `${p.t[word]} #${id}`;
  return html`<li><a href="/panel/${kind}/${id}">${label}</a></li>`;
}

/** What the event did (its result, linked to the panel's record pages) or would do (its preview). */
export function outcome(
  p: Page,
  e: Event,
  owners: ReadonlyMap<number, string>,
  names: readonly ResultName[] = [],
) {
  if (e.preview) {
    const sentences = previewSentences(e.preview, {
      lang: p.lang,
      owners,
      time: (iso) => localTime(iso, p.lang, p.zone),
    });
    return html`<section class="card"><h2 id="does">${p.t.inspectWhatItDoes}</h2>
${sentences.map((s) => html`<p>${s}</p>`)}
<details><summary>${p.t.inspectPreviewJson}</summary>${pretty(e.preview)}</details></section>`;
  }
  if (e.status !== 'processed') return '';
  const r = e.result;
  const links = r
    ? [
        resultLink(p, 'contacts', r.contact_id, names),
        resultLink(p, 'companies', r.company_id, names),
        resultLink(p, 'deals', r.deal_id, names),
        ...r.task_ids.map((id) => resultLink(p, 'tasks', id, names)),
      ].filter((l) => l !== '')
    : [];
  return html`<section class="card"><h2 id="result">${p.t.result}</h2>
${links.length ? html`<p>${p.t.inspectResultHint}</p><ul>${links}</ul>` : html`<p>${p.t.inspectNoResult}</p>`}</section>`;
}

/** A signature failure by its code; any other error from its code and params. */
const errorText = (p: Page, x: { code: string; params?: unknown; message: string }) =>
  detailText(p, x.code, saidText(p, x), x.params);

/**
 * Where an error or warning is: an action's as the configurer knows it ("Ação 2 · Criar negócio")
 * when its params name one, never its path; else the sender's key, in <code>.
 */
function fieldCell(p: Page, x: { path: string; params?: unknown }) {
  const a = new Args(x.params);
  return a.text('action') && a.has('index') ? html`${actionName(p, a)}` : html`<code>${x.path || '—'}</code>`;
}

/** For a refused call: the answer its sender got, and each error's field and message. */
function refusal(p: Page, e: Event) {
  const r = e.rejection;
  if (!r) return '';
  const errors = r.errors ?? [];
  return html`<section class="card"><h2 id="refusal">${p.t.inspectRefusal}</h2>
<dl class="facts"><dt>${p.t.inspectAnswered}</dt><dd><code>${r.status} ${r.code}</code></dd>
<dt>${p.t.details}</dt><dd>${detailText(p, r.code, r.detail, r.params)}</dd></dl>
${
  errors.length
    ? table(
        p.t.inspectRefusal,
        [p.t.inspectField, p.t.inspectMessage],
        errors.map((x) => [fieldCell(p, x), html`${errorText(p, x)}`]),
      )
    : ''
}</section>`;
}

export function warnings(
  p: Page,
  e: Event,
  users: ReadonlyMap<number, string>,
  trashed?: ReadonlySet<number>,
) {
  if (!e.warnings.length) return '';
  return html`<section class="card"><h2 id="warnings">${p.t.inspectWarnings}</h2>
<p class="hint">${p.t.inspectWarningsHint}</p>
${table(
  p.t.inspectWarnings,
  [p.t.inspectField, p.t.inspectMessage],
  e.warnings.map((w) => [fieldCell(p, w), html`${saidText({ ...p, users, trashed }, w)}`]),
)}</section>`;
}

function history(p: Page, e: Event) {
  const rows = e.history.map((m) => [
    when(m.at, p),
    html`${markLabel(p, m.outcome)}`,
    html`${m.error ?? ''}`,
  ]);
  return html`<section class="card"><h2 id="history">${p.t.inspectHistory}</h2>
<p class="hint">${p.t.inspectHistoryHint}</p>
${rows.length ? table(p.t.inspectHistory, [p.t.inspectWhen, p.t.inspectOutcome, p.t.error], rows) : html`<p>${p.t.inspectNoHistory}</p>`}</section>`;
}

/** The call as received: the kept headers (credentials never), the Content-Type and the body. */
function request(p: Page, e: Event, headers: Record<string, string>) {
  const shown = shownHeaders(headers);
  const body =
    e.status === 'rejected'
      ? html`<h3>${p.t.inspectExcerpt}</h3>${
          e.rejection?.body == null
            ? html`<p>${p.t.inspectNoExcerpt}</p>`
            : html`<pre tabindex="0">${e.rejection.body}</pre>`
        }`
      : html`<h3>${p.t.inspectBody}</h3>${pretty(e.payload)}`;
  return html`<section class="card"><h2 id="request">${p.t.inspectRequest}</h2>
<dl class="facts"><dt>${p.t.inspectContentType}</dt><dd><code>${headers['content-type'] ?? p.t.none}</code></dd></dl>
<h3>${p.t.inspectHeaders}</h3>
<p class="hint">${p.t.inspectHeadersHint}</p>
${
  shown.length
    ? table(
        p.t.inspectHeaders,
        [p.t.inspectHeader, p.t.inspectValue],
        shown.map(([n, v]) => [html`<code>${n}</code>`, html`<code>${v}</code>`]),
      )
    : html`<p>${p.t.inspectNoHeaders}</p>`
}
${body}</section>`;
}

const postButton = (action: string, label: string, danger = false) =>
  html`<form method="post" action="${action}" class="inline"><button type="submit"${danger ? html` class="danger"` : ''}>${label}</button></form>`;

/** What the session may do with the event: replay a failed one, process a test one for real. */
function actions(p: Page, h: WebhookView, e: Event) {
  if (!p.can('webhooks:update')) return '';
  const base = `/panel/webhooks/${h.id}/events/${e.id}`;
  if (e.status === 'failed')
    return html`<div class="actions">${postButton(`${base}/replay`, p.t.replay)}</div>`;
  if (e.status === 'test' && h.mode === 'production') {
    return html`<p class="hint">${p.t.processForRealHint}</p>
<div class="actions">${postButton(`${base}/process`, p.t.processForReal, true)}</div>`;
  }
  return '';
}

/**
 * The event page. While the event is pending, `data-refresh` asks panel.js to look again every few
 * seconds (for a bounded time) and to swap the page in once it settles, saying so aloud.
 */
export function eventPage(
  p: Page,
  h: WebhookView,
  e: Event,
  extra: {
    mode: WebhookView['mode'];
    headers: Record<string, string>;
    owners: ReadonlyMap<number, string>;
    trashed?: ReadonlySet<number>;
    names: readonly ResultName[];
    flash?: Flash | undefined;
  },
) {
  const pending = e.status === 'pending';
  const refresh = pending
    ? html` data-refresh="pending" data-refresh-stopped="${p.t.inspectStillPending}"`
    : '';
  return layout(
    p,
    `${p.t.event} #${e.id}`,
    html`<div class="event" data-status="${e.status}" data-status-label="${p.t.inspectSettled} ${statusLabel(p, e.status)}"${refresh}>
${modeBanner(p, h)}
<p><a href="/panel/webhooks/${h.id}/events">${p.t.back}</a></p>
${pending ? html`<p class="hint" role="status">${p.t.inspectPending}</p>` : ''}
<dl class="facts">
<dt>${p.t.status}</dt><dd><span class="badge ${e.status}">${statusLabel(p, e.status)}</span></dd>
<dt>${p.t.inspectMode}</dt><dd>${modeLabel(p, extra.mode)}</dd>
<dt>${p.t.received}</dt><dd>${when(e.received_at, p)}</dd>
<dt>${p.t.inspectProcessedAt}</dt><dd>${when(e.processed_at, p)}</dd>
<dt>${p.t.attempts}</dt><dd>${e.attempts}</dd>
${e.error ? html`<dt>${p.t.error}</dt><dd class="error">${failureText(p, e)}</dd>` : ''}
</dl>
${actions(p, h, e)}
${outcome(p, e, extra.owners, extra.names)}
${refusal(p, e)}
${warnings(p, e, extra.owners, extra.trashed)}
${history(p, e)}
${request(p, e, extra.headers)}
</div>`,
    extra.flash,
  );
}

/** Asked before a test event is processed for real: it writes real records. */
export function processConfirmPage(p: Page, h: WebhookView, e: Event, owners: ReadonlyMap<number, string>) {
  const base = `/panel/webhooks/${h.id}/events/${e.id}`;
  return layout(
    p,
    p.t.processConfirmTitle,
    html`${modeBanner(p, h)}
<p>${p.t.processConfirm}</p>
${outcome(p, e, owners)}
<div class="actions">
<form method="post" action="${base}/process" class="inline"><input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">${p.t.processConfirmButton}</button></form>
<a class="button" href="${base}">${p.t.cancel}</a>
</div>`,
  );
}
