import type { FieldError } from '../../core/errors';
import type { KeyRef } from '../../db/tenant';
import type { AppEnv } from '../../env';
import { hookPath } from '../../webhooks/resource';
import { type SampleEvent, sampleEvent } from '../../webhooks/sample-event';
import { type C, idOf, pageOf, type SessionPage, saved, viewOf } from '../page';
import { sampleConfirmPage } from '../views';
import { renderWebhook } from './webhook';

/** Hands a request to the whole Worker, as if a sender had posted it. */
export type Deliver = (request: Request, env: AppEnv['Bindings']) => Promise<Response>;

/**
 * Posts the sample to the webhook's own URL with the headers its sender would send, from the
 * configurer's address.
 */
function post(c: C, deliver: Deliver, sample: SampleEvent): Promise<Response> {
  const { webhook, body } = sample;
  const headers = new Headers(sample.headers);
  // Counted against the configurer's own address, as their own call would be: a request made here
  // has none, and every account's samples would share one client limit, which one could use up.
  const client = c.req.header('CF-Connecting-IP');
  if (client) headers.set('CF-Connecting-IP', client);
  const url = new URL(hookPath(webhook), c.req.url);
  return deliver(new Request(url, { method: 'POST', headers, body }), c.env);
}

/** Why the webhook's URL refused the sample, from its problem. */
async function refusal(c: C, sample: SampleEvent, res: Response): Promise<string> {
  // A disabled webhook's URL answers a bare 404, as if it did not exist: only a problem has a body.
  const problem: { detail?: string; errors?: FieldError[] } = res.headers
    .get('Content-Type')
    ?.startsWith('application/problem+json')
    ? await res.json()
    : { detail: sample.webhook.enabled ? `HTTP ${res.status}` : pageOf(c, true).t.disabledBanner };
  return [problem.detail, ...(problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].join(' ');
}

/**
 * Sends a sample event (`sampleEvent`) through the Worker's own `/hooks` route. One that would
 * write real records (production) is only shown, with a page to confirm; the confirming POST
 * (`confirm=yes`) draws its values afresh and sends.
 */
export const sendSample =
  (deliver: Deliver): SessionPage =>
  async (c: C, key: KeyRef) => {
    const id = idOf(c);
    const form = await c.req.parseBody();
    const sample = await sampleEvent(c.get('db'), key, id);
    if (sample.writesRecords && form.confirm !== 'yes') {
      const example = JSON.stringify(JSON.parse(sample.body), null, 2);
      return c.html(sampleConfirmPage(pageOf(c, true), viewOf(sample.webhook, c), example));
    }
    const res = await post(c, deliver, sample);
    if (res.ok) return saved(c, id, 'sample');
    return renderWebhook(c, key, id, { flash: { kind: 'error', text: await refusal(c, sample, res) } }, 422);
  };
