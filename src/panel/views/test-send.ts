import { html, raw } from 'hono/html';
import { layout, modeBanner, type Page, type WebhookView } from './layout';

// The test send: a body to edit and post to the webhook's own URL, and the confirmation a
// production webhook asks for before it writes real records.

/**
 * The page with the body to send in a text area, and (`error`) why the last one was not sent,
 * beside it. A disabled webhook's URL answers 404: the page says what the banner says.
 */
export function testSendPage(p: Page, h: WebhookView, body: string, error?: string) {
  const base = `/panel/webhooks/${h.id}`;
  return layout(
    p,
    p.t.testSendTitle,
    html`${modeBanner(p, h)}
<p><a href="${base}">${p.t.back}</a></p>
<p class="hint" id="test-body-hint">${p.t.testSendHint} ${h.mode === 'production' ? p.t.testSendProduction : p.t.testSendTestMode}</p>
<form method="post" action="${base}/sample" class="card">
<label for="test-body">${p.t.testBody}</label>
<textarea id="test-body" name="body" class="test-body" spellcheck="false" aria-describedby="test-body-hint${error ? ' test-body-error' : ''}"${error ? raw(' aria-invalid="true"') : ''}>
${body}</textarea>
${error ? html`<p id="test-body-error" class="error" role="alert">${error}</p>` : ''}
<p><button type="submit">${p.t.sendTest}</button></p>
</form>`,
  );
}

/**
 * Asked before an edited body is sent to a webhook in production, where it writes real records:
 * the body as it will be sent, carried by the confirming form.
 */
export function testConfirmPage(p: Page, h: WebhookView, body: string) {
  const base = `/panel/webhooks/${h.id}`;
  return layout(
    p,
    p.t.sampleConfirmTitle,
    html`${modeBanner(p, h)}
<p>${p.t.sampleConfirm}</p>
<h2>${p.t.sampleEdited}</h2>
<pre tabindex="0">${body}</pre>
<div class="actions">
<form method="post" action="${base}/sample" class="inline"><input type="hidden" name="body" value="${body}"><input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">${p.t.sendForReal}</button></form>
<a class="button" href="${base}/sample">${p.t.cancel}</a>
</div>`,
  );
}
