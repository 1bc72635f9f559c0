import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { FieldError } from '../../core/errors';
import type { Scope } from '../../core/scopes';
import { eventStatuses, type webhookModes } from '../../core/statuses';
import type { Lang, Messages } from '../i18n';
import { importWords } from '../import-words';
import { modeLabel, statusLabel } from '../labels';
import { outboundText } from '../outbound-text';
import { type Said, saidText } from '../said-words';
import { localTime } from '../zone';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * What every page knows: its language, whether someone is signed in, what the signed-in key may
 * do, and a banner about the whole account to show above the page's own content
 * (src/panel/storage-notice.ts).
 */
export type Page = {
  lang: Lang;
  t: Messages;
  /** The IANA zone its times are shown in (src/panel/zone.ts chooses it). */
  zone: string;
  path: string;
  signedIn: boolean;
  /** Whether the signed-in key holds `scope`: the page offers only the actions it allows. */
  can: (scope: Scope) => boolean;
  notice?: Html;
  /** A flash any page shows (a preferences save goes back to the page it was asked from). */
  flash?: FlashView;
};

export const ASSET_VERSION = '7';

/** A flash message, and a link to where the write it reports can be seen. */
export type FlashView = { kind: 'ok' | 'error'; text: string; link?: { href: string; text: string } };

export function layout(p: Page, title: string, body: Html, flash?: FlashView) {
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
${p.signedIn ? html`<a href="/panel/webhooks">${p.t.webhooks}</a> <a href="/panel/endpoints">${outboundText[p.lang].title}</a> <a href="/panel/search">${p.t.searchTop}</a>` : ''}
${p.signedIn ? html`<a href="/panel/imports">${importWords[p.lang].nav}</a>` : ''}
<a href="/panel/lang/${other}?next=${encodeURIComponent(p.path)}" hreflang="${other}" lang="${other}">${other === 'en' ? 'English' : 'Português'}</a>
${p.signedIn ? html`<a href="/panel/settings?next=${encodeURIComponent(p.path)}">${p.t.settingsLink}</a>` : ''}
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
${[p.flash, flash].map((f) =>
  f
    ? html`<p class="flash ${f.kind}" role="${f.kind === 'error' ? 'alert' : 'status'}">${f.text}${f.link ? html` <a href="${f.link.href}">${f.link.text}</a>` : ''}</p>`
    : '',
)}
${body}
</main>
</body>
</html>`;
}

export function signInPage(p: Page, error?: string, next?: string) {
  return layout(
    p,
    p.t.signIn,
    html`<form method="post" action="/panel/sign-in" class="card narrow">
${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
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

/** An instant in the person's language and zone, with the zone's name; its ISO text stays in `datetime`. */
/** `{name}` placeholders filled. */
export const fill = (text: string, values: Record<string, number | string>) =>
  text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));

/** `one|other` (or `zero|one|other`) by the page language's plural rules, `{n}` filled. */
export function counted(p: Page, text: string, n: number): string {
  const forms = text.split('|');
  const [zero, one, other] = forms.length === 3 ? forms : [undefined, ...forms];
  if (n === 0 && zero !== undefined) return fill(zero, { n });
  const form = new Intl.PluralRules(p.lang).select(n) === 'one' ? one : (other ?? one);
  return fill(form ?? text, { n });
}

export const when = (iso: string | null, p: Page) =>
  iso ? html`<time datetime="${iso}">${localTime(iso, p.lang, p.zone)}</time>` : p.t.none;

/** The ingest URL with a copy button; a session that may not see it is told which scope would. */
export const copyable = (p: Page, id: string, url: string | null) =>
  url === null
    ? html`<span class="hint">${p.t.urlHidden}</span>`
    : html`<span class="copy"><code id="${id}">${url}</code> <button type="button" class="js-copy" data-copy="${id}" data-done="${p.t.copied}" hidden>${p.t.copy}</button></span>`;

export function listPage(p: Page, hooks: WebhookSummary[], next: string | null) {
  const rows = hooks.map(
    (h) => html`<tr>
<td data-label="${p.t.name}"><a href="/panel/webhooks/${h.id}">${h.name}</a></td>
<td data-label="${p.t.mode}"><span class="badge ${h.mode}">${modeLabel(p, h.mode)}</span></td>
<td data-label="${p.t.enabled}">${h.enabled ? p.t.yes : p.t.no}</td>
<td data-label="${p.t.url}">${copyable(p, `url-${h.id}`, h.url)}</td>
<td data-label="${p.t.lastEvent}">${when(h.lastEvent, p)}</td>
<td data-label="${p.t.counts}"><a href="/panel/webhooks/${h.id}/events">${
      eventStatuses
        .filter((s) => h.counts[s])
        .map((s) => `${statusLabel(p, s)}: ${h.counts[s]}`)
        .join(', ') || p.t.none
    }</a></td>
</tr>`,
  );
  return layout(
    p,
    p.t.webhooks,
    html`${p.can('webhooks:insert') ? html`<p><a class="button" href="/panel/webhooks/start">${p.t.newWebhook}</a></p>` : ''}
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

/**
 * Error messages for a control, with the attributes that tie them to it; the users a page knows
 * (`users`, `trashed`) name a refused owner.
 */
export function problems(p: Page & Omit<Said, 'lang'>, errors: Map<string, FieldError[]>, name: string) {
  // Once each: a rotation naming a refused user twice says so once.
  const words = errors.get(name)?.map((e) => saidText(p, e));
  const list = words && [...new Set(words)];
  const id = `err-${name.replaceAll('.', '-')}`;
  return {
    attrs: list ? raw(` aria-invalid="true" aria-describedby="${id}"`) : '',
    note: list ? html`<span class="error" id="${id}">${list.join(' ')}</span>` : '',
  };
}

export const option = (value: string, label: string, selected: boolean) =>
  html`<option value="${value}"${selected ? raw(' selected') : ''}>${label}</option>`;

export type WebhookView = {
  id: number;
  name: string;
  url: string | null;
  mode: (typeof webhookModes)[number];
  enabled: boolean;
  hasSecret: boolean;
  /** Until when the URL a rotation replaced still works (src/webhooks/resource/store.ts graceEnd). */
  graceEnd?: string | null;
};

export const post = (action: string, label: string, extra: Html | string = '') =>
  html`<form method="post" action="${action}" class="inline">${extra}<button type="submit">${label}</button></form>`;

/** A destructive action: a link to the page that says what it does and asks to confirm. */
const danger = (href: string, label: string) => html`<a class="button danger" href="${href}">${label}</a>`;

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
  flash?: FlashView,
  overview: Html | string = '',
) {
  const base = `/panel/webhooks/${h.id}`;
  // A key that may not change the webhook sees its settings, with a note instead of the controls.
  const controls = p.can('webhooks:update')
    ? html`<div class="actions">
${post(`${base}/mode`, h.mode === 'test' ? p.t.toProduction : p.t.toTest, html`<input type="hidden" name="mode" value="${h.mode === 'test' ? 'production' : 'test'}">`)}
${h.enabled ? danger(`${base}/disable`, p.t.disable) : post(`${base}/enabled`, p.t.enable, html`<input type="hidden" name="enabled" value="true">`)}
${danger(`${base}/rotate`, p.t.rotate)}
<a class="button" href="${base}/sample">${p.t.sendSample}</a>
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
${h.graceEnd && h.enabled ? html`<p class="hint" id="grace-end">${p.t.previousUrlUntil} ${when(h.graceEnd, p)}.</p>` : ''}
${controls}</section>
${overview}
${form}`,
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
