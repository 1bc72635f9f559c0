import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  d1OfRow,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';
import { deliver, eventOf, get, NO_RECORDS, recordCounts } from '../queue/webhook-support';

/** A POST with exactly these headers and body. */
const rawPost = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`${BASE}${path}`, { method: 'POST', headers, body }));

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** The id of the newest event of the webhook, straight from D1. */
async function newestEvent(hookId: number): Promise<number> {
  const row = await d1OfRow('inbound_webhooks', hookId)
    .prepare('SELECT max(id) AS id FROM inbound_events WHERE webhook_id = ?')
    .bind(hookId)
    .first<{ id: number }>();
  if (!row?.id) throw new Error('no event stored');
  return row.id;
}

// The lead of issue 15: every optional field in a near-miss format.
const FIELDS = [
  { key: 'nome', type: 'string', required: true, target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'email', type: 'email', target: 'contact.email' },
  { key: 'valor', type: 'number', target: 'deal.value' },
  { key: 'quando', type: 'date', target: 'deal.custom_fields.quando' },
  { key: 'data_compra', type: 'date', formats: ['DD/MM/YYYY'], target: 'contact.custom_fields.compra' },
  { key: 'origem', type: 'date', target: 'contact.custom_fields.origem' },
];
const FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead {{nome}}' },
  { action: 'create_task', name: 'Revisão', category: 'Pós-venda', due: { from: 'data_compra', days: 365 } },
];

async function leadHook() {
  const account = await newAccount();
  return { ...account, hook: await newWebhook(account.key, { fields: FIELDS, flows: FLOWS }) };
}

describe('ingest: near misses in optional fields are coerced or left out, never a 400', () => {
  it('stores the lead of issue 15 and writes its records with the coerced values', async () => {
    const { key, hook } = await leadHook();
    const sent = {
      nome: 'Ana Souza',
      telefone: 11987654321,
      email: '',
      valor: '89900',
      quando: '2024-03-05T10:00:00Z',
      data_compra: '05/03/2024',
      origem: 'ontem',
      __fault: 'send',
    };
    expect((await postEvent(hook.path, sent)).status).toBe(204);
    const id = await newestEvent(hook.id);
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'processed', payload: sent, rejection: null });
    // The one field that still does not fit is named, with why, and left out of the records.
    expect(event.warnings).toEqual([
      {
        path: 'origem',
        code: 'dropped',
        params: expect.objectContaining({ key: 'origem', expected: 'date' }),
        message: expect.stringContaining('Left out: Expected a real date'),
      },
    ]);

    const contact = await get(key, `/v1/contacts/${event.result.contact_id}`);
    expect(contact).toMatchObject({ name: 'Ana Souza', phone: '+5511987654321', email: null });
    expect(contact.custom_fields).toEqual({ compra: '2024-03-05' });
    const deal = await get(key, `/v1/deals/${event.result.deal_id}`);
    expect(deal).toMatchObject({ value: 89900, custom_fields: { quando: '2024-03-05T10:00:00.000Z' } });
    const task = await get(key, `/v1/tasks/${event.result.task_ids[0]}`);
    expect(task.due_date).toBe('2025-03-05T03:00:00.000Z');
  });

  it('still refuses a required field that does not fit, or is blank, with 400', async () => {
    const { key, hook } = await leadHook();
    for (const telefone of ['123', '', ' ', null]) {
      const res = await postEvent(hook.path, { nome: 'Ana', telefone });
      const problem = await expectProblem(res, 400, 'invalid_fields');
      expect(problem.errors).toEqual([
        expect.objectContaining({ path: 'telefone', code: telefone === '123' ? 'invalid_type' : 'required' }),
      ]);
    }
    const log = await list(key, `/v1/inbound-webhooks/${hook.id}/events?limit=100`);
    expect(log.data.map((e: Json) => e.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('reads a date in the formats the field lists, tried in order, and no other', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [{ key: 'd', type: 'date', required: true, formats: ['DD/MM/YYYY HH:mm', 'DD.MM.YYYY'] }],
    });
    for (const d of ['05/03/2024 14:30', '05.03.2024', '2024-03-05', '2024-03-05T10:00:00-03:00']) {
      expect((await postEvent(hook.path, { d, __fault: 'send' })).status, d).toBe(204);
    }
    for (const d of ['05/03/2024', '03-05-2024', '31.02.2024']) {
      const problem = await expectProblem(await postEvent(hook.path, { d }), 400, 'invalid_fields');
      expect(problem.errors[0].message, d).toContain('DD/MM/YYYY HH:mm, DD.MM.YYYY');
    }
  });
});

describe('webhook configuration: formats', () => {
  const create = async (key: string, field: Json) =>
    call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'X', fields: [field] } });

  it('stores the formats of a date field and shows them back', async () => {
    const { key } = await newAccount();
    const res = await create(key, { key: 'd', type: 'date', formats: ['DD/MM/YYYY', 'YYYYMMDD'] });
    expect(res.status).toBe(201);
    expect((await json(res)).data.fields[0].formats).toEqual(['DD/MM/YYYY', 'YYYYMMDD']);
  });

  it.each([
    [
      'an unknown token',
      { key: 'd', type: 'date', formats: ['DD/MM/YYYY', 'dd/mm/yy'] },
      'fields.0.formats.1',
      'Unknown token "dd"',
    ],
    [
      'a format without the year',
      { key: 'd', type: 'date', formats: ['DD/MM'] },
      'fields.0.formats.0',
      'YYYY is missing',
    ],
    [
      'formats on a field that is not a date',
      { key: 'd', type: 'string', formats: ['DD/MM/YYYY'] },
      'fields.0.formats',
      'date',
    ],
    ['an empty list', { key: 'd', type: 'date', formats: [] }, 'fields.0.formats', ''],
    [
      'more than five',
      { key: 'd', type: 'date', formats: Array(6).fill('DD/MM/YYYY') },
      'fields.0.formats',
      '',
    ],
  ])('refuses %s with 422 next to the field', async (_name, field, path, message) => {
    const { key } = await newAccount();
    const problem = await expectProblem(await create(key, field), 422, 'validation_failed');
    expect(problem.errors).toContainEqual(
      expect.objectContaining({ path, message: expect.stringContaining(message) }),
    );
    expect((await list(key, '/v1/inbound-webhooks')).data).toEqual([]);
  });
});

describe('ingest: application/x-www-form-urlencoded', () => {
  it('reads a form as the object its keys make, and processes it like JSON', async () => {
    const { key, hook } = await leadHook();
    const form = new URLSearchParams([
      ['nome', 'Ana Souza'],
      ['telefone', '(11) 98765-4321'],
      ['valor', '899,00'],
      ['data_compra', '05/03/2024'],
      ['lead[origem]', 'site'],
      ['lead.campanha', 'verão'],
      ['tags[]', 'a'],
      ['tags[]', 'b'],
      ['__fault', 'send'],
    ]);
    expect((await rawPost(hook.path, form.toString(), FORM)).status).toBe(204);
    const id = await newestEvent(hook.id);
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event.payload).toEqual({
      nome: 'Ana Souza',
      telefone: '(11) 98765-4321',
      valor: '899,00',
      data_compra: '05/03/2024',
      lead: { origem: 'site', campanha: 'verão' },
      tags: ['a', 'b'],
      __fault: 'send',
    });
    expect(event).toMatchObject({ status: 'processed', warnings: [] });
    expect(await get(key, `/v1/deals/${event.result.deal_id}`)).toMatchObject({ value: 899 });
  });

  it('fills nested keys from a[b] and a.b alike, collects repeats, and keeps __proto__ a plain key', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'lead.phone', type: 'phone', required: true },
        { key: 'answers.0.text', type: 'string', required: true },
        { key: 'lead.vip', type: 'boolean', required: true },
      ],
    });
    const body =
      'lead[phone]=11987654321&answers[0][text]=sim&lead.vip=1&x=1&x=2&__proto__[polluted]=yes&__fault=send';
    expect((await rawPost(hook.path, body, FORM)).status).toBe(204);
    const [event] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events`)).data;
    expect(event.payload).toEqual({
      lead: { phone: '11987654321', vip: '1' },
      answers: { '0': { text: 'sim' } },
      x: ['1', '2'],
      ['__proto__']: { polluted: 'yes' },
      __fault: 'send',
    });
    expect(({} as Json).polluted).toBeUndefined();
  });

  it.each([
    ['a key that is a value and a group', 'a=1&a[b]=2', 'is both a value and a group'],
    ['a group that is then a value', 'a.b=1&a=2', 'is both a value and a group'],
    ['an empty part', 'a..b=1', 'empty or unmatched part'],
    ['an unmatched bracket', 'a[b=1', 'empty or unmatched part'],
  ])('refuses %s with 400 malformed_form', async (_name, body, message) => {
    const { key, hook } = await leadHook();
    const problem = await expectProblem(await rawPost(hook.path, body, FORM), 400, 'malformed_form');
    expect(problem.detail).toContain(message);
    const [event] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events`)).data;
    expect(event).toMatchObject({ status: 'rejected', payload: null, rejection: { body } });
  });

  it('refuses a form nested too deep with body_too_deep', async () => {
    const { hook } = await leadHook();
    for (const levels of [32, 80_000]) {
      const deep = `a${'[b]'.repeat(levels)}=1`;
      await expectProblem(await rawPost(hook.path, deep, FORM), 400, 'body_too_deep');
    }
    // One level less passes the depth check and meets the field check.
    await expectProblem(await rawPost(hook.path, `a${'[b]'.repeat(31)}=1`, FORM), 400, 'invalid_fields');
  });

  it('refuses JSON sent as a form (curl -d without a Content-Type) with a 400 that says so', async () => {
    const { hook } = await leadHook();
    for (const body of ['{"nome":"Ana","telefone":"11987654321"}', ' [1]']) {
      const problem = await expectProblem(await rawPost(hook.path, body, FORM), 400, 'malformed_form');
      expect(problem.detail).toContain('Content-Type: application/json');
    }
  });

  it('checks required fields of a form like those of JSON', async () => {
    const { hook } = await leadHook();
    const problem = await expectProblem(
      await rawPost(hook.path, 'nome=Ana&telefone=', FORM),
      400,
      'invalid_fields',
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'telefone', code: 'required' })]);
  });
});

describe('ingest: the event log after refusals', () => {
  it('records what a refused lead made no record of, and never processes it', async () => {
    const { key, id: accountId, hook } = await leadHook();
    const res = await postEvent(hook.path, { nome: 'Ana', telefone: 'x' });
    const problem = await expectProblem(res, 400, 'invalid_fields');
    const id = await newestEvent(hook.id);
    await deliver([id]);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
    expect(await eventOf(key, hook.id, id)).toMatchObject({ status: 'rejected', attempts: 0, result: null });
    const replay = await call(`/v1/inbound-webhooks/${hook.id}/events/${id}/replay`, { method: 'POST', key });
    await expectProblem(replay, 409, 'conflict');
    const { request_id: _, ...answered } = problem;
    expect((await eventOf(key, hook.id, id)).rejection).toEqual({
      status: answered.status,
      code: answered.code,
      detail: answered.detail,
      errors: answered.errors,
      body: JSON.stringify({ nome: 'Ana', telefone: 'x' }),
    });
  });
});

describe('sample-fields and rejected events', () => {
  it('offers the keys of accepted test events only, however many refusals came after them', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      mode: 'test',
      fields: [{ key: 'nome', type: 'string', required: true }],
    });
    expect(
      (await postEvent(hook.path, { nome: 'Ana', lead: { origem: 'site' }, __fault: 'send' })).status,
    ).toBe(204);
    for (let i = 0; i < 21; i++) await expectProblem(await postEvent(hook.path, { outro: i }), 400);
    const sample = await json(await call(`/v1/inbound-webhooks/${hook.id}/sample-fields`, { key }));
    expect(sample.data.map((f: Json) => f.key)).toEqual(['nome', 'lead.origem', '__fault']);
  });
});
