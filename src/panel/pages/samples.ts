import type { FieldError } from '../../core/errors';
import { notFound } from '../../core/errors';
import { type KeyRef, scoped } from '../../db/tenant';
import type { AppEnv } from '../../env';
import { sampleEvent, senderHeaders } from '../../webhooks/resource/sample-event';
import { hookPath, type WebhookRow, webhookQuery } from '../../webhooks/resource/store';
import { type C, idOf, pageOf, type SessionPage, saved, viewOf } from '../page';
import { detailText, saidText } from '../said-words';
import { sampleConfirmPage } from '../views/layout';
import { testConfirmPage, testSendPage } from '../views/test-send';
import { renderWebhook } from './webhook';

/** Hands a request to the whole Worker, as if a sender had posted it. */
export type Deliver = (request: Request, env: AppEnv['Bindings']) => Promise<Response>;

type Outgoing = { webhook: WebhookRow; body: string; headers: Record<string, string> };

/**
 * Posts a body to the webhook's own URL with the headers its sender would send, from the
 * configurer's address.
 */
export function post(c: C, deliver: Deliver, sample: Outgoing): Promise<Response> {
  const { webhook, body } = sample;
  const headers = new Headers(sample.headers);
  // Counted against the configurer's own address, as their own call would be: a request made here
  // has none, and every account's samples would share one client limit, which one could use up.
  const client = c.req.header('CF-Connecting-IP');
  if (client) headers.set('CF-Connecting-IP', client);
  const url = new URL(hookPath(webhook), c.req.url);
  return deliver(new Request(url, { method: 'POST', headers, body }), c.env);
}

/** Why the webhook's URL refused the sample, from its problem, in the page's language. */
async function refusal(c: C, webhook: WebhookRow, res: Response): Promise<string> {
  const p = pageOf(c, true);
  // A disabled webhook's URL answers a bare 404, as if it did not exist: only a problem has a body.
  if (!res.headers.get('Content-Type')?.startsWith('application/problem+json'))
    return webhook.enabled ? `HTTP ${res.status}` : p.t.disabledBanner;
  const problem: { code?: string; detail?: string; params?: unknown; errors?: FieldError[] } =
    await res.json();
  const detail = detailText(p, problem.code ?? '', problem.detail ?? '', problem.params);
  return [detail, ...(problem.errors ?? []).map((e) => `${e.path}: ${saidText(p, e)}`)].join(' ');
}

/**
 * The test send's page: a body built by `sampleEvent` from the declared fields and the examples of
 * the latest test events, to edit and send. Reads only (one round trip); nothing is sent.
 */
export async function testSendForm(c: C, key: KeyRef): Promise<Response> {
  const sample = await sampleEvent(c.get('db'), key, idOf(c), true);
  const body = JSON.stringify(JSON.parse(sample.body), null, 2);
  return c.html(testSendPage(pageOf(c, true), viewOf(sample.webhook, c), body));
}

/**
 * Sends the body the configurer edited. Text that is not JSON comes back beside the text area,
 * nothing sent; a webhook in production asks to confirm first (`confirm=yes`), since the event
 * writes real records; a refusal of the webhook's URL comes back beside the text area too.
 */
async function sendEdited(c: C, key: KeyRef, deliver: Deliver, body: string, confirmed: boolean) {
  const id = idOf(c);
  const [, hooks] = await scoped(c.get('db'), key, webhookQuery(c.get('db'), key, id));
  const webhook = hooks[0];
  if (!webhook) throw notFound();
  const p = pageOf(c, true);
  const view = viewOf(webhook, c);
  try {
    JSON.parse(body);
  } catch (err) {
    return c.html(testSendPage(p, view, body, `${p.t.invalidJson} ${(err as Error).message}`), 422);
  }
  if (webhook.enabled && webhook.mode === 'production' && !confirmed)
    return c.html(testConfirmPage(p, view, body));
  const res = await post(c, deliver, { webhook, body, headers: await senderHeaders(webhook.secret, body) });
  if (res.ok) return saved(c, id, 'sample');
  return c.html(testSendPage(p, view, body, `${p.t.testRefused} ${await refusal(c, webhook, res)}`), 422);
}

/**
 * Sends a sample event through the Worker's own `/hooks` route: the edited `body` of the test send
 * page, or without one a sample (`sampleEvent`) drawn afresh. One that would write real records
 * (production) is only shown, with a page to confirm; the confirming POST (`confirm=yes`) sends.
 */
export const sendSample =
  (deliver: Deliver): SessionPage =>
  async (c: C, key: KeyRef) => {
    const form = await c.req.parseBody();
    // A file where the text area's text belongs is no JSON text: refused beside the text area.
    if (form.body !== undefined)
      return sendEdited(
        c,
        key,
        deliver,
        typeof form.body === 'string' ? form.body : '',
        form.confirm === 'yes',
      );
    const id = idOf(c);
    const sample = await sampleEvent(c.get('db'), key, id);
    if (sample.writesRecords && form.confirm !== 'yes') {
      const example = JSON.stringify(JSON.parse(sample.body), null, 2);
      return c.html(sampleConfirmPage(pageOf(c, true), viewOf(sample.webhook, c), example));
    }
    const res = await post(c, deliver, sample);
    if (res.ok) return saved(c, id, 'sample');
    return renderWebhook(
      c,
      key,
      id,
      { flash: { kind: 'error', text: await refusal(c, sample.webhook, res) } },
      422,
    );
  };
