import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { fieldErrors } from '../../src/contracts/field-errors';
import { saidText } from '../../src/panel/said-words';
import { call, json, newAccount, newWebhook } from '../helpers';
import { deliver, eventOf, ingest } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';

// zod's own field errors (too_big, invalid_value, unknown_field, invalid_type) carry params where
// the panel validates through the /v1 contract in-process (its config form, and the queue's
// flows, whose `dropped` warnings it shows), so it words them in the page's language; /v1's
// answers to a request keep them as they were, and no English message changes.

const FORM = {
  name: 'Leads',
  'fields.0.key': 'nome',
  'fields.0.type': 'string',
  'fields.0.target': 'contact.name',
  'fields.1.key': 'fone',
  'fields.1.type': 'phone',
  'fields.1.target': 'contact.phone',
  'flows.0.action': 'upsert_contact',
  'flows.0.match_on': 'phone',
};

describe('zod’s field errors, worded in pt-BR', () => {
  it('words a too long name and a type not in the list on the config form, in pt-BR and English', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const cookie = await signIn(key);
    const form = { ...FORM, name: 'x'.repeat(300), 'fields.2.key': 'x', 'fields.2.type': 'bogus' };
    const html = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie, form }), 422);
    expect(html).toContain('id="err-name">Deve ter no máximo 255 caracteres.');
    // The types by the names their select shows, not their stored values.
    expect(html).toContain(
      'id="err-fields-2-type">Deve ser um destes: Texto, Número, Sim/não, Data, Telefone, E-mail, CNPJ.',
    );
    const en = await page(
      await panel(`/panel/webhooks/${hook.id}`, { cookie: `${cookie}; lang=en`, form }),
      422,
    );
    expect(en).toContain('id="err-name">Must be at most 255 characters.');
  });

  it('keeps /v1’s answer to the same errors without params, its English as it was', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const res = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { name: 'x'.repeat(300) },
    });
    expect(res.status).toBe(422);
    expect((await json(res)).errors).toEqual([
      { path: 'name', code: 'too_big', message: 'Must be at most 255 characters.' },
    ]);
  });

  it('words a value a /v1 schema refuses in a flow (a dropped warning’s cause) on the event page', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'telefone', type: 'phone', target: 'contact.phone' },
        { key: 'valor', type: 'number', target: 'deal.value' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'create_deal', name: 'Lead {{nome}}' },
      ],
    });
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', valor: 2e15, __fault: 'send' });
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    const cause = event.warnings[0].params.cause;
    expect(cause).toMatchObject({ code: 'too_big', params: { max: expect.any(Number), origin: 'number' } });
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${id}`, { cookie }));
    const limit = cause.params.inclusive ? `${cause.params.max} ou menos` : `menor que ${cause.params.max}`;
    expect(html).toContain(`Ignorado no registro (negócio): Deve ser ${limit}.`);
  });

  it('words an unknown field and zod’s invalid_type from the params the panel’s validation gives', () => {
    const schema = z.strictObject({ valor: z.number() });
    const body = { valor: '89.900,00', extra: 1 };
    const parsed = schema.safeParse(body);
    if (parsed.success) throw new Error('parsed');
    const errors = fieldErrors(parsed.error, body, true);
    const pt = errors.map((e) => saidText({ lang: 'pt-BR' }, e));
    expect(pt).toContain('Campo desconhecido “extra”.');
    expect(pt).toContain(
      'Deve ser um número (um número JSON como 89900.5, sem aspas). “89.900,00” está no formato brasileiro: envie 89900.00, com ponto antes dos decimais e sem separador de milhar.',
    );
    // The English messages are the same with or without params.
    expect(errors.map((e) => e.message)).toEqual(fieldErrors(parsed.error, body).map((e) => e.message));
  });
});
