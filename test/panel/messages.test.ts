import { describe, expect, it } from 'vitest';
import { codeLabel, eventCodes } from '../../src/panel/labels';
import { eventErrorText, issueText } from '../../src/panel/problem-text';
import { configIssues } from '../../src/webhooks/actions';
import type { Action, FieldMapping } from '../../src/webhooks/rules/config';
import { compileFormat, type FieldSpec, readFields } from '../../src/webhooks/rules/fields';
import { skippedWarning } from '../../src/webhooks/rules/flows';
import { call, insertRow, json, newAccount, newWebhook } from '../helpers';
import { page, panel, signIn } from './browser';
import { rawEnums } from './visible-text';

// The API's rule messages, shown on the panel in the page's language: every message the config
// checks, ingest and the date formats can give has a translation, and /v1 keeps its English.

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

function everyMessage(): string[] {
  const config = configIssues(FIELDS, FLOWS).map((i) => i.message);
  const ingest = BODIES.flatMap((body) => {
    const { errors } = readFields(body, SPECS);
    const { warnings } = readFields(
      body,
      SPECS.map((s) => ({ ...s, required: false })),
    );
    return [...errors, ...warnings].map((e) => e.message);
  });
  const formats = ['YYYY-YYYY-MM-DD', 'DD/MM/AAAA', 'DD/MM', 'DD/MM/YYYY ss', 'DD/MM/YYYY mm'].map((f) => {
    const compiled = compileFormat(f);
    if (!('error' in compiled)) throw new Error(`${f} compiled`);
    return compiled.error;
  });
  return [...new Set([...config, ...ingest, ...formats])];
}

describe('rule messages in the page’s language', () => {
  it('translates every config check, ingest error and warning, and date format message', () => {
    const messages = everyMessage();
    expect(messages.length).toBeGreaterThanOrEqual(30);
    for (const message of messages) {
      const pt = issueText({ lang: 'pt-BR' }, message);
      const en = issueText({ lang: 'en' }, message);
      expect(pt, message).not.toBe(message);
      expect(pt, message).not.toMatch(/\b(Expected|field|must|the|Only|Left out)\b/);
      expect(rawEnums([pt, en]), message).toEqual([]);
    }
  });

  it('translates what the run of the flows says: a step skipped or run in part, a failure', () => {
    const said = [
      skippedWarning(2, 'create_task', 'no deal was created before it').message,
      skippedWarning(1, 'upsert_company', 'the event has no CNPJ').message,
      skippedWarning(
        1,
        'upsert_company',
        'no company has this CNPJ, and the event has no company name to create one with',
      ).message,
      'The event has no usable "lead.quando": the task was created without a due date.',
      'contact.name: needed to create a contact, and the event has no name, email or phone to name it after (no existing contact matched).',
      'The event has no contact name and no existing contact matched: the new contact is named after its email, ana@example.com.',
      'Left out of the contact: it has 50 custom fields already, the most it may have.',
      'Left out of the deal: Expected a finite number.',
      'No user 7 in this account. The create_task ran without an owner.',
      'No user 7 in this account. No user 9 in this account. The round robin went on without them.',
    ];
    for (const message of said) {
      const pt = issueText({ lang: 'pt-BR' }, message);
      expect(pt, message).not.toBe(message);
      expect(pt, message).not.toMatch(/\b(did not run|the|Left out|Expected|without)\b/);
      expect(rawEnums([pt, issueText({ lang: 'en' }, message)]), message).toEqual([]);
    }
    expect(issueText({ lang: 'pt-BR' }, said[8] ?? '')).toBe(
      'Nenhum usuário 7 nesta conta. “Criar tarefa” rodou sem responsável.',
    );
  });

  it('labels the code of every ingest error and warning', () => {
    const codes = BODIES.flatMap((body) => {
      const strict = readFields(body, SPECS).errors;
      const lenient = readFields(
        body,
        SPECS.map((s) => ({ ...s, required: false })),
      ).warnings;
      return [...strict, ...lenient].map((e) => e.code);
    });
    codes.push(skippedWarning(0, 'create_task', 'x').code);
    codes.push(...readFields(JSON.parse('{"__proto__": {"x": 1}}'), []).warnings.map((w) => w.code));
    expect(new Set(codes).size).toBeGreaterThanOrEqual(5);
    for (const code of codes) expect(eventCodes, code).toContain(code);
    expect(codeLabel({ lang: 'pt-BR' }, 'dropped')).toBe('Valor ignorado');
  });

  it('translates the detail of a refused call and each signature failure', () => {
    const details = [
      'Some required fields are missing or invalid; see errors.',
      'The body must be a JSON object.',
      'The Content-Type is JSON, but the body is not valid JSON.',
      'The body is over 262144 bytes.',
      'The request has no Content-Type: send application/json or application/x-www-form-urlencoded.',
      'X-Signature is missing: this webhook has a secret.',
      'X-Timestamp is 400 seconds old; at most 300 either way.',
      'X-Signature does not match: it must be the HMAC-SHA256, under the webhook\'s secret, of "<X-Timestamp>.<raw body>", the body exactly as sent.',
      'The query string is not valid.',
    ];
    for (const detail of details) expect(issueText({ lang: 'pt-BR' }, detail), detail).not.toBe(detail);
  });

  it('keeps what it does not know as it is, and each part of a mapping-changed error', () => {
    expect(issueText({ lang: 'pt-BR' }, 'Something new.')).toBe('Something new.');
    expect(
      eventErrorText(
        { lang: 'pt-BR' },
        'The mapping changed and the event no longer fits it: lead.fone: This field is required.; x: Expected a valid email address.',
      ),
    ).toBe(
      'O mapeamento mudou e o evento não cabe mais nele: lead.fone: Este campo é obrigatório.; x: Esperado um e-mail válido.',
    );
  });

  it('shows the 422 of the form translated, a hostile key escaped, and /v1 keeps its English', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const cookie = await signIn(key);
    const hostile = '<img/src=x/onerror=alert(1)>';
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
    const fields = [hostile, hostile].map((k) => ({ key: k, type: 'string' }));
    const api = await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { fields } });
    expect(api.status).toBe(422);
    expect((await json(api)).errors).toEqual([
      { path: 'fields.1.key', code: 'invalid', message: `The key "${hostile}" is declared twice.` },
    ]);
  });

  it('shows an event’s error translated on the event page and in the log, and a refused filter', async () => {
    const { id, key } = await newAccount();
    const hook = await newWebhook(key);
    const at = Date.now();
    const event = await insertRow('inbound_events', {
      account_id: id,
      webhook_id: hook.id,
      mode: 'production',
      status: 'failed',
      payload: '{}',
      headers: '{}',
      received_at: at,
      queued_at: at,
      error:
        'The mapping changed and the event no longer fits it: lead.fone: Expected a Brazilian or international (+CC) phone number.',
    });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}/events`;
    for (const path of [base, `${base}/${event}`]) {
      const pt = await page(await panel(path, { cookie }));
      expect(pt).toContain(
        'O mapeamento mudou e o evento não cabe mais nele: lead.fone: Esperado um telefone brasileiro',
      );
      const en = await page(await panel(path, { cookie: `${cookie}; lang=en` }));
      expect(en).toContain(
        'The mapping changed and the event no longer fits it: lead.fone: Expected a phone number.',
      );
    }
    // A refused filter's 400 page, in the page's language too.
    expect(await page(await panel(`${base}?status=bogus`, { cookie }), 400)).toContain(
      'Os filtros do endereço não são válidos.',
    );
  });
});
