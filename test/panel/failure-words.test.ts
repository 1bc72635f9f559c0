import { describe, expect, it } from 'vitest';
import { MAX_EVENT_BYTES } from '../../src/routes/hooks';
import { call, insertRow, json, newAccount, newWebhook, postEvent } from '../helpers';
import { deliver, ingest } from '../queue/webhook-support';
import { hookWith, sign, unixNow } from '../routes/hooks-support';
import { page, panel, signIn } from './browser';

// An event's failure is stored as a code and params beside its English `error`
// (inbound_events.error_code, error_params): the panel words it on the event, list and overview
// pages; an event failed before codes existed keeps its English words.

const MAPPING_PT = 'O mapeamento mudou e o evento não se encaixa mais nele: email: Este campo é obrigatório.';
const MAPPING_EN = 'The mapping changed and the event no longer fits it: email: This field is required.';

/** A webhook whose event fails in the queue: its mapping gained a required field after ingest. */
async function failedEvent() {
  const { id: accountId, key } = await newAccount();
  const hook = await newWebhook(key, {
    fields: [
      { key: 'nome', type: 'string', target: 'contact.name' },
      { key: 'fone', type: 'phone', target: 'contact.phone' },
    ],
    flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
  });
  const id = await ingest(hook, { nome: 'Ana' });
  const fields = [
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'fone', type: 'phone', target: 'contact.phone' },
    { key: 'email', type: 'email', required: true },
  ];
  const put = await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { fields } });
  expect(put.status).toBe(200);
  await deliver([id]);
  return { accountId, key, hook, id, cookie: await signIn(key) };
}

describe('an event’s failure: a code and params, worded by the panel', () => {
  it('answers the failure with its code and params on /v1, beside its English error', async () => {
    const { key, hook, id } = await failedEvent();
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}/events/${id}`, { key }));
    expect(data).toMatchObject({
      status: 'failed',
      error: MAPPING_EN,
      error_code: 'mapping_changed',
      error_params: {
        errors: [
          { path: 'email', code: 'required', params: { key: 'email' }, message: 'This field is required.' },
        ],
      },
    });
  });

  it('words it in pt-BR on the event, the list and the overview, and in English when asked', async () => {
    const { hook, id, cookie } = await failedEvent();
    const base = `/panel/webhooks/${hook.id}`;
    const event = await page(await panel(`${base}/events/${id}`, { cookie }));
    expect(event).toContain(`<dd class="error">${MAPPING_PT}</dd>`);
    expect(await page(await panel(`${base}/events`, { cookie }))).toContain(MAPPING_PT);
    const overview = await page(await panel(base, { cookie }));
    expect(/<dd id="last-failure">([\s\S]*?)<\/dd>/.exec(overview)?.[1]).toContain(MAPPING_PT);
    const english = await page(await panel(`${base}/events/${id}`, { cookie: `${cookie}; lang=en` }));
    expect(english).toContain(MAPPING_EN);
  });

  it('words a contact to create without a name in pt-BR', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'cidade', type: 'string' },
        { key: 'fone', type: 'phone', target: 'contact.phone' },
      ],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const id = await ingest(hook, { cidade: 'Recife' });
    await deliver([id]);
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${id}`, { cookie }));
    expect(html).toContain(
      'Para criar um contato é preciso um nome, e o evento não tem nome, e-mail nem telefone',
    );
  });

  it('shows an event failed before codes existed with its English error, as stored', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key);
    const at = Date.now();
    const old = 'The mapping changed and the event no longer fits it: email: This field is required.';
    const id = await insertRow('inbound_events', {
      account_id: accountId,
      webhook_id: hook.id,
      mode: 'production',
      status: 'failed',
      attempts: 1,
      error: old,
      payload: '{}',
      headers: '{}',
      received_at: at,
      queued_at: at,
    });
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}/events/${id}`, { key }));
    expect(data).toMatchObject({ error: old, error_code: null, error_params: null });
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${id}`, { cookie }));
    expect(html).toContain(`<dd class="error">${old}</dd>`);
  });
});

describe('a refusal’s detail keeps its numbers', () => {
  it('answers body_too_large with its limit in params, stores it, and the panel words it with the number', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const res = await postEvent(hook.url, JSON.stringify({ nome: 'x'.repeat(MAX_EVENT_BYTES) }));
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({
      code: 'body_too_large',
      detail: `The body is over ${MAX_EVENT_BYTES} bytes.`,
      params: { max: MAX_EVENT_BYTES },
    });
    const { data } = await json(
      await call(`/v1/inbound-webhooks/${hook.id}/events?status=rejected`, { key }),
    );
    expect(data[0].rejection).toMatchObject({ code: 'body_too_large', params: { max: MAX_EVENT_BYTES } });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const words = `O corpo passa de ${MAX_EVENT_BYTES} bytes.`;
    expect(await page(await panel(`${base}/events/${data[0].id}`, { cookie }))).toContain(words);
    expect(await page(await panel(`${base}/events`, { cookie }))).toContain(words);
    expect(
      /<dd id="last-failure">([\s\S]*?)<\/dd>/.exec(await page(await panel(base, { cookie })))?.[1],
    ).toContain(words);
  });
});

describe('a failed signature keeps its numbers', () => {
  it('words a stale X-Timestamp with its seconds and the limit in pt-BR', async () => {
    const secret = 'whsec-0123456789abcdef';
    const { key, hook } = await hookWith({ secret });
    const ts = unixNow() - 360;
    const body = '{"nome":"Ana"}';
    const res = await postEvent(hook.url, body, {
      'X-Timestamp': String(ts),
      'X-Signature': await sign(secret, ts, body),
    });
    expect(res.status).toBe(401);
    const { data } = await json(
      await call(`/v1/inbound-webhooks/${hook.id}/events?status=rejected`, { key }),
    );
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${data[0].id}`, { cookie }));
    expect(html).toMatch(/O X-Timestamp está 36\d segundos no passado; no máximo 300 para qualquer lado\./);
  });
});
