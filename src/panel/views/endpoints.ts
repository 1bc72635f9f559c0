import type { z } from '@hono/zod-openapi';
import { html, raw } from 'hono/html';
import type { WebhookEndpoint } from '../../contracts/webhook-endpoints';
import { EVENT_TYPES, PING } from '../../core/event-types';
import { tokenField } from '../form-token';
import {
  disabledReasonLabels,
  eventTypeLabels,
  type OutboundText,
  outboundText,
  recordGroupLabels,
} from '../outbound-text';
import { type FlashView, layout, type Page, post, when } from './layout';

// The outbound endpoints' pages: the list, the form (new and edit), an endpoint's page with its
// actions, and the page that shows a signing secret its one time.

export type Endpoint = z.infer<typeof WebhookEndpoint>;
type Html = ReturnType<typeof html>;

export const words = (p: Page): OutboundText => outboundText[p.lang];
export const endpointBase = (id: number) => `/panel/endpoints/${id}`;

/** An event type or pattern in words, its code beside it. */
export function typeWords(p: Page, pattern: string): Html {
  const t = words(p);
  const [record = ''] = pattern.split('.');
  const label =
    pattern === '*'
      ? t.allEvents
      : pattern === PING
        ? t.ping
        : pattern.endsWith('.*') && Object.hasOwn(recordGroupLabels[p.lang], record)
          ? `${t.allOf} ${recordGroupLabels[p.lang][record as keyof (typeof recordGroupLabels)['en']].toLowerCase()}`
          : Object.hasOwn(eventTypeLabels[p.lang], pattern)
            ? eventTypeLabels[p.lang][pattern as (typeof EVENT_TYPES)[number]]
            : pattern;
  return html`${label} <code>${pattern}</code>`;
}

/** The state in words: on, off by a person, or off by the CRM with its reason. */
export function stateWords(p: Page, e: Endpoint): string {
  const t = words(p);
  if (e.enabled) return t.on;
  return e.disabled_reason ? disabledReasonLabels[p.lang][e.disabled_reason] : t.off;
}

const stateBadge = (p: Page, e: Endpoint) =>
  html`<span class="badge ${e.enabled ? 'on' : 'off'}">${e.enabled ? words(p).on : words(p).off}</span>`;

export function listView(p: Page, rows: Endpoint[], next: string | null, flash?: FlashView) {
  const t = words(p);
  const row = (e: Endpoint) => html`<tr>
<td data-label="${t.url}"><a href="${endpointBase(e.id)}"><code>${e.url}</code></a></td>
<td data-label="${t.description}">${e.description ?? ''}</td>
<td data-label="${t.eventTypes}"><ul class="plain">${e.event_types.map((type) => html`<li>${typeWords(p, type)}</li>`)}</ul></td>
<td data-label="${t.state}"><span>${stateBadge(p, e)}${e.disabled_reason ? html` <span class="hint">${stateWords(p, e)}</span>` : ''}</span></td>
<td data-label="${t.deliveries}"><a href="${endpointBase(e.id)}/deliveries">${t.deliveries}</a></td>
</tr>`;
  return layout(
    p,
    t.title,
    html`<p>${t.intro}</p>
${p.can('webhook_endpoints:insert') ? html`<p><a class="button" href="/panel/endpoints/new">${t.newEndpoint}</a></p>` : ''}
${
  rows.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.title}"><table>
<thead><tr><th scope="col">${t.url}</th><th scope="col">${t.description}</th><th scope="col">${t.eventTypes}</th><th scope="col">${t.state}</th><th scope="col">${t.deliveries}</th></tr></thead>
<tbody>${rows.map(row)}</tbody></table></div>`
    : html`<p>${t.none}</p>`
}
${next ? html`<p><a href="/panel/endpoints?cursor=${encodeURIComponent(next)}">${p.t.more}</a></p>` : ''}`,
    flash,
  );
}

/** What the form holds: the typed values, and (on edit) those it was shown with. */
export type EndpointDraft = { url: string; description: string; event_types: string[] };

/** The picker's groups: `*`, then each record type's `<record>.*` and its exact types. */
const groups = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0] ?? ''))].map((record) => ({
  record: record as keyof (typeof recordGroupLabels)['en'],
  types: EVENT_TYPES.filter((type) => type.startsWith(`${record}.`)),
}));

function typePicker(p: Page, chosen: string[], note: ReturnType<typeof noteOf>) {
  const t = words(p);
  const box = (value: string) =>
    html`<label class="check"><input type="checkbox" name="event_types" value="${value}"${chosen.includes(value) ? raw(' checked') : ''}><span>${typeWords(p, value)}</span></label>`;
  return html`<fieldset class="types"${note.attrs}><legend>${t.eventTypes}</legend>
<p class="hint" id="event-types-hint">${t.eventTypesHint}</p>
${box('*')}
${groups.map(
  (g) => html`<fieldset class="group"><legend>${recordGroupLabels[p.lang][g.record]}</legend>
${box(`${g.record}.*`)}${g.types.map(box)}</fieldset>`,
)}
${note.note}
</fieldset>`;
}

/** Error notes for a control, tied to it (`aria-invalid`, `aria-describedby`). */
const noteOf = (errors: Map<string, string[]>, name: string) => {
  const list = errors.get(name);
  const id = `err-${name.replaceAll('_', '-')}`;
  return {
    attrs: list ? raw(` aria-invalid="true" aria-describedby="${id}"`) : '',
    note: list ? html`<span class="error" id="${id}">${list.join(' ')}</span>` : '',
  };
};

/**
 * The create and edit form. On edit, `was` is the endpoint as the form was shown: hidden fields
 * that let the save write only what the person changed.
 */
export function endpointForm(
  p: Page,
  action: string,
  draft: EndpointDraft,
  errors: Map<string, string[]>,
  was?: EndpointDraft,
) {
  const t = words(p);
  const url = noteOf(errors, 'url');
  const description = noteOf(errors, 'description');
  const types = noteOf(errors, 'event_types');
  const hidden = was
    ? html`<input type="hidden" name="was.url" value="${was.url}"><input type="hidden" name="was.description" value="${was.description}"><input type="hidden" name="was.event_types" value="${[...was.event_types].sort().join(' ')}">`
    : '';
  return html`<form method="post" action="${action}" class="card endpoint-form">${hidden}
<p><label for="url">${t.url}</label>
<input id="url" name="url" type="url" inputmode="url" autocomplete="off" spellcheck="false" required maxlength="2048" value="${draft.url}" aria-describedby="url-hint${errors.has('url') ? ' err-url' : ''}"${errors.has('url') ? raw(' aria-invalid="true"') : ''}>
<span class="hint" id="url-hint">${t.urlHint}</span>${url.note}</p>
<p><label for="description">${t.description}</label>
<input id="description" name="description" maxlength="500" value="${draft.description}"${description.attrs}>
<span class="hint">${t.descriptionHint}</span>${description.note}</p>
${typePicker(p, draft.event_types, types)}
${was ? '' : tokenField()}<p><button type="submit">${was ? t.save : t.create}</button></p>
</form>`;
}

export const newEndpointPage = (p: Page, draft: EndpointDraft, errors: Map<string, string[]>) =>
  layout(
    p,
    words(p).newEndpoint,
    html`<p><a href="/panel/endpoints">${p.t.back}</a></p>${endpointForm(p, '/panel/endpoints', draft, errors)}`,
    errors.size ? { kind: 'error', text: words(p).fixErrors } : undefined,
  );

/** The endpoint's facts, as the API reads them (never its secret). */
function facts(p: Page, e: Endpoint) {
  const t = words(p);
  return html`<dl class="facts">
<dt>${t.url}</dt><dd><code id="endpoint-url">${e.url}</code></dd>
<dt>${t.description}</dt><dd>${e.description ?? html`<span class="hint">${t.noDescription}</span>`}</dd>
<dt>${t.eventTypes}</dt><dd><ul class="plain">${e.event_types.map((type) => html`<li>${typeWords(p, type)}</li>`)}</ul></dd>
<dt>${t.state}</dt><dd>${stateBadge(p, e)}${e.disabled_reason ? html` ${stateWords(p, e)}` : ''}</dd>
${e.failing_since ? html`<dt>${t.failingSince}</dt><dd>${when(e.failing_since, p)}</dd>` : ''}
${e.previous_secret_expires_at ? html`<dt>${t.secret}</dt><dd>${t.previousUntil} ${when(e.previous_secret_expires_at, p)}.</dd>` : ''}
<dt>${t.created}</dt><dd>${when(e.created_at, p)}</dd>
</dl>`;
}

/** The actions the session's key allows, each a form (a destructive one answers with its question first). */
function actions(p: Page, e: Endpoint) {
  const t = words(p);
  const base = endpointBase(e.id);
  const log = html`<a class="button" href="${base}/deliveries">${t.deliveries}</a>`;
  if (!p.can('webhook_endpoints:update')) {
    return html`<p class="hint" role="note">${t.readOnly}</p><div class="actions">${log}</div>`;
  }
  const toggle = e.enabled
    ? post(`${base}/enabled`, t.disable, html`<input type="hidden" name="enabled" value="false">`)
    : post(
        `${base}/enabled`,
        t.enable,
        // Enabling forgets when the failures began: the log's recover starts from it (pages/endpoints.ts).
        html`<input type="hidden" name="enabled" value="true">${e.failing_since ? html`<input type="hidden" name="failing_since" value="${e.failing_since}">` : ''}`,
      );
  return html`<div class="actions">
${post(`${base}/test`, t.test)}
${log}
${toggle}
<form method="post" action="${base}/rotate" class="inline"><button type="submit" class="danger">${t.rotate}</button></form>
${p.can('webhook_endpoints:delete') ? html`<form method="post" action="${base}/delete" class="inline"><button type="submit" class="danger">${t.delete}</button></form>` : ''}
</div>
<p class="hint">${t.testHint}</p>`;
}

export function endpointPage(
  p: Page,
  e: Endpoint,
  form: { draft: EndpointDraft; errors: Map<string, string[]> },
  flash?: FlashView,
) {
  const t = words(p);
  const was = { url: e.url, description: e.description ?? '', event_types: e.event_types };
  const edit = p.can('webhook_endpoints:update')
    ? html`<section aria-labelledby="edit"><h2 id="edit">${t.edit}</h2>${endpointForm(p, endpointBase(e.id), form.draft, form.errors, was)}</section>`
    : '';
  return layout(
    p,
    e.description ?? e.url,
    html`<p><a href="/panel/endpoints">${p.t.back}</a></p>
<section class="card" aria-labelledby="settings"><h2 id="settings">${t.settings}</h2>
${facts(p, e)}
${actions(p, e)}</section>
${edit}`,
    flash,
  );
}

/** The page a secret is shown on, its one time: after the create and after a rotation. */
export function secretPage(p: Page, e: Endpoint, secret: string, title: string, graceNote: Html | string) {
  const t = words(p);
  return layout(
    p,
    title,
    html`<section class="card" aria-labelledby="secret-title">
<h2 id="secret-title">${t.secret}</h2>
<p class="banner warn" role="note">${t.secretOnce}</p>
<p class="copy"><code id="secret" class="secret-value">${secret}</code> <button type="button" class="js-copy" data-copy="secret" data-done="${p.lang === 'en' ? 'Copied' : 'Copiado'}" hidden>${p.t.copy}</button></p>
<p class="hint">${t.secretUse}</p>
${graceNote}
</section>
<p class="hint"><code>${e.url}</code></p>
<p><a class="button" href="${endpointBase(e.id)}">${t.toEndpoint}</a></p>`,
  );
}

/**
 * A question before a destructive change: what it does, and a form whose POST (with `confirm=yes`
 * and the values it carries) does it. Works without JavaScript.
 */
export function askPage(
  p: Page,
  ask: { title: string; text?: string; action: string; button: string; back: string },
  fields: Record<string, string> = {},
  extra: Html | string = '',
) {
  return layout(
    p,
    ask.title,
    html`${ask.text ? html`<p>${ask.text}</p>` : ''}
<form method="post" action="${ask.action}" class="card">
<input type="hidden" name="confirm" value="yes">${tokenField()}${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${extra}
<div class="actions"><button type="submit" class="danger">${ask.button}</button>
<a class="button secondary" href="${ask.back}">${p.t.cancel}</a></div>
</form>`,
  );
}

/**
 * The answer to a guarded form sent again (src/panel/form-token.ts): what the first one did, and a
 * link to where its result is (`at`), or to the list while the first is still running.
 */
export function againPage(p: Page, text: string, at: string | undefined, label = words(p).toEndpoint) {
  const t = words(p);
  return layout(
    p,
    t.againTitle,
    html`<p class="flash ok" role="status">${at ? text : t.stillRunning}</p>
<p><a class="button" href="${at ?? '/panel/endpoints'}">${at ? label : t.title}</a></p>`,
  );
}
