import { describe, expect, it } from 'vitest';
import { Args, reason, type Said, saidCodes } from '../../src/core/said';
import { codeLabel, eventCodes } from '../../src/panel/labels';
import { detailCodes, detailText, saidText, wordedCodes, wordsFor } from '../../src/panel/said-words';
import { configIssues } from '../../src/webhooks/actions';
import type { Action, FieldMapping } from '../../src/webhooks/rules/config';
import { compileFormat, type FieldSpec, readFields } from '../../src/webhooks/rules/fields';
import { skippedWarning } from '../../src/webhooks/rules/flows';
import { call, create, insertRow, json, newAccount, newUser, newWebhook } from '../helpers';
import { deliver, ingest } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';
import { rawEnums } from './visible-text';

// The API says each rule as a code and its params beside the English message (src/core/said.ts);
// the panel words each code in the page's language (src/panel/said-words.ts) and never reads the
// English back, except to show an event stored before codes existed as it was.

/** A configuration that breaks every config check once. */
const FIELDS: FieldMapping[] = [
  { key: 'email', type: 'string', required: false, target: 'contact.email' },
  { key: 'email', type: 'string', required: false, formats: ['DD/MM/YYYY'] },
  { key: 'nome', type: 'string', required: false, target: 'contact.name' },
  { key: 'outro', type: 'string', required: false, target: 'contact.name' },
  { key: 'ativo', type: 'boolean', required: false },
];
const FLOWS = [
  { action: 'create_task', name: '{{ninguem}}', category: 'x', due: { from: 'nome', days: 1, hours: 0 } },
  { action: 'create_deal', when: { field: 'ativo', op: 'equals', value: 'sim' } },
  { action: 'create_deal', when: { field: 'sumido', op: 'exists' } },
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'upsert_company' },
] as Action[];

const SPECS: FieldSpec[] = (['number', 'boolean', 'string', 'phone', 'date', 'email', 'cnpj'] as const).map(
  (type) => ({ key: type, type, required: true, formats: type === 'date' ? ['DD/MM/YYYY'] : undefined }),
);
const BODIES = [
  {
    number: 'abc',
    boolean: 'talvez',
    string: {},
    phone: 'x',
    date: '31/02/2026',
    email: 'nope',
    cnpj: '123',
  },
  { number: '1.500', boolean: [], string: 2 ** 60, phone: {}, date: 5, email: 5, cnpj: 5 },
  { number: Number.POSITIVE_INFINITY, string: 'x'.repeat(10_001) },
  { string: '\uD800' },
];

function everySaid(): Said[] {
  const config = configIssues(FIELDS, FLOWS);
  const ingest = BODIES.flatMap((body) => {
    const { errors } = readFields(body, SPECS);
    const lenient = SPECS.map((s) => ({ ...s, required: false }));
    return [...errors, ...readFields(body, lenient).warnings];
  });
  const formats = ['YYYY-YYYY-MM-DD', 'DD/MM/AAAA', 'DD/MM', 'DD/MM/YYYY ss', 'DD/MM/YYYY mm'].map((f) => {
    const compiled = compileFormat(f);
    if (!('error' in compiled)) throw new Error(`${f} compiled`);
    return compiled.error;
  });
  return [...config, ...ingest, ...formats];
}

const PT = { lang: 'pt-BR' } as const;

/** An event stored with these warnings (JSON text, as D1 holds them), processed. */
function storedEvent(accountId: number, webhookId: number, warnings: string): Promise<number> {
  const at = Date.now();
  return insertRow('inbound_events', {
    account_id: accountId,
    webhook_id: webhookId,
    mode: 'production',
    status: 'processed',
    payload: '{}',
    headers: '{}',
    warnings,
    received_at: at,
    queued_at: at,
  });
}
const EN = { lang: 'en' } as const;

describe('every code has words in both languages', () => {
  it('words each code, expectation, reason and refusal in pt-BR and in English', () => {
    for (const code of saidCodes) expect(wordedCodes.codes, code).toContain(code);
    const tables = [
      ['codes', wordedCodes.codes],
      ['expectations', wordedCodes.expectationCodes],
      ['reasons', wordedCodes.reasonCodes],
    ] as const;
    for (const [table, codes] of tables) {
      for (const code of codes) {
        const pt = wordsFor(table, code, new Args({}), PT);
        const en = wordsFor(table, code, new Args({}), EN);
        expect(pt, `${table} ${code}`).toMatch(/\S/);
        expect(en, `${table} ${code}`).toMatch(/\S/);
      }
    }
    for (const code of detailCodes)
      expect(detailText(PT, code, 'x'), code).not.toBe(detailText(EN, code, 'x'));
  });

  it('gives every config check, ingest error and warning and date format a code, params and Portuguese', () => {
    const said = everySaid();
    expect(new Set(said.map((s) => s.code)).size).toBeGreaterThanOrEqual(15);
    for (const s of said) {
      expect(saidCodes, s.message).toContain(s.code);
      expect(s.params, s.message).toBeTypeOf('object');
      const pt = saidText(PT, s);
      expect(pt, s.message).not.toBe(s.message);
      expect(pt, s.message).not.toMatch(/\b(Expected|field|must|the|Only|Left out)\b/);
      expect(rawEnums([pt, saidText(EN, s)]), s.message).toEqual([]);
    }
  });

  it('names a flow warning’s action as the configurer knows it', () => {
    const skipped = skippedWarning(2, 'create_task', reason('no_deal'));
    expect(skipped).toMatchObject({
      path: 'flows.2',
      code: 'step_skipped',
      params: { action: 'create_task', index: 2, reason: { code: 'no_deal' } },
      message: 'create_task did not run: no deal was created before it.',
    });
    expect(saidText(PT, skipped)).toBe(
      'Ação 3 · Criar tarefa não rodou: nenhum negócio foi criado antes dela.',
    );
    expect(saidText(EN, skipped)).toBe('Action 3 · Create task did not run: no deal was created before it.');
  });

  it('labels the code of every ingest error and warning', () => {
    const codes = everySaid()
      .filter((s) => ['required', 'invalid_type', 'dropped'].includes(s.code))
      .map((s) => s.code);
    codes.push(skippedWarning(0, 'create_task', reason('no_deal')).code);
    codes.push(...readFields(JSON.parse('{"__proto__": {"x": 1}}'), []).warnings.map((w) => w.code));
    for (const code of codes) expect(eventCodes, code).toContain(code);
    expect(codeLabel(PT, 'dropped')).toBe('Valor ignorado');
  });

  it('keeps a message without params (stored before codes) as it is', () => {
    const old = { code: 'dropped', message: 'Left out: Expected a valid email address.' };
    expect(saidText(PT, old)).toBe(old.message);
    expect(saidText(PT, { code: 'something_new', params: {}, message: 'Something new.' })).toBe(
      'Something new.',
    );
  });
});

describe('codes on /v1 and their words on the panel', () => {
  it('answers a config issue with its code and params, and the panel’s 422 words it with a hostile key escaped', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const hostile = '<img/src=x/onerror=alert(1)>';
    const fields = [hostile, hostile].map((k) => ({ key: k, type: 'string' }));
    const api = await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { fields } });
    expect(api.status).toBe(422);
    expect((await json(api)).errors).toEqual([
      {
        path: 'fields.1.key',
        code: 'key_declared_twice',
        params: { key: hostile },
        message: `The key "${hostile}" is declared twice.`,
      },
    ]);
    const cookie = await signIn(key);
    const form = {
      name: 'Leads',
      'fields.0.key': hostile,
      'fields.0.type': 'string',
      'fields.1.key': hostile,
      'fields.1.type': 'string',
      'flows.0.action': 'create_deal',
      'flows.0.when.field': `${hostile}"`,
      'flows.0.when.op': 'exists',
    };
    for (const [lang, twice, undeclared] of [
      [
        'pt-BR',
        'A chave “&lt;img/src=x/onerror=alert(1)&gt;” foi declarada duas vezes.',
        'não é um campo declarado',
      ],
      ['en', 'The key “&lt;img/src=x/onerror=alert(1)&gt;” is declared twice.', 'is not a declared field'],
    ] as const) {
      const html = await page(
        await panel(`/panel/webhooks/${hook.id}`, { cookie: `${cookie}; lang=${lang}`, form }),
        422,
      );
      expect(html).toContain(twice);
      expect(html).toContain(`“&lt;img/src=x/onerror=alert(1)&gt;&quot;” ${undeclared}`);
      expect(html).not.toContain('<img');
    }
  });

  it('answers an ingest warning and a flow warning with codes and params, worded on the event page', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'cnpj', type: 'cnpj', target: 'company.cnpj' },
        { key: 'valor', type: 'number' },
      ],
      flows: [{ action: 'upsert_company' }],
    });
    const id = await ingest(hook, { valor: '12 mil' });
    await deliver([id]);
    const { data: event } = await json(await call(`/v1/inbound-webhooks/${hook.id}/events/${id}`, { key }));
    expect(event.warnings).toEqual([
      {
        path: 'valor',
        code: 'dropped',
        params: { key: 'valor', type: 'number', expected: 'number_text' },
        message:
          'Left out: Expected a number, or a string of digits with at most one . or , before the decimals.',
      },
      {
        path: 'flows.0',
        code: 'step_skipped',
        params: { action: 'upsert_company', index: 0, reason: { code: 'no_cnpj', params: {} } },
        message: 'upsert_company did not run: the event has no CNPJ.',
      },
    ]);
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${id}`, { cookie }));
    expect(html).toContain(
      'Ignorado: deveria ser um número, ou dígitos com no máximo um . ou , antes dos decimais.',
    );
    expect(html).toContain('Ação 1 · Criar ou atualizar empresa não rodou: o evento não tem CNPJ.');
  });

  it('names an unavailable owner by name, not another account’s user, and shows an old event as stored', async () => {
    const { id: accountId, key } = await newAccount();
    const other = await newAccount('Other');
    const hook = await newWebhook(key);
    const ana = await create(key, '/v1/users', { name: 'Ana Souza', email: 'ana@example.com' });
    const stranger = await newUser(other.key, 'Estranho');
    const warnings = [
      {
        path: 'flows.1.owner',
        code: 'owner_unavailable',
        params: { action: 'create_deal', index: 1, user_ids: [ana.id, stranger.id], left: 0 },
        message: 'No user … in this account.',
      },
      { path: 'email', code: 'dropped', message: 'Left out: Expected a valid email address.' },
    ];
    const event = await storedEvent(accountId, hook.id, JSON.stringify(warnings));
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${event}`, { cookie }));
    expect(html).toContain(
      `Ana Souza e o usuário #${stranger.id} não estão mais na conta: Ação 2 · Criar negócio rodou sem responsável.`,
    );
    // The action by its name, not its path; Ana by hers, not her id.
    expect(html).not.toContain('flows.1');
    expect(html).not.toContain(`#${ana.id}`);
    expect((await call(`/v1/users/${ana.id}`, { method: 'DELETE', key })).status).toBe(204);
    const trashed = await page(await panel(`/panel/webhooks/${hook.id}/events/${event}`, { cookie }));
    expect(trashed).toContain(
      `Ana Souza está na lixeira; o usuário #${stranger.id} não está mais na conta: Ação 2 · Criar negócio rodou sem responsável.`,
    );
    expect(html).not.toContain('Estranho');
    expect(html).toContain('Left out: Expected a valid email address.');
  });

  it('escapes params from outside and never reads them off a prototype', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key);
    const script = '<script>alert(1)</script>';
    const warnings = `[
      {"path": "${script}", "code": "dropped", "params": {"__proto__": {"polluted": 1}, "key": "${script}", "expected": "toString"}, "message": "m1"},
      {"path": "flows.0", "code": "step_skipped", "params": {"action": "constructor", "index": 0, "reason": {"code": "__proto__", "params": {}}}, "message": "m2"},
      {"path": "x", "code": "__proto__", "params": {}, "message": "${script}"},
      {"path": "y", "code": "reserved_key", "params": {"key": "__proto__", "left_out": true}, "message": "m4"}
    ]`;
    const event = await storedEvent(accountId, hook.id, warnings);
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/events/${event}`, { cookie }));
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Ignorado: deveria ser toString.');
    expect(html).toContain('Ação 1 · constructor não rodou: __proto__.');
    expect(html).toContain('Ignorada: “__proto__” é um nome reservado: use outra chave.');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('words a refused filter’s 400 page by its code', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const cookie = await signIn(key);
    expect(
      await page(await panel(`/panel/webhooks/${hook.id}/events?status=bogus`, { cookie }), 400),
    ).toContain('Os filtros do endereço não são válidos.');
  });
});
