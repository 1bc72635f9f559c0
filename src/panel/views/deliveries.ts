import type { z } from '@hono/zod-openapi';
import { html, raw } from 'hono/html';
import type { DeliveryAttempt, WebhookDelivery } from '../../contracts/webhook-endpoints';
import { deliveryStatusLabels } from '../outbound-text';
import { zoneName } from '../zone-labels';
import { type Endpoint, endpointBase, stateWords, typeWords, words } from './endpoints';
import { counted, type FlashView, fill, layout, type Page, post, when } from './layout';

// An endpoint's delivery log (every message and each of its attempts, with resend and recover) and
// the outcome of a test ping: the attempt's status, latency and the answer's first bytes, escaped.

type Delivery = z.infer<typeof WebhookDelivery>;
type Attempt = z.infer<typeof DeliveryAttempt>;

const statusBadge = (p: Page, status: Delivery['status']) =>
  html`<span class="badge ${status}">${deliveryStatusLabels[p.lang][status]}</span>`;

/** One attempt's answer: its status and latency, and its first 2 KiB as text (escaped), or why none came. */
function answer(p: Page, a: Attempt, open: boolean) {
  const t = words(p);
  if (a.status === null) {
    return html`<p><strong>${t.whyNoAnswer}:</strong> ${a.error ?? t.noAnswer}</p>`;
  }
  if (!a.response) return html`<p class="hint">${t.emptyAnswer}</p>`;
  const body = html`<pre tabindex="0">${a.response}</pre>`;
  return open ? body : html`<details><summary>${t.showAnswer}</summary>${body}</details>`;
}

function attemptRows(p: Page, d: Delivery) {
  const { attempts } = d;
  const t = words(p);
  if (!attempts.length) return html`<p class="hint">${t.noAttempts}</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${t.attemptsOf} ${d.message_id}"><table class="attempts">
<thead><tr><th scope="col">${t.attempt}</th><th scope="col">${t.attemptAt}</th><th scope="col">${t.httpStatus}</th><th scope="col">${t.latency}</th><th scope="col">${t.answer}</th></tr></thead>
<tbody>${attempts.map(
    (a, i) =>
      html`<tr><td data-label="${t.attempt}">${i + 1}</td><td data-label="${t.attemptAt}">${when(a.at, p)}</td><td data-label="${t.httpStatus}">${a.status ?? t.noAnswer}</td><td data-label="${t.latency}">${fill(t.ms, { n: a.latency_ms })}</td><td data-label="${t.answer}">${answer(p, a, false)}</td></tr>`,
  )}</tbody></table></div>`;
}

function deliveryCard(p: Page, e: Endpoint, d: Delivery) {
  const t = words(p);
  const resend = p.can('webhook_endpoints:update')
    ? post(`${endpointBase(e.id)}/deliveries/${d.id}/resend`, t.resend)
    : '';
  return html`<article class="card delivery" aria-labelledby="delivery-${d.id}">
<h2 id="delivery-${d.id}">${typeWords(p, d.type)}</h2>
<dl class="facts">
<dt>${p.t.status}</dt><dd>${statusBadge(p, d.status)} ${counted(p, t.attemptsCount, d.attempts.length)}</dd>
<dt>${t.created}</dt><dd>${when(d.created_at, p)}</dd>
${d.next_attempt_at ? html`<dt>${t.nextAttempt}</dt><dd>${when(d.next_attempt_at, p)}</dd>` : ''}
<dt>${t.message}</dt><dd><code>${d.message_id}</code></dd>
</dl>
${attemptRows(p, d)}
${d.status === 'pending' ? '' : resend}
</article>`;
}

/** "Resend the failures since": a local date and time, read in the page's zone. */
function recoverForm(p: Page, e: Endpoint, since: string, error?: string) {
  const t = words(p);
  if (!p.can('webhook_endpoints:update')) return '';
  return html`<form method="post" action="${endpointBase(e.id)}/recover" class="card filters">
<p class="row"><label for="since">${t.recoverSince}</label>
<input id="since" name="since" type="datetime-local" required value="${since}" aria-describedby="since-hint${error ? ' since-error' : ''}"${error ? raw(' aria-invalid="true"') : ''}>
<button type="submit">${t.recover}</button></p>
<p class="hint" id="since-hint">${fill(t.recoverHint, { zone: zoneName(p.t, p.zone) })}</p>
${error ? html`<p class="error" id="since-error" role="alert">${error}</p>` : ''}
</form>`;
}

export function deliveriesPage(
  p: Page,
  e: Endpoint,
  list: { deliveries: Delivery[]; next: string | null; since: string; error?: string },
  flash?: FlashView,
) {
  const t = words(p);
  const base = endpointBase(e.id);
  return layout(
    p,
    `${t.log}: ${e.description ?? e.url}`,
    html`<p><a href="${base}">${p.t.back}</a></p>
<p><code>${e.url}</code> · ${e.enabled ? t.on : stateWords(p, e)}</p>
<p class="hint">${t.logHint}</p>
${recoverForm(p, e, list.since, list.error)}
${list.deliveries.length ? list.deliveries.map((d) => deliveryCard(p, e, d)) : html`<p>${t.noDeliveries}</p>`}
${list.next ? html`<p><a href="${base}/deliveries?cursor=${encodeURIComponent(list.next)}">${p.t.more}</a></p>` : ''}`,
    flash,
  );
}

/** The outcome of a test ping: accepted or not, the status, latency and the answer's first bytes. */
export function testOutcomePage(p: Page, e: Endpoint, d: Delivery) {
  const t = words(p);
  const a = d.attempts[0];
  const ok = d.status === 'succeeded';
  return layout(
    p,
    t.testTitle,
    html`<p class="flash ${ok ? 'ok' : 'error'}" role="${ok ? 'status' : 'alert'}">${ok ? t.testOk : t.testFailed}</p>
<p><code>${e.url}</code></p>
${
  a
    ? html`<dl class="facts">
<dt>${t.httpStatus}</dt><dd>${a.status ?? t.noAnswer}</dd>
<dt>${t.latency}</dt><dd>${fill(t.ms, { n: a.latency_ms })}</dd>
<dt>${t.attemptAt}</dt><dd>${when(a.at, p)}</dd>
<dt>${t.message}</dt><dd><code>${d.message_id}</code></dd>
</dl>
<h2>${t.answer}</h2>
${answer(p, a, true)}`
    : ''
}
<div class="actions"><a class="button" href="${endpointBase(e.id)}">${p.t.back}</a>
<a class="button secondary" href="${endpointBase(e.id)}/deliveries">${t.deliveries}</a></div>`,
  );
}
