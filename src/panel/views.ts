import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { MATCH_KEYS } from '../contracts/webhook-config';
import type { Scope } from '../core/scopes';
import { eventStatuses, type webhookModes } from '../core/statuses';
import { customFieldRecords, fixedTargets, whenOps } from '../core/webhook-config';
import { fieldTypes } from '../core/webhook-fields';
import { actions } from '../webhooks/actions';
import type { panelOptions } from '../webhooks/actions/action';
import {
  BLANK_FIELDS,
  BLANK_FLOWS,
  blankField,
  blankFlow,
  type Draft,
  type FieldDraft,
  type FlowDraft,
} from './form';
import type { Lang, Messages } from './i18n';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * What every page knows: its language, whether someone is signed in, what the signed-in key may
 * do, and a banner about the whole account to show above the page's own content
 * (src/panel/storage-notice.ts).
 */
export type Page = {
  lang: Lang;
  t: Messages;
  path: string;
  signedIn: boolean;
  /** Whether the signed-in key holds `scope`: the page offers only the actions it allows. */
  can: (scope: Scope) => boolean;
  notice?: Html;
};

export const ASSET_VERSION = '2';

export function layout(p: Page, title: string, body: Html, flash?: { kind: 'ok' | 'error'; text: string }) {
  const other: Lang = p.lang === 'en' ? 'pt-BR' : 'en';
  return html`<!doctype html>
<html lang="${p.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${p.t.title}</title>
<link rel="stylesheet" href="/panel/static/panel.css?v=${ASSET_VERSION}">
<script src="/panel/static/panel.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<a class="skip" href="#main">${p.t.skip}</a>
<header class="top">
<a class="brand" href="/panel/webhooks">${p.t.title}</a>
<nav aria-label="${p.t.title}">
${p.signedIn ? html`<a href="/panel/webhooks">${p.t.webhooks}</a>` : ''}
<a href="/panel/lang/${other}?next=${encodeURIComponent(p.path)}" hreflang="${other}" lang="${other}">${other === 'en' ? 'English' : 'Português'}</a>
${
  p.signedIn
    ? html`<form method="post" action="/panel/sign-out" class="inline"><button type="submit">${p.t.signOut}</button></form>`
    : ''
}
</nav>
</header>
<main id="main">
<h1>${title}</h1>
${p.notice ?? ''}
${flash ? html`<p class="flash ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.text}</p>` : ''}
${body}
</main>
</body>
</html>`;
}

export function signInPage(p: Page, error?: string) {
  return layout(
    p,
    p.t.signIn,
    html`<form method="post" action="/panel/sign-in" class="card narrow">
<label for="api_key">${p.t.apiKey}</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required aria-describedby="api_key_hint${error ? ' api_key_error' : ''}"${error ? raw(' aria-invalid="true"') : ''}>
<p id="api_key_hint" class="hint">${p.t.apiKeyHint}</p>
${error ? html`<p id="api_key_error" class="error">${error}</p>` : ''}
<button type="submit">${p.t.signIn}</button>
</form>`,
  );
}

export type WebhookSummary = {
  id: number;
  name: string;
  mode: (typeof webhookModes)[number];
  enabled: boolean;
  url: string | null;
  lastEvent: string | null;
  counts: Partial<Record<string, number>>;
};

export const when = (iso: string | null, p: Page) =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>` : p.t.none;

/** The ingest URL with a copy button; a session that may not see it is told which scope would. */
const copyable = (p: Page, id: string, url: string | null) =>
  url === null
    ? html`<span class="hint">${p.t.urlHidden}</span>`
    : html`<span class="copy"><code id="${id}">${url}</code> <button type="button" class="js-copy" data-copy="${id}" data-done="${p.t.copied}" hidden>${p.t.copy}</button></span>`;

export function listPage(p: Page, hooks: WebhookSummary[], next: string | null) {
  const rows = hooks.map(
    (h) => html`<tr>
<td><a href="/panel/webhooks/${h.id}">${h.name}</a></td>
<td><span class="badge ${h.mode}">${p.t[h.mode]}</span></td>
<td>${h.enabled ? p.t.yes : p.t.no}</td>
<td>${copyable(p, `url-${h.id}`, h.url)}</td>
<td>${when(h.lastEvent, p)}</td>
<td><a href="/panel/webhooks/${h.id}/events">${
      eventStatuses
        .filter((s) => h.counts[s])
        .map((s) => `${s}: ${h.counts[s]}`)
        .join(', ') || p.t.none
    }</a></td>
</tr>`,
  );
  return layout(
    p,
    p.t.webhooks,
    html`${p.can('webhooks:insert') ? html`<p><a class="button" href="/panel/webhooks/new">${p.t.newWebhook}</a></p>` : ''}
${
  hooks.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${p.t.webhooks}"><table>
<thead><tr><th scope="col">${p.t.name}</th><th scope="col">${p.t.mode}</th><th scope="col">${p.t.enabled}</th><th scope="col">${p.t.url}</th><th scope="col">${p.t.lastEvent}</th><th scope="col">${p.t.counts}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p>${p.t.noWebhooks}</p>`
}
${next ? html`<p><a href="/panel/webhooks?cursor=${encodeURIComponent(next)}">${p.t.more}</a></p>` : ''}`,
  );
}

/** Error messages for a control, with the attributes that tie them to it. */
function problems(errors: Map<string, string[]>, name: string) {
  const list = errors.get(name);
  const id = `err-${name.replaceAll('.', '-')}`;
  return {
    attrs: list ? raw(` aria-invalid="true" aria-describedby="${id}"`) : '',
    note: list ? html`<span class="error" id="${id}">${list.join(' ')}</span>` : '',
  };
}

export const option = (value: string, label: string, selected: boolean) =>
  html`<option value="${value}"${selected ? raw(' selected') : ''}>${label}</option>`;

function fieldRow(p: Page, f: FieldDraft, i: number, errors: Map<string, string[]>) {
  const n = (c: string) => `fields.${i}.${c}`;
  const e = (c: string) => problems(errors, n(c));
  return html`<tr>
<td><input name="${n('key')}" value="${f.key}" aria-label="${p.t.key} ${i + 1}"${e('key').attrs}>${e('key').note}</td>
<td><select name="${n('type')}" aria-label="${p.t.type} ${i + 1}"${e('type').attrs}>${fieldTypes.map((t) => option(t, t, f.type === t))}</select>${e('type').note}</td>
<td><input type="checkbox" name="${n('required')}" value="on" aria-label="${p.t.required} ${i + 1}"${f.required ? raw(' checked') : ''}></td>
<td><input name="${n('target')}" value="${f.target}" list="targets" aria-label="${p.t.target} ${i + 1}" placeholder="${p.t.noTarget}"${e('target').attrs}>${e('target').note}</td>
<td><textarea name="${n('formats')}" rows="1" aria-label="${p.t.formats} ${i + 1}" placeholder="DD/MM/YYYY"${e('formats').attrs}>
${f.formats}</textarea>${e('formats').note}</td>
</tr>`;
}

/** A user of the account: live, or (`trashed`) in the trash, which a stored flow may still name. */
export type UserOption = { id: number; name: string; trashed?: boolean };

/** The users a flow block offers, by id: the live ones, then those only its own values name. */
type Owners = { live: UserOption[]; named: Map<string, UserOption> };

/** How an owner is shown: a user in the trash says so; an id that is no user any more, too. */
const ownerLabel = (p: Page, owners: Owners, id: string) => {
  const user = owners.named.get(id);
  if (!user) return `${p.t.unknownUser} ${id}`;
  return user.trashed ? `${user.name} (${p.t.inTrash})` : user.name;
};

/**
 * The options of an owner select: the chosen ids first, in their order and as often as chosen
 * (a round robin's rotation), then the other live users. A chosen user who is not live (in the
 * trash, or gone) stays chosen, so a save keeps them.
 */
function ownerOptions(p: Page, owners: Owners, chosen: string[]) {
  const rest = owners.live.filter((u) => !chosen.includes(String(u.id)));
  return html`${chosen.map((id) => option(id, ownerLabel(p, owners, id), true))}${rest.map((u) => option(String(u.id), u.name, false))}`;
}

// A textarea's first line break is eaten by the HTML parser: each one starts with one to spare.

/** A text box, or a text area once its value holds a line break (an input would drop it). */
const textBox = (name: string, value: string, attrs: unknown) =>
  value.includes('\n')
    ? html`<textarea name="${name}" rows="2"${attrs}>
${value}</textarea>`
    : html`<input type="text" name="${name}" value="${value}"${attrs}>`;

/** The actions that take an option, as a control's label names them. */
const usedBy = (option: (typeof panelOptions)[number]) =>
  actions
    .filter((m) => m.panel[option] !== undefined)
    .map((m) => m.name)
    .join(', ');

function flowRow(p: Page, a: FlowDraft, i: number, owners: Owners, errors: Map<string, string[]>) {
  const n = (c: string) => `flows.${i}.${c}`;
  const e = (c: string) => problems(errors, n(c));
  const input = (c: string, label: string, value: string) =>
    html`<label>${label} ${textBox(n(c), value, e(c).attrs)}</label>${e(c).note}`;
  // Ticked ones first, in their order (and as often) as stored: the order is kept on save.
  const matchOn = [...a.matchOn, ...MATCH_KEYS.filter((m) => !a.matchOn.includes(m))];
  const kinds: [string, string][] = [
    ['', p.t.kindAuto],
    ['string', p.t.kindText],
    ['number', p.t.kindNumber],
    ['boolean', p.t.kindBoolean],
  ];
  return html`<fieldset class="flow">
<legend>${p.t.action} ${i + 1}</legend>
<label>${p.t.position} <input type="number" name="${n('position')}" value="${i + 1}" min="1" class="position"></label>
<label>${p.t.action} <select name="${n('action')}"${e('action').attrs}>${option('', p.t.noAction, a.action === '')}${actions.map((m) => option(m.name, `${m.labels[p.lang]} (${m.name})`, a.action === m.name))}</select></label>${e('action').note}
<fieldset class="inline-group"><legend>${p.t.matchOn} (${usedBy('match_on')})</legend>
${matchOn.map((m, j) => html`<label><input type="checkbox" name="${n('match_on')}" value="${m}"${j < a.matchOn.length ? raw(' checked') : ''}> ${m}</label>`)}
${e('match_on').note}</fieldset>
${input('name', `${p.t.taskName} (${usedBy('name')})`, a.name)}
${input('category', `${p.t.category} (${usedBy('category')})`, a.category)}
<label>${p.t.description} (${usedBy('description')}) <textarea name="${n('description')}" rows="2"${e('description').attrs}>
${a.description}</textarea></label>${e('description').note}
<label>${p.t.owner} <select name="${n('owner')}"${e('owner').attrs}>${option('', p.t.noOwner, a.owner === '')}${ownerOptions(p, owners, a.owner ? [a.owner] : [])}</select></label>${e('owner').note}
<label>${p.t.roundRobin} <select multiple name="${n('round_robin')}"${e('round_robin').attrs}>${ownerOptions(p, owners, a.roundRobin)}</select></label>${e('round_robin').note}
<fieldset class="inline-group"><legend>${p.t.when}</legend>
${input('when.field', p.t.whenField, a.whenField)}
<label>${p.t.whenOp} <select name="${n('when.op')}"${e('when.op').attrs}>${whenOps.map((o) => option(o, o, a.whenOp === o))}</select></label>
${input('when.value', p.t.whenValue, a.whenValue)}
<label>${p.t.whenKind} <select name="${n('when.kind')}"${e('when.kind').attrs}>${kinds.map(([k, label]) => option(k, label, a.whenKind === k))}</select></label>
</fieldset>
<fieldset class="inline-group"><legend>${p.t.due} (${usedBy('due')})</legend>
${input('due.from', p.t.due, a.dueFrom)}
${input('due.days', p.t.days, a.dueDays)}
${input('due.hours', p.t.hours, a.dueHours)}
</fieldset>
</fieldset>`;
}

/** Blank rows after the last filled one, up to `wanted`: a form shown again does not grow. */
const topUp = <T>(rows: T[], blank: (row: T) => boolean, wanted: number, make: () => T): T[] => {
  let trailing = 0;
  while (trailing < rows.length && blank(rows[rows.length - 1 - trailing] as T)) trailing++;
  return [...rows, ...Array.from({ length: Math.max(0, wanted - trailing) }, make)];
};

/**
 * The configuration form: name, fields table and flows, each error next to its control. `users`
 * are the live users to offer as owners (the first 500 by name); `named`, the users the stored flows
 * name, live or in the trash.
 * `was` (the edit page) holds the digests of the stored halves, for a save to leave them alone.
 */
export function configForm(
  p: Page,
  action: string,
  draft: Draft,
  users: { live: UserOption[]; named: UserOption[] },
  errors: Map<string, string[]>,
  submit: string,
  was?: { fields: string; flows: string },
) {
  const fields = topUp(draft.fields, (f) => f.key === '', BLANK_FIELDS, blankField);
  const flows = topUp(draft.flows, (a) => a.action === '', BLANK_FLOWS, blankFlow);
  const owners: Owners = {
    live: users.live,
    named: new Map([...users.named, ...users.live].map((u) => [String(u.id), u])),
  };
  const general = errors.get('');
  const name = problems(errors, 'name');
  const canSubmit = p.can(action === '/panel/webhooks' ? 'webhooks:insert' : 'webhooks:update');
  // A key that may not save sees the configuration with every control disabled, and no save button.
  return html`<form method="post" action="${action}" class="card" novalidate>${canSubmit ? '' : raw('<fieldset class="readonly" disabled>')}
${general ? html`<ul class="error" role="alert">${general.map((m) => html`<li>${m}</li>`)}</ul>` : ''}
<label for="name">${p.t.name}</label>
${
  draft.name.includes('\n')
    ? html`<textarea id="name" name="name" rows="2" required${name.attrs}>
${draft.name}</textarea>`
    : html`<input id="name" name="name" value="${draft.name}" required${name.attrs}>`
}${name.note}
${was ? html`<input type="hidden" name="was.fields" value="${was.fields}"><input type="hidden" name="was.flows" value="${was.flows}">` : ''}
<h2>${p.t.fields}</h2>
<p class="hint">${p.t.fieldsHint}</p>
<datalist id="targets">${Object.keys(fixedTargets).map((t) => html`<option value="${t}"></option>`)}${customFieldRecords.map((r) => html`<option value="${r}.custom_fields."></option>`)}</datalist>
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.fields}"><table>
<thead><tr><th scope="col">${p.t.key}</th><th scope="col">${p.t.type}</th><th scope="col">${p.t.required}</th><th scope="col">${p.t.target}</th><th scope="col">${p.t.formats}</th></tr></thead>
<tbody>${fields.map((f, i) => fieldRow(p, f, i, errors))}</tbody></table></div>
<h2>${p.t.flows}</h2>
<p class="hint">${p.t.flowsHint}</p>
${flows.map((a, i) => flowRow(p, a, i, owners, errors))}
${canSubmit ? html`<p><button type="submit">${submit}</button></p>` : raw('</fieldset>')}
</form>`;
}

export type WebhookView = {
  id: number;
  name: string;
  url: string | null;
  mode: (typeof webhookModes)[number];
  enabled: boolean;
  hasSecret: boolean;
};

export const post = (action: string, label: string, extra: Html | string = '') =>
  html`<form method="post" action="${action}" class="inline">${extra}<button type="submit">${label}</button></form>`;

/** The banner that says what an event sent now will do. */
export const modeBanner = (p: Page, h: Pick<WebhookView, 'mode' | 'enabled'>) =>
  html`<p class="banner ${h.enabled ? h.mode : 'disabled'}" role="note">${
    h.enabled ? (h.mode === 'test' ? p.t.testBanner : p.t.prodBanner) : p.t.disabledBanner
  }</p>`;

export function editPage(
  p: Page,
  h: WebhookView,
  form: Html,
  secretError: string | undefined,
  flash?: { kind: 'ok' | 'error'; text: string },
) {
  const base = `/panel/webhooks/${h.id}`;
  // A key that may not change the webhook sees its settings, with a note instead of the controls.
  const controls = p.can('webhooks:update')
    ? html`<div class="actions">
${post(`${base}/mode`, h.mode === 'test' ? p.t.toProduction : p.t.toTest, html`<input type="hidden" name="mode" value="${h.mode === 'test' ? 'production' : 'test'}">`)}
${post(`${base}/enabled`, h.enabled ? p.t.disable : p.t.enable, html`<input type="hidden" name="enabled" value="${h.enabled ? 'false' : 'true'}">`)}
${post(`${base}/rotate`, p.t.rotate)}
${post(`${base}/sample`, p.t.sendSample)}
<a class="button" href="${base}/events">${p.t.events}</a>
<a class="button" href="${base}?sample=1">${p.t.fillFromSamples}</a>
</div>
<p class="hint">${p.t.rotateHint}</p>
<form method="post" action="${base}/secret" class="secret">
<label for="secret">${p.t.secret}</label>
<input id="secret" name="secret" type="password" autocomplete="new-password" aria-describedby="secret-hint${secretError ? ' secret-error' : ''}"${secretError ? raw(' aria-invalid="true"') : ''}>
<p id="secret-hint" class="hint">${h.hasSecret ? p.t.secretSet : p.t.secretUnset} ${p.t.secretHint}</p>
${secretError ? html`<p id="secret-error" class="error">${secretError}</p>` : ''}
<button type="submit">${p.t.setSecret}</button>
</form>
`
    : html`<p class="hint" role="note">${p.t.readOnlyKey}</p>
<div class="actions"><a class="button" href="${base}/events">${p.t.events}</a></div>
`;
  return layout(
    p,
    h.name,
    html`${modeBanner(p, h)}
<section class="card" aria-labelledby="settings">
<h2 id="settings">${p.t.settings}</h2>
<p>${p.t.url}: ${copyable(p, 'url', h.url)}</p>
${controls}</section>
${form}`,
    flash,
  );
}

export type EventSummary = {
  id: number;
  status: string;
  attempts: number;
  error: string | null;
  receivedAt: string;
};

export type EventDetail = EventSummary & {
  payload: unknown;
  preview: unknown;
  processedAt: string | null;
  result: {
    contact_id: number | null;
    company_id: number | null;
    deal_id: number | null;
    task_ids: number[];
  } | null;
};

export function eventPage(
  p: Page,
  h: WebhookView,
  e: EventDetail,
  flash?: { kind: 'ok' | 'error'; text: string },
) {
  const json = (value: unknown) => html`<pre tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;
  const link = (path: string, id: number | null) =>
    id === null ? '' : html`<li><a href="/v1/${path}/${id}">/v1/${path}/${id}</a></li>`;
  const r = e.result;
  return layout(
    p,
    `${p.t.event} #${e.id}`,
    html`<p><a href="/panel/webhooks/${h.id}/events">${p.t.back}</a></p>
<dl class="facts">
<dt>${p.t.status}</dt><dd><span class="badge ${e.status}">${e.status}</span></dd>
<dt>${p.t.received}</dt><dd>${when(e.receivedAt, p)}</dd>
<dt>${p.t.attempts}</dt><dd>${e.attempts}</dd>
${e.error ? html`<dt>${p.t.error}</dt><dd class="error">${e.error}</dd>` : ''}
</dl>
${e.status === 'failed' && p.can('webhooks:update') ? post(`/panel/webhooks/${h.id}/events/${e.id}/replay`, p.t.replay) : ''}
<h2>${p.t.payload}</h2>
${json(e.payload)}
${e.preview ? html`<h2>${p.t.preview}</h2>${json(e.preview)}` : ''}
${
  r
    ? html`<h2>${p.t.result}</h2><ul>${link('contacts', r.contact_id)}${link('companies', r.company_id)}${link('deals', r.deal_id)}${r.task_ids.map((id) => link('tasks', id))}</ul>`
    : ''
}`,
    flash,
  );
}

export const messagePage = (p: Page, title: string, text: string) =>
  layout(p, title, html`<p>${text}</p><p><a href="/panel/webhooks">${p.t.webhooks}</a></p>`);

/**
 * Asked before a sample event is sent to a webhook in production, where it writes real records:
 * the body (with values like the ones that will be drawn) and a second POST that confirms.
 */
export function sampleConfirmPage(p: Page, h: WebhookView, body: string) {
  const base = `/panel/webhooks/${h.id}`;
  return layout(
    p,
    p.t.sampleConfirmTitle,
    html`${modeBanner(p, h)}
<p>${p.t.sampleConfirm}</p>
<h2>${p.t.sampleBody}</h2>
<pre tabindex="0">${body}</pre>
<div class="actions">
${post(`${base}/sample`, p.t.sendForReal, html`<input type="hidden" name="confirm" value="yes">`)}
<a class="button" href="${base}">${p.t.cancel}</a>
</div>`,
  );
}
