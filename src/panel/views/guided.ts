import type { z } from '@hono/zod-openapi';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { WebhookEvent } from '../../webhooks/contract/schemas';
import type { Action } from '../../webhooks/rules/config';
import { shownFormat } from '../format-words';
import { actionLabel, pickedTargetLabel } from '../labels';
import { outcome, warnings } from './event';
import { copyable, type FlashView, layout, modeBanner, option, type Page, type WebhookView } from './layout';

// The guided start of a webhook: six short steps, each its own page with a progress indicator.
// Every page works without JS; panel.js only refreshes the two that wait for an event.

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type Event = z.infer<typeof WebhookEvent>;

export const STEPS = [1, 2, 3, 4, 5, 6] as const;
export type Step = (typeof STEPS)[number];

const stepWord = (p: Page, n: Step) => p.t[`gStep${n}`];

/** The progress indicator: every step by name, the current one marked, the others linked once made. */
function progress(p: Page, step: Step, id?: number) {
  return html`<nav aria-label="${p.t.gProgress}" class="steps-nav"><p class="hint">${p.t.gStepOf.replace('{n}', String(step))}</p><ol class="steps">${STEPS.map(
    (n) => {
      const word = html`<span class="step-n">${n}</span> ${stepWord(p, n)}`;
      if (n === step) return html`<li class="current" aria-current="step">${word}</li>`;
      const href = id && n > 1 ? `/panel/webhooks/${id}/start/${n}` : undefined;
      return html`<li class="${n < step ? 'done' : ''}">${href ? html`<a href="${href}">${word}</a>` : word}</li>`;
    },
  )}</ol></nav>`;
}

/** A step's page: the progress, the step's own content and the way to the full form. */
export function guidedPage(p: Page, step: Step, h: WebhookView | undefined, body: Html, flash?: FlashView) {
  const expert = h ? `/panel/webhooks/${h.id}` : '/panel/webhooks/new';
  return layout(
    p,
    h ? h.name : p.t.gTitle,
    html`${progress(p, step, h?.id)}${h ? modeBanner(p, h) : ''}
<section class="card guided"><h2>${stepWord(p, step)}</h2>
${body}</section>
<p class="hint"><a href="${expert}">${p.t.gExpert}</a></p>`,
    flash,
  );
}

/** Step 1: the name. */
export const nameStep = (p: Page, name: string, error?: string) =>
  guidedPage(
    p,
    1,
    undefined,
    html`<form method="post" action="/panel/webhooks/start" novalidate>
<label for="name">${p.t.name}</label>
<input id="name" name="name" value="${name}" required aria-describedby="name-hint${error ? ' name-error' : ''}"${error ? raw(' aria-invalid="true"') : ''}>
<p id="name-hint" class="hint">${p.t.gNameHint}</p>
${error ? html`<p id="name-error" class="error">${error}</p>` : ''}
<p><button type="submit">${p.t.gCreate}</button></p>
</form>`,
  );

/** An example value as one line of text, cut to 60 characters. */
export const exampleText = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

// One field a line: at phone width only the URL's line is wider than the box, which scrolls.
const CURL_BODY = `{
    "nome": "Ana Souza",
    "telefone": "(11) 91234-5678",
    "email": "ana@example.com",
    "veiculo": "Onix LT",
    "data_compra": "15/03/2025"
  }`;

/** Step 2: the URL to give the sender, then the first test event's fields (or a wait for it). */
export function eventStep(p: Page, h: WebhookView, fields: [string, unknown][] | undefined) {
  const base = `/panel/webhooks/${h.id}/start`;
  const waiting = html`<div data-refresh="pending" data-refresh-stopped="${p.t.gWaitStopped}"><p class="hint" role="status" data-status="pending">${p.t.gWaiting}</p>
<p><a class="button" href="${base}/2">${p.t.gReload}</a></p></div>`;
  const arrived = fields
    ? html`<div data-status="arrived" data-status-label="${p.t.gArrivedLabel}"><p>${p.t.gArrived}</p>
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.gArrived}"><table class="mapping">
<thead><tr><th scope="col">${p.t.gField}</th><th scope="col">${p.t.gExample}</th></tr></thead>
<tbody>${fields.map(([key, value]) => html`<tr><td data-label="${p.t.gField}"><code>${key}</code></td><td data-label="${p.t.gExample}"><code>${exampleText(value)}</code></td></tr>`)}</tbody>
</table></div>
<p><a class="button primary" href="${base}/3">${p.t.gNext}</a></p></div>`
    : waiting;
  return guidedPage(
    p,
    2,
    h,
    html`<p>${p.t.gUrlIntro}</p>
<p class="url-line">${p.t.url}: ${copyable(p, 'url', h.url)}</p>
<p class="hint">${p.t.gTestNote}</p>
<details open><summary>${p.t.gCurl}</summary><pre class="curl" id="curl" tabindex="0" role="region" aria-label="${p.t.gCurl}">curl -X POST \\
  '${h.url ?? ''}' \\
  -H 'Content-Type: application/json' \\
  -d '${CURL_BODY}'</pre><button type="button" class="js-copy secondary" data-copy="curl" data-done="${p.t.copied}" hidden>${p.t.copy}</button></details>
${arrived}`,
  );
}

/** One field of the example event in the mapping step. */
export type MapRow = {
  key: string;
  example: unknown;
  /** The target picked: a target, `-` (declared, no target) or '' (not used). */
  choice: string;
  /** How the value is read when the target does not fix it: type, date format, locale. */
  type: string;
  formats: string;
  locale: string;
  /** Whether the key can be declared (a dot path of at most 200 characters): else only "not used". */
  usable: boolean;
  /** The custom field name the key becomes, if any. */
  custom: string | undefined;
};

const FIXED: Record<'contact' | 'company' | 'deal', string[]> = {
  contact: ['contact.name', 'contact.phone', 'contact.email'],
  company: ['company.name', 'company.cnpj'],
  deal: ['deal.name', 'deal.value'],
};

/** How a target reads in the list, record first; a custom field's name is said below the list. */
function choiceLabel(p: Page, target: string): string {
  const custom = /^(contact|deal)\.custom_fields\./.exec(target);
  if (!custom) return pickedTargetLabel(p, target);
  return `${custom[1] === 'contact' ? p.t.gContact : p.t.gDeal} › ${p.t.gCustom}`;
}

/** The custom field name a row's custom options fill: a stored target's own, else the key's. */
const customOf = (row: MapRow) =>
  /^(?:contact|deal)\.custom_fields\.(.+)$/s.exec(row.choice)?.[1] ?? row.custom;

/** The targets a field may go to, grouped by record, in words. */
function targetSelect(p: Page, row: MapRow, i: number) {
  const aria = `${p.t.gGoesTo}: ${row.key}`;
  if (!row.usable)
    return html`<select name="to.${i}" id="to-${i}" aria-label="${aria}" aria-describedby="to-${i}-hint">${option('', p.t.gIgnore, true)}</select><p class="hint" id="to-${i}-hint">${p.t.gUnusable}</p>`;
  const name = customOf(row);
  // The name is said below the list when a custom field is the one picked.
  const chosenCustom = name !== undefined && /\.custom_fields\./.test(row.choice);
  const group = (label: string, targets: string[]) =>
    html`<optgroup label="${label}">${targets.map((t) => option(t, choiceLabel(p, t), row.choice === t))}</optgroup>`;
  const customs = (record: string) => (name ? [`${record}.custom_fields.${name}`] : []);
  return html`<select name="to.${i}" id="to-${i}" aria-label="${aria}"${chosenCustom ? raw(` aria-describedby="to-${i}-hint"`) : ''}>
${group(p.t.gContact, [...FIXED.contact, ...customs('contact')])}
${group(p.t.gCompany, FIXED.company)}
${group(p.t.gDeal, [...FIXED.deal, ...customs('deal')])}
<optgroup label="${p.t.gOther}">${option('-', p.t.gOnlyNames, row.choice === '-')}${option('', p.t.gIgnore, row.choice === '')}</optgroup>
</select>${chosenCustom ? html`<p class="hint" id="to-${i}-hint">${p.t.gCustomName} <code>${name}</code></p>` : ''}`;
}

function mapRow(p: Page, row: MapRow, i: number) {
  return html`<tr>
<td data-label="${p.t.gField}"><code class="key">${row.key}</code><input type="hidden" name="key.${i}" value="${row.key}"><input type="hidden" name="type.${i}" value="${row.type}"><input type="hidden" name="formats.${i}" value="${row.formats}"><input type="hidden" name="locale.${i}" value="${row.locale}"></td>
<td data-label="${p.t.gExample}"><code>${exampleText(row.example)}</code>${row.type === 'date' && row.formats ? html`<p class="hint">${p.t.gReadAsDate} ${shownFormat(p.lang, row.formats)}</p>` : ''}</td>
<td data-label="${p.t.gGoesTo}">${targetSelect(p, row, i)}</td>
</tr>`;
}

/** Step 3: each field of the example event, its example and where it goes, picked from a list. */
export function mappingStep(p: Page, h: WebhookView, rows: MapRow[], errors: string[] = []) {
  if (!rows.length)
    return guidedPage(
      p,
      3,
      h,
      html`<p>${p.t.gNoEvent}</p><p><a class="button" href="/panel/webhooks/${h.id}/start/2">${p.t.gBack}</a></p>`,
    );
  return guidedPage(
    p,
    3,
    h,
    html`<form method="post" action="/panel/webhooks/${h.id}/start/3" novalidate>
<p>${p.t.gMapIntro}</p>
${errors.length ? html`<ul class="error" role="alert">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.gStep3}"><table class="mapping">
<thead><tr><th scope="col">${p.t.gField}</th><th scope="col">${p.t.gExample}</th><th scope="col">${p.t.gGoesTo}</th></tr></thead>
<tbody>${rows.map((row, i) => mapRow(p, row, i))}</tbody></table></div>
<p class="step-buttons"><a class="button secondary" href="/panel/webhooks/${h.id}/start/2">${p.t.gBack}</a> <button type="submit">${p.t.gSaveNext}</button></p>
</form>`,
  );
}

/** What the flows step can offer: the keys the mapping filled, and the users to pick. */
export type FlowChoices = {
  matchOn: ('phone' | 'email')[];
  cnpj: boolean;
  /** Whether a company name is mapped too: without one a new CNPJ makes no company. */
  companyName: boolean;
  users: { id: number; name: string }[];
  /** The deal's name template shown (a suggestion, or what the person typed) and the keys it may use. */
  dealName: string;
  keys: string[];
  /** The deal's name the example event gives with `dealName`, when an example arrived. */
  example: string | undefined;
  /** The example event's values by key: panel.js renders the name again as it is typed. */
  values: Record<string, string | number | boolean>;
  /** The flows stored already: shown, and changed only in the full form. */
  existing: readonly Action[];
};

// Who owns the record, said as such: "nobody in particular" alone read as the customer.
const ownerSelect = (p: Page, name: string, users: FlowChoices['users']) =>
  html`<label class="owner">${p.t.gOwner} <select name="${name}">${option('', p.t.gNobody, true)}${users.map((u) => option(String(u.id), u.name, false))}</select></label>`;

/**
 * How the contact is found: each key the mapping filled, and either when both are. Radios, not a
 * select: the longest choice is a sentence, which a select cuts at 375 px and radios wrap.
 */
function matchChoice(p: Page, on: FlowChoices['matchOn']) {
  const choices: [string, string][] = on.map((k) => [k, k === 'phone' ? p.t.gMatchPhone : p.t.gMatchEmail]);
  if (on.length === 2) choices.unshift(['phone,email', p.t.gMatchEither]);
  return html`<span class="choices" role="radiogroup" aria-label="${p.t.gContactBy}">${choices.map(([v, l], i) => html`<label><input type="radio" name="match" value="${v}"${i === 0 ? raw(' checked') : ''}> ${l}</label>`)}</span>`;
}

/** The deal's sentence: its name as a template of the event's fields, an example, and its owner. */
function dealSentence(p: Page, c: FlowChoices) {
  const example = c.example ? p.t.gDealExample.replace('{name}', c.example) : '';
  // Without JS the fields are listed to type; panel.js turns them into buttons that insert one.
  const chips = c.keys.map((k) => html`<code class="chip">{{${k}}}</code> `);
  const buttons = c.keys.map(
    (k) => html`<button type="button" class="secondary chip" data-insert="{{${k}}}">{{${k}}}</button> `,
  );
  return html`<label><input type="checkbox" name="deal" value="on" checked> ${p.t.gDealFor}</label>
<input name="deal_name" value="${c.dealName}" aria-label="${p.t.gDealNameLabel}" aria-describedby="deal-name-hint" class="template">
${ownerSelect(p, 'deal_owner', c.users)}
<p class="hint" id="deal-name-hint">${p.t.gDealNameHint} <span class="js-chips-text">${chips}</span><span class="js-chips" hidden>${buttons}</span>${example ? html`<br><span data-deal-example data-template="${p.t.gDealExample}" data-values="${JSON.stringify(c.values)}" aria-live="polite">${example}</span>` : ''}</p>`;
}

/** Step 4: what to do with each lead, in sentences to tick. */
export function flowsStep(p: Page, h: WebhookView, c: FlowChoices, errors: string[] = []) {
  const base = `/panel/webhooks/${h.id}/start`;
  const buttons = (submit: boolean) =>
    html`<p class="step-buttons"><a class="button secondary" href="${base}/3">${p.t.gBack}</a> ${submit ? html`<button type="submit">${p.t.gSaveNext}</button>` : html`<a class="button primary" href="${base}/5">${p.t.gNext}</a>`}</p>`;
  if (c.existing.length)
    return guidedPage(
      p,
      4,
      h,
      html`<p>${p.t.gFlowsKept}</p><ol>${c.existing.map((a) => html`<li>${actionLabel(p, a.action)}</li>`)}</ol>
<p><a href="/panel/webhooks/${h.id}">${p.t.gExpert}</a></p>${buttons(false)}`,
    );
  const box = (name: string, text: Html | string, on: boolean) =>
    html`<li><label><input type="checkbox" name="${name}" value="on"${on ? raw(' checked') : ''}> ${text}</label></li>`;
  return guidedPage(
    p,
    4,
    h,
    html`<form method="post" action="${base}/4" novalidate>
<p>${p.t.gFlowsIntro}</p>
${errors.length ? html`<ul class="error" role="alert">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}
<ul class="sentences">
${c.matchOn.length ? html`<li><label><input type="checkbox" name="contact" value="on" checked> ${p.t.gContactBy}</label> ${matchChoice(p, c.matchOn)}</li>` : html`<li class="hint">${p.t.gContactNone}</li>`}
${c.cnpj ? box('company', c.companyName ? p.t.gCompanyBy : p.t.gCompanyNoName, c.companyName) : ''}
<li>${dealSentence(p, c)}</li>
<li><label><input type="checkbox" name="task" value="on"> ${p.t.gTaskFor}</label> ${ownerSelect(p, 'task_owner', c.users)}</li>
</ul>
${buttons(true)}
</form>`,
  );
}

/** Step 5: the example event sent again in test mode, and what it would do, in sentences. */
export function previewStep(
  p: Page,
  h: WebhookView,
  e: Event | undefined,
  owners: ReadonlyMap<number, string>,
) {
  const base = `/panel/webhooks/${h.id}/start`;
  const resend = html`<form method="post" action="${base}/5" class="inline"><button type="submit">${p.t.gResend}</button></form>`;
  const shown =
    e === undefined
      ? html`<p>${p.t.gPreviewNone}</p>`
      : e.status === 'pending'
        ? html`<div data-refresh="pending" data-refresh-stopped="${p.t.gWaitStopped}"><p class="hint" role="status" data-status="pending">${p.t.gPreviewWaiting}</p>
<p><a class="button" href="${base}/5">${p.t.gReload}</a></p></div>`
        : html`<div data-status="${e.status}" data-status-label="${p.t.gPreviewDone}"><p>${p.t.gPreviewIntro}</p>${outcome(p, e, owners)}${warnings(p, e, owners)}
<p><a href="/panel/webhooks/${h.id}/events/${e.id}">${p.t.gSeeEvent} #${e.id}</a></p></div>`;
  return guidedPage(
    p,
    5,
    h,
    html`${shown}
<div class="step-buttons"><a class="button secondary" href="${base}/4">${p.t.gBack}</a> ${h.mode === 'test' ? resend : ''} <a class="button primary" href="${base}/6">${p.t.gNext}</a></div>`,
  );
}

/**
 * Step 6: go live; once live, what the person needs next: what became of the test leads, the URL
 * for the sender and where to watch and change it. The go-live form comes back here (`next`),
 * not to the expert form.
 */
export function liveStep(p: Page, h: WebhookView) {
  const base = `/panel/webhooks/${h.id}`;
  const body =
    h.mode === 'production'
      ? // The mode banner above says it is live: no flash saying it again, one green box, not two.
        html`<p>${p.t.gLiveAfter}</p>
<p>${p.t.gLiveUrl}</p>
<p class="url-line">${copyable(p, 'url', h.url)}</p>
<p>${p.t.gLiveNext}</p>
<ul><li><a href="${base}/events">${p.t.gLiveEvents}</a></li>
<li><a href="${base}">${p.t.gLiveSettings}</a></li></ul>`
      : html`<p>${p.t.gLiveIntro}</p>
<div class="step-buttons"><a class="button secondary" href="${base}/start/5">${p.t.gBack}</a> <form method="post" action="${base}/mode" class="inline"><input type="hidden" name="mode" value="production"><input type="hidden" name="next" value="${base}/start/6"><button type="submit">${p.t.gGoLive}</button></form></div>`;
  return guidedPage(p, 6, h, body);
}
