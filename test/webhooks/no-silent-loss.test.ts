import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, call, expectProblem, type Json, newAccount, newWebhook, postEvent } from '../helpers';
import { deliver, eventLog, eventOf, get, ingest, recordCounts } from '../queue/webhook-support';

// Issue 21, part 4: no lead is lost or damaged on ingest without a trace.

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** A POST with exactly these headers and body bytes. */
const rawPost = (path: string, body: BodyInit, headers: Record<string, string>) =>
  exports.default.fetch(new Request(`${BASE}${path}`, { method: 'POST', headers, body }));

/** ASCII text with raw bytes spliced in where the text has `\u00XX` placeholders: Latin-1 bytes. */
const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (ch) => ch.charCodeAt(0));

const nome = { key: 'nome', type: 'string', required: true, target: 'contact.name' };
const telefone = { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' };

/** A webhook that makes a contact, a deal and a task of each lead. */
async function leadHook(extraFields: Json[] = [], extraFlows: Json[] = []) {
  const { key, id } = await newAccount();
  const hook = await newWebhook(key, {
    fields: [nome, telefone, ...extraFields],
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      ...extraFlows,
      { action: 'create_deal', name: 'Lead {{nome}}' },
      { action: 'create_task', name: 'Ligar', category: 'Follow-up' },
    ],
  });
  return { key, accountId: id, hook };
}

/** The newest event that ingest accepted (the log without rejected calls). */
async function lastEvent(key: string, hookId: number): Promise<Json> {
  const [event] = (await eventLog(key, hookId, 'limit=100')).filter((e) => e.status !== 'rejected');
  return event;
}

describe('ingest: an Idempotency-Key reused with another body', () => {
  it('is a 422 idempotency_key_reused kept as a rejected event with its body; the first event stands', async () => {
    const { key, hook } = await leadHook();
    const first = { nome: 'Ana', telefone: '11987654321', __fault: 'send' };
    const second = { nome: 'Bruno', telefone: '11912345678', __fault: 'send' };
    const k = { 'Idempotency-Key': 'lead-1' };
    expect((await postEvent(hook.url, first, k)).status).toBe(204);
    const problem = await expectProblem(await postEvent(hook.url, second, k), 422, 'idempotency_key_reused');
    expect(problem.detail).toContain('different request');
    const [rejected] = await eventLog(key, hook.id, 'status=rejected');
    expect(rejected).toMatchObject({
      status: 'rejected',
      rejection: { status: 422, code: 'idempotency_key_reused', body: JSON.stringify(second) },
    });
    const accepted = (await eventLog(key, hook.id)).filter((e) => e.status !== 'rejected');
    expect(accepted.map((e) => e.payload.nome)).toEqual(['Ana']);
  });

  it('stays a 204 stored once for the same body, in other JSON spacing too', async () => {
    const { key, hook } = await leadHook();
    const k = { ...JSON_TYPE, 'Idempotency-Key': 'same' };
    const body = '{"nome":"Ana","telefone":"11987654321","__fault":"send"}';
    expect((await rawPost(hook.path, body, k)).status).toBe(204);
    expect((await rawPost(hook.path, body, k)).status).toBe(204);
    expect((await rawPost(hook.path, body.replaceAll(',', ', '), k)).status).toBe(204);
    expect(await eventLog(key, hook.id)).toHaveLength(1);
  });

  it('of concurrent calls with one key and different bodies, stores one and refuses the others', async () => {
    const { key, hook } = await leadHook();
    const calls = ['Ana', 'Bia', 'Caio'].map((name) =>
      postEvent(
        hook.url,
        { nome: name, telefone: '11987654321', __fault: 'send' },
        { 'Idempotency-Key': 'b' },
      ),
    );
    const statuses = (await Promise.all(calls)).map((r) => r.status).sort();
    expect(statuses).toEqual([204, 422, 422]);
    expect(await eventLog(key, hook.id, 'status=pending')).toHaveLength(1);
    expect(await eventLog(key, hook.id, 'status=rejected')).toHaveLength(2);
  });

  it('after LGPD erasure, a retry of the erased event is a 204 that brings nobody back', async () => {
    const { key, accountId, hook } = await leadHook();
    const body = { nome: 'Ana', telefone: '11987654321', __fault: 'send' };
    expect((await postEvent(hook.url, body, { 'Idempotency-Key': 'erased-key' })).status).toBe(204);
    const { id } = await lastEvent(key, hook.id);
    await deliver([id]);
    const { contact_id } = (await eventOf(key, hook.id, id)).result;
    expect((await call(`/v1/contacts/${contact_id}?erase=true`, { method: 'DELETE', key })).status).toBe(204);
    expect((await postEvent(hook.url, body, { 'Idempotency-Key': 'erased-key' })).status).toBe(204);
    const log = await eventLog(key, hook.id);
    expect(log).toHaveLength(1);
    expect(JSON.stringify(log)).not.toContain('Ana');
    expect((await recordCounts(accountId)).contacts).toBe(0);
  });
});

describe('ingest: bytes that are not UTF-8', () => {
  it('runs on a workerd whose TextDecoder has Windows-1252 (0x80 is the euro sign, not U+0080)', () => {
    expect(new TextDecoder('windows-1252').decode(new Uint8Array([0x80, 0xe3]))).toBe('€ã');
    expect(new TextDecoder('iso-8859-1').encoding).toBe('windows-1252');
  });

  it('reads a Latin-1 form (nome=Jo%E3o) as Windows-1252 with a warning on the key, kept through processing', async () => {
    const { key, hook } = await leadHook();
    const res = await rawPost(hook.path, 'nome=Jo%E3o+%C1vila&telefone=11987654321&__fault=send', FORM);
    expect(res.status).toBe(204);
    const stored = await lastEvent(key, hook.id);
    expect(stored.payload.nome).toBe('João Ávila');
    const warning = {
      path: 'nome',
      code: 'decoded_as_windows_1252',
      params: {},
      message: expect.stringContaining('Windows-1252'),
    };
    expect(stored.warnings).toEqual([warning]);
    await deliver([stored.id]);
    const processed = await eventOf(key, hook.id, stored.id);
    expect(processed).toMatchObject({ status: 'processed', warnings: [warning] });
    expect((await get(key, `/v1/contacts/${processed.result.contact_id}`)).name).toBe('João Ávila');
  });

  it('reads a form that is UTF-8, or that declares a Latin-1 charset, without a warning', async () => {
    const { key, hook } = await leadHook();
    const bodies: [BodyInit, Record<string, string>][] = [
      ['nome=Jo%C3%A3o&telefone=11987654321&__fault=send', FORM],
      [
        'nome=Jo%E3o&telefone=11987654321&__fault=send',
        { 'Content-Type': `${FORM['Content-Type']}; charset=ISO-8859-1` },
      ],
      [
        latin1('nome=Jo\u00e3o&telefone=11987654321&__fault=send'),
        { 'Content-Type': `${FORM['Content-Type']}; charset=windows-1252` },
      ],
    ];
    for (const [body, headers] of bodies) {
      expect((await rawPost(hook.path, body, headers)).status).toBe(204);
      expect(await lastEvent(key, hook.id)).toMatchObject({ payload: { nome: 'João' }, warnings: [] });
    }
  });

  it('percent-decodes a form as the URL standard does: + is a space, a stray % stays, %2B is a plus', async () => {
    const { key, hook } = await leadHook([{ key: 'obs', type: 'string' }]);
    const body = 'nome=Ana+Maria&telefone=%2B55+11+98765-4321&obs=100%+e+%ZZ+%4&x=&&y&__fault=send';
    expect((await rawPost(hook.path, body, FORM)).status).toBe(204);
    const expected = Object.fromEntries(new URLSearchParams(body));
    expect(await lastEvent(key, hook.id)).toMatchObject({ payload: expected, warnings: [] });
    expect(expected.obs).toBe('100% e %ZZ %4');
  });

  it('reads JSON declared charset=iso-8859-1 (or windows-1252, latin1) as such, and undeclared Latin-1 JSON with a warning', async () => {
    const { key, hook } = await leadHook();
    const body = latin1('{"nome":"Jo\u00e3o \u0080","telefone":"11987654321","__fault":"send"}');
    for (const charset of ['iso-8859-1', 'windows-1252', 'latin1', '"ISO-8859-1"']) {
      const headers = { 'Content-Type': `application/json; charset=${charset}` };
      expect((await rawPost(hook.path, body, headers)).status, charset).toBe(204);
      expect(await lastEvent(key, hook.id)).toMatchObject({ payload: { nome: 'João €' }, warnings: [] });
    }
    expect((await rawPost(hook.path, body, JSON_TYPE)).status).toBe(204);
    const guessed = await lastEvent(key, hook.id);
    expect(guessed.payload.nome).toBe('João €');
    expect(guessed.warnings).toEqual([
      expect.objectContaining({ path: '', code: 'decoded_as_windows_1252' }),
    ]);
  });

  it('keeps a refused Latin-1 body without a replacement character', async () => {
    const { key, hook } = await leadHook();
    await expectProblem(await rawPost(hook.path, 'nome=Jo%E3o', FORM), 400, 'invalid_fields');
    await expectProblem(
      await rawPost(hook.path, latin1('{"nome":"Jo\u00e3o"}'), JSON_TYPE),
      400,
      'invalid_fields',
    );
    const bodies = (await eventLog(key, hook.id, 'status=rejected')).map((e) => e.rejection.body);
    expect(bodies).toEqual(['{"nome":"João"}', 'nome=Jo%E3o']);
  });
});

describe('the cnpj field type', () => {
  const cnpjField = (required: boolean) => ({ key: 'cnpj', type: 'cnpj', required, target: 'company.cnpj' });
  const empresa = { key: 'empresa', type: 'string', target: 'company.name' };

  it('refuses an invalid CNPJ in a required field with 400, and stores a valid one canonical', async () => {
    const { key, accountId, hook } = await leadHook(
      [cnpjField(true), empresa],
      [{ action: 'upsert_company' }],
    );
    const lead = { nome: 'Ana', telefone: '11987654321', empresa: 'Acme', __fault: 'send' };
    const problem = await expectProblem(
      await postEvent(hook.url, { ...lead, cnpj: '11.222.333/0001-82' }),
      400,
      'invalid_fields',
    );
    expect(problem.errors).toEqual([
      {
        path: 'cnpj',
        code: 'invalid_type',
        params: { key: 'cnpj', type: 'cnpj', expected: 'cnpj' },
        message: expect.stringContaining('valid CNPJ'),
      },
    ]);
    const id = await ingest(hook, { ...lead, cnpj: '11.222.333/0001-81' });
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'processed', warnings: [] });
    expect(await get(key, `/v1/companies/${event.result.company_id}`)).toMatchObject({
      name: 'Acme',
      cnpj: '11222333000181',
    });
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, companies: 1, deals: 1, tasks: 1 });
  });

  it('drops an invalid optional CNPJ with a warning and writes the contact, deal and task without the company', async () => {
    const CNPJ_PARAMS = { key: 'cnpj', type: 'cnpj', expected: 'cnpj' };
    const { key, accountId, hook } = await leadHook(
      [cnpjField(false), empresa],
      [{ action: 'upsert_company' }],
    );
    const id = await ingest(hook, {
      nome: 'Ana',
      telefone: '11987654321',
      cnpj: '11.222.333/0001-82',
      empresa: 'Acme',
      __fault: 'send',
    });
    expect((await eventOf(key, hook.id, id)).warnings).toEqual([
      { path: 'cnpj', code: 'dropped', params: CNPJ_PARAMS, message: expect.stringContaining('valid CNPJ') },
    ]);
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'processed', result: { company_id: null } });
    expect(event.warnings).toEqual([
      { path: 'cnpj', code: 'dropped', params: CNPJ_PARAMS, message: expect.stringContaining('valid CNPJ') },
      {
        path: 'flows.1',
        code: 'step_skipped',
        params: { action: 'upsert_company', index: 1, reason: { code: 'no_cnpj', params: {} } },
        message: 'upsert_company did not run: the event has no CNPJ.',
      },
    ]);
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, companies: 0, deals: 1, tasks: 1 });
  });

  it('previews the same in test mode: the skipped action in the preview and the warnings', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      mode: 'test',
      fields: [nome, telefone, cnpjField(false), empresa],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }, { action: 'upsert_company' }],
    });
    const id = await ingest(hook, {
      nome: 'Ana',
      telefone: '11987654321',
      cnpj: '1',
      empresa: 'Acme',
      __fault: 'send',
    });
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'test', preview: { contact: { action: 'create' } } });
    expect(event.preview.company).toBeUndefined();
    expect(event.preview.skipped).toEqual([
      { index: 1, action: 'upsert_company', reason: 'the event has no CNPJ' },
    ]);
    expect(event.warnings.map((w: Json) => [w.path, w.code])).toEqual([
      ['cnpj', 'dropped'],
      ['flows.1', 'step_skipped'],
    ]);
  });

  it('fills only company.cnpj among the fixed targets, and any custom field', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/inbound-webhooks', {
      method: 'POST',
      key,
      body: { name: 'x', fields: [{ key: 'doc', type: 'cnpj', target: 'contact.name' }] },
    });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors[0]).toMatchObject({
      path: 'fields.0.type',
      message: expect.stringContaining('string'),
    });
    const custom = await newWebhook(key, {
      fields: [{ key: 'doc', type: 'cnpj', target: 'contact.custom_fields.cnpj' }],
    });
    expect(custom.fields[0].type).toBe('cnpj');
  });

  it('is the guess for a masked CNPJ in sample fields', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test' });
    expect((await postEvent(hook.url, { doc: '11.222.333/0001-81', __fault: 'send' })).status).toBe(204);
    const samples = await get(key, `/v1/inbound-webhooks/${hook.id}/sample-fields`);
    expect(samples.find((s: Json) => s.key === 'doc')).toMatchObject({ type: 'cnpj' });
  });
});

describe('a task due from a date the event lacks', () => {
  it('is created without a due date and a no_due_date warning', async () => {
    const { key, hook } = await (async () => {
      const { key } = await newAccount();
      const hook = await newWebhook(key, {
        fields: [nome, telefone, { key: 'compra', type: 'date' }],
        flows: [
          { action: 'upsert_contact', match_on: ['phone'] },
          { action: 'create_deal', name: 'Lead' },
          {
            action: 'create_task',
            name: 'Revisão',
            category: 'Pós-venda',
            due: { from: 'compra', days: 365 },
          },
        ],
      });
      return { key, hook };
    })();
    const id = await ingest(hook, {
      nome: 'Ana',
      telefone: '11987654321',
      compra: '2024-02-30',
      __fault: 'send',
    });
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event.status).toBe('processed');
    expect(event.warnings).toEqual([
      {
        path: 'compra',
        code: 'dropped',
        params: { key: 'compra', type: 'date', expected: 'date', formats: [] },
        message: expect.stringContaining('real date'),
      },
      {
        path: 'flows.2.due.from',
        code: 'no_due_date',
        params: { key: 'compra' },
        message: expect.stringContaining('without a due date'),
      },
    ]);
    expect((await get(key, `/v1/tasks/${event.result.task_ids[0]}`)).due_date).toBeNull();
  });
});

describe('values a record cannot take, found on the ingest and queue path', () => {
  it('leaves out a deal.value the deal refuses, with a warning, and writes the deal', async () => {
    const { key, accountId, hook } = await leadHook([{ key: 'valor', type: 'number', target: 'deal.value' }]);
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', valor: 2e15, __fault: 'send' });
    await deliver([id]);
    const event = await eventOf(key, hook.id, id);
    expect(event.status).toBe('processed');
    expect(event.warnings).toEqual([
      {
        path: 'valor',
        code: 'dropped',
        params: { record: 'deal', cause: expect.objectContaining({ code: 'too_big' }) },
        message: expect.stringMatching(/^Left out of the deal: /),
      },
    ]);
    expect((await get(key, `/v1/deals/${event.result.deal_id}`)).value).toBeNull();
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, deals: 1, tasks: 1 });
  });

  it('never stores a whole number past 2^53 as other digits in a string field: 400 when required, a warning when optional', async () => {
    const { key, hook } = await leadHook([
      { key: 'pedido', type: 'string', target: 'contact.custom_fields.pedido' },
      { key: 'codigo', type: 'string', required: true },
    ]);
    const lead = '{"nome":"Ana","telefone":"11987654321","__fault":"send"';
    const problem = await expectProblem(
      await rawPost(hook.path, `${lead},"codigo":12345678901234567891}`, JSON_TYPE),
      400,
      'invalid_fields',
    );
    expect(problem.errors).toEqual([
      expect.objectContaining({ path: 'codigo', message: expect.stringContaining('2^53') }),
    ]);
    const body = `${lead},"codigo":9007199254740991,"pedido":12345678901234567891}`;
    expect((await rawPost(hook.path, body, JSON_TYPE)).status).toBe(204);
    const stored = await lastEvent(key, hook.id);
    // Ingest notes the number it read rounded; the mapping, that it left it out.
    expect(stored.warnings).toEqual([
      expect.objectContaining({ path: 'pedido', code: 'unsafe_integer' }),
      expect.objectContaining({ path: 'pedido', code: 'dropped' }),
    ]);
    await deliver([stored.id]);
    const event = await eventOf(key, hook.id, stored.id);
    expect((await get(key, `/v1/contacts/${event.result.contact_id}`)).custom_fields).toEqual({});
  });
});

describe('a required value its record cannot take', () => {
  it('is a 400 at ingest, not a 204 for a lead that then fails', async () => {
    const { key, hook } = await leadHook([
      { key: 'valor', type: 'number', required: true, target: 'deal.value' },
    ]);
    const lead = { telefone: '11987654321', valor: 10, __fault: 'send' };
    const long = await expectProblem(
      await postEvent(hook.url, { ...lead, nome: 'x'.repeat(256), valor: 2e15 }),
      400,
      'invalid_fields',
    );
    expect(long.errors).toEqual([
      {
        path: 'nome',
        code: 'invalid_type',
        message: expect.stringMatching(/^Does not fit contact\.name: .*255/),
      },
      { path: 'valor', code: 'invalid_type', message: expect.stringMatching(/^Does not fit deal\.value: /) },
    ]);
    expect(await eventLog(key, hook.id, 'status=pending')).toEqual([]);
    const id = await ingest(hook, { ...lead, nome: 'x'.repeat(255) });
    await deliver([id]);
    expect((await eventOf(key, hook.id, id)).status).toBe('processed');
  });
});

describe('a form full of Latin-1 keys', () => {
  it('stores a bounded list of warnings, never a 5xx', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {});
    const body = Array.from({ length: 20_000 }, (_, i) => `k${i}=%E3`).join('&');
    expect((await rawPost(hook.path, `${body}&__fault=send`, FORM)).status).toBe(204);
    const [event] = await eventLog(key, hook.id);
    // Kept as its first 16 KiB of keys (none is declared), with a body_trimmed warning.
    expect(event.payload.k0).toBe('ã');
    expect(event.payload.k19999).toBeUndefined();
    expect(event.warnings).toHaveLength(12);
    expect(event.warnings[11]).toMatchObject({ code: 'body_trimmed' });
    expect(event.warnings.slice(0, 10).map((w: Json) => w.path)).toEqual(
      Array.from({ length: 10 }, (_, i) => `k${i}`),
    );
    expect(event.warnings[10]).toMatchObject({ path: '', code: 'decoded_as_windows_1252' });
    expect(event.warnings[10].message).toContain('19990 more keys');
    expect(JSON.stringify(event.warnings).length).toBeLessThan(2300);
  });
});
