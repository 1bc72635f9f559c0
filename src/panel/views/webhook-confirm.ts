import { html, raw } from 'hono/html';
import { iso } from '../../contracts/common';
import { layout, modeBanner, type Page, type WebhookView, when } from './layout';

// The pages that ask before a destructive change to a webhook: rotating its URL and disabling it.
// Each works without JavaScript: a GET shows what will happen, its form's POST confirms.

/** The grace periods the panel offers, in seconds; 24 hours is its default, as Stripe's. */
export const GRACE_CHOICES = [0, 3600, 86400, 259200, 604800] as const;
export const PANEL_GRACE_S = 86400;

/** A grace choice in words; `now` says what "no grace" means for the thing rotated (a URL, a secret). */
export const graceLabel = (p: Page, s: number, now = p.t.graceNow) =>
  ({ 0: now, 3600: p.t.grace1h, 86400: p.t.grace24h, 259200: p.t.grace3d, 604800: p.t.grace7d })[s] ??
  String(s);

/**
 * Asks before the webhook gets a new URL: how long the old one keeps working (each choice with its
 * end time), what to do if it leaked, and that a second rotation ends an older grace at once.
 */
export function rotateConfirmPage(p: Page, h: WebhookView, now: number, chosen: number, error?: string) {
  const base = `/panel/webhooks/${h.id}`;
  const choice = (s: number) =>
    html`<label><input type="radio" name="grace" value="${s}"${s === chosen ? raw(' checked') : ''}${error ? raw(' aria-describedby="grace-error"') : ''}> ${graceLabel(p, s)}${s ? html` (${p.t.graceUntil} ${when(iso(now + s * 1000), p)})` : ''}</label>`;
  return layout(
    p,
    p.t.rotateTitle,
    html`${modeBanner(p, h)}
<p>${p.t.rotateWhat}</p>
${h.graceEnd ? html`<p class="hint" role="note">${p.t.rotateAgain} ${when(h.graceEnd, p)}.</p>` : ''}
<form method="post" action="${base}/rotate" class="card">
<input type="hidden" name="confirm" value="yes">
<fieldset class="choices"><legend>${p.t.rotateGrace}</legend>
${GRACE_CHOICES.map(choice)}
${error ? html`<p id="grace-error" class="error" role="alert">${error}</p>` : ''}
</fieldset>
<p class="hint">${p.t.rotateGraceHint}</p>
<div class="actions"><button type="submit" class="danger">${p.t.rotateConfirm}</button>
<a class="button secondary" href="${base}">${p.t.cancel}</a></div>
</form>`,
  );
}

/** Asks before the webhook is disabled: its URL answers 404 and what senders post is not kept. */
export function disableConfirmPage(p: Page, h: WebhookView) {
  const base = `/panel/webhooks/${h.id}`;
  return layout(
    p,
    p.t.disableTitle,
    html`${modeBanner(p, h)}
<p>${p.t.disableWhat}</p>
<form method="post" action="${base}/enabled" class="actions">
<input type="hidden" name="enabled" value="false"><input type="hidden" name="confirm" value="yes">
<button type="submit" class="danger">${p.t.disableConfirm}</button>
<a class="button secondary" href="${base}">${p.t.cancel}</a>
</form>`,
  );
}
