import { html, raw } from 'hono/html';
import { iso } from '../../contracts/common';
import { deliverySorts, WebhookDeliveryQuery } from '../../contracts/webhook-endpoints';
import { DomainError } from '../../core/errors';
import { localInstant, wallClock } from '../../core/zones';
import { webhookDeliveries } from '../../db/schema';
import type { KeyRef } from '../../db/tenant';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import { testEndpoint } from '../../outbound/deliver';
import type { DeliveryRow } from '../../outbound/deliveries';
import { presentEndpoint, rotateSecret } from '../../outbound/endpoints';
import { listDeliveries, presentDelivery, sendAgain } from '../../outbound/log';
import { once } from '../form-token';
import { type C, idOf, pageOf, type SessionPage } from '../page';
import { deliveriesPage, testOutcomePage } from '../views/deliveries';
import { againPage, askPage, type Endpoint, endpointBase, secretPage, words } from '../views/endpoints';
import { type Page, when } from '../views/layout';
import { GRACE_CHOICES, graceLabel, PANEL_GRACE_S } from '../views/webhook-confirm';
import { endpointFlash, ownEndpoint, sinceOf, withoutFlash } from './endpoints';

// An endpoint's actions beyond its settings: rotate its secret (asked first), send a test ping,
// and its delivery log with resend and recover (asked first), each through the functions
// `/v1/webhook-endpoints/{id}/…` calls.

/** The grace choices, each with its end time; 24 hours checked unless a refused POST chose otherwise. */
function graceChoices(p: Page, now: number, chosen: number, error?: string) {
  const choice = (s: number) =>
    html`<label><input type="radio" name="grace" value="${s}"${s === chosen ? raw(' checked') : ''}> ${graceLabel(p, s, words(p).graceNow)}${s ? html` (${p.t.graceUntil} ${when(iso(now + s * 1000), p)})` : ''}</label>`;
  return html`<fieldset class="choices"${error ? raw(' aria-describedby="grace-error"') : ''}><legend>${words(p).rotateGrace}</legend>
${GRACE_CHOICES.map(choice)}
${error ? html`<p id="grace-error" class="error" role="alert">${error}</p>` : ''}
</fieldset>
<p class="hint">${words(p).rotateGraceHint}</p>`;
}

function rotateAsk(p: Page, e: Endpoint, chosen: number, error?: string) {
  const t = words(p);
  const back = endpointBase(e.id);
  const again = e.previous_secret_expires_at
    ? html`<p class="hint" role="note">${t.rotateAgain} ${when(e.previous_secret_expires_at, p)}.</p>`
    : '';
  return askPage(
    p,
    { title: t.rotateTitle, text: t.rotateWhat, action: `${back}/rotate`, button: t.rotateConfirm, back },
    {},
    html`${again}${graceChoices(p, Date.now(), chosen, error)}`,
  );
}

/**
 * Rotates the secret once confirmed, with a grace of GRACE_CHOICES (as `POST …/rotate-secret`),
 * and shows the new secret this once. Unconfirmed, it asks (what the grace means) and changes nothing.
 */
export const rotateEndpoint: SessionPage = async (c, key) => {
  const form = await c.req.parseBody();
  const p = pageOf(c, true);
  if (form.confirm !== 'yes') return c.html(rotateAsk(p, await ownEndpoint(c, key), PANEL_GRACE_S));
  const grace = GRACE_CHOICES.find((s) => String(s) === form.grace);
  if (grace === undefined) {
    return c.html(rotateAsk(p, await ownEndpoint(c, key), PANEL_GRACE_S, words(p).badGrace), 422);
  }
  const t = words(p);
  const again = (at: string | undefined) => c.html(againPage(p, t.rotatedAgain, at));
  return once(
    c,
    key,
    form,
    async () => {
      const row = await rotateSecret(c.get('db'), key, idOf(c), grace);
      const e = presentEndpoint(row);
      const note = e.previous_secret_expires_at
        ? html`<p>${t.previousUntil} ${when(e.previous_secret_expires_at, p)}.</p>`
        : html`<p>${t.previousGone}</p>`;
      return {
        res: c.html(secretPage(p, e, row.secret, t.rotatedTitle, note)),
        location: endpointBase(e.id),
      };
    },
    again,
  );
};

/** Sends a ping now, as `POST …/test`, and shows what the endpoint answered. */
export const testEndpointPage: SessionPage = async (c, key) => {
  const { endpoint, delivery } = await testEndpoint(c.get('db'), c.env, key, idOf(c));
  return c.html(testOutcomePage(pageOf(c, true), presentEndpoint(endpoint), delivery));
};

/**
 * Where "recover since" starts, in the page's zone: when the endpoint began failing (kept in `from`
 * by an enable, which clears it), else a day ago.
 */
const defaultSince = (p: Page, e: Endpoint, from: string | undefined) => {
  const start = (from && sinceOf(from)) ?? e.failing_since;
  return wallClock(start ? Date.parse(start) : Date.now() - 86_400_000, p.zone);
};

/** The delivery log, `GET …/deliveries`'s page and presenter, in one round trip. */
async function renderLog(c: C, key: KeyRef, state: { since?: string; error?: string } = {}) {
  const query = WebhookDeliveryQuery.safeParse(withoutFlash(c.req.query()));
  if (!query.success) throw badRequest('invalid_query', 'The query string is not valid.');
  const page = keyset<DeliveryRow>(webhookDeliveries, deliverySorts, query.data);
  const found = await listDeliveries(c.get('db'), key, idOf(c), page);
  const shown = page.page(c, found.rows, (row) => presentDelivery(row, found.attempts));
  const p = pageOf(c, true);
  const e = presentEndpoint(found.endpoint);
  const list = {
    deliveries: shown.data,
    next: shown.meta.next_cursor,
    since: state.since ?? defaultSince(p, e, c.req.query('from')),
    ...(state.error !== undefined && { error: state.error }),
  };
  const flash = state.error ? { kind: 'error' as const, text: state.error } : endpointFlash(p, c.req.query());
  return c.html(deliveriesPage(p, e, list, flash), state.error ? 422 : 200);
}

export const deliveriesLog: SessionPage = (c, key) => renderLog(c, key);

/** Sends one delivery again, as `POST …/deliveries/{delivery_id}/resend`; one still being tried is said so. */
export const resendDelivery: SessionPage = async (c, key) => {
  const id = idOf(c);
  const log = `${endpointBase(id)}/deliveries`;
  try {
    await sendAgain(c.get('db'), key, c.env.OUTBOUND, id, { deliveryId: idOf(c, 'delivery_id') });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') return c.redirect(`${log}?done=busy`, 303);
    throw err;
  }
  return c.redirect(`${log}?done=resent`, 303);
};

/**
 * Sends again every failed delivery since the form's local time (read in the page's zone), once
 * confirmed, as `POST …/recover`; unconfirmed, it asks, naming the time as the person reads it.
 */
export const recoverEndpoint: SessionPage = async (c, key) => {
  const form = await c.req.parseBody();
  const p = pageOf(c, true);
  const t = words(p);
  const local = typeof form.since === 'string' ? form.since : '';
  const since = localInstant(local, p.zone);
  if (since === undefined || since > Date.now())
    return renderLog(c, key, { since: local, error: t.badSince });
  const id = idOf(c);
  if (form.confirm !== 'yes') {
    const e = await ownEndpoint(c, key);
    const back = `${endpointBase(e.id)}/deliveries`;
    const [before = '', after = ''] = t.recoverWhat.split('{since}');
    const ask = {
      title: t.recoverTitle,
      action: `${endpointBase(id)}/recover`,
      button: t.recoverConfirm,
      back,
    };
    return c.html(askPage(p, ask, { since: local }, html`<p>${before}${when(iso(since), p)}${after}</p>`));
  }
  const log = `${endpointBase(id)}/deliveries`;
  const again = (at: string | undefined) => c.html(againPage(p, t.recoveredAgain, at, t.deliveries));
  return once(
    c,
    key,
    form,
    async () => {
      const n = await sendAgain(c.get('db'), key, c.env.OUTBOUND, id, { since });
      return { res: c.redirect(`${log}?done=recovered&n=${n}`, 303), location: log };
    },
    again,
  );
};
