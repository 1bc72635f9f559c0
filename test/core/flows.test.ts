import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { planFlows } from '../../src/webhooks/actions';
import { FieldMapping } from '../../src/webhooks/config/schema';
import { Action } from '../../src/webhooks/contract/schemas';
import type { FieldValue } from '../../src/webhooks/rules/fields';

const RECEIVED = Date.parse('2026-01-10T12:00:00.000Z');
const HOUR = 3_600_000;

/** A configuration as the API stores it (defaults applied), planned for these values. */
function plan(
  fields: unknown[],
  flows: unknown[],
  values: Record<string, FieldValue>,
  receivedAt = RECEIVED,
) {
  const config = { fields: z.array(FieldMapping).parse(fields), flows: z.array(Action).parse(flows) };
  return planFlows(config, new Map(Object.entries(values)), { receivedAt, zone: 'UTC' });
}

const LEAD = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', target: 'contact.phone' },
  { key: 'email', type: 'email', target: 'contact.email' },
  { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
  { key: 'valor', type: 'number', target: 'deal.value' },
  { key: 'origem', type: 'string', target: 'deal.custom_fields.origem' },
  { key: 'cnpj', type: 'string', target: 'company.cnpj' },
  { key: 'empresa', type: 'string', target: 'company.name' },
  { key: 'obs', type: 'string' },
];

describe('planFlows: bodies', () => {
  it('maps values to the /v1 body of each record, custom fields grouped, unmapped fields left out', () => {
    const { steps, skipped } = plan(
      LEAD,
      [
        { action: 'upsert_contact', match_on: ['phone'], owner: { user_id: 7 } },
        { action: 'upsert_company' },
        { action: 'create_deal', name: 'Lead', owner: { round_robin: [1, 2] } },
      ],
      {
        nome: 'Ana',
        telefone: '+5511987654321',
        veiculo: 'Onix',
        valor: 1000,
        origem: 'site',
        cnpj: '11.222.333/0001-81',
        empresa: 'Acme',
        obs: 'not mapped',
      },
    );
    expect(skipped).toEqual([]);
    expect(steps).toEqual([
      {
        action: 'upsert_contact',
        index: 0,
        owner: { user_id: 7 },
        body: { name: 'Ana', phone: '+5511987654321', custom_fields: { veiculo: 'Onix' } },
        match: { by: 'phone', value: '+5511987654321' },
      },
      {
        action: 'upsert_company',
        index: 1,
        owner: undefined,
        body: { cnpj: '11.222.333/0001-81', name: 'Acme' },
      },
      {
        action: 'create_deal',
        index: 2,
        owner: { round_robin: [1, 2] },
        body: { name: 'Lead', value: 1000, custom_fields: { origem: 'site' } },
      },
    ]);
  });

  it('leaves the deal name to the field mapped to deal.name when the action has no template', () => {
    const { steps } = plan(
      [{ key: 'titulo', type: 'string', target: 'deal.name' }],
      [{ action: 'create_deal' }],
      { titulo: 'Frota' },
    );
    expect(steps[0]?.body).toEqual({ name: 'Frota' });
  });

  it('renders templates: nested keys, spaces inside braces, received_at, numbers and booleans; absent keys are empty', () => {
    const { steps } = plan(
      [
        { key: 'lead.nome', type: 'string' },
        { key: 'lead.veiculo.ano', type: 'number' },
        { key: 'vip', type: 'boolean' },
        { key: 'apelido', type: 'string' },
        { key: 'tipo', type: 'string' },
      ],
      [
        {
          action: 'create_deal',
          name: '  {{apelido}} {{ lead.nome }} – {{lead.veiculo.ano}} (vip: {{vip}})  ',
        },
        { action: 'create_task', name: 'Recebido em {{received_at}}', category: '{{tipo}}: {{ apelido }}' },
      ],
      { 'lead.nome': 'Ana', 'lead.veiculo.ano': 2024, vip: false, tipo: 'Retorno' },
    );
    expect(steps.map((s) => s.body.name)).toEqual([
      'Ana – 2024 (vip: false)',
      'Recebido em 2026-01-10T12:00:00.000Z',
    ]);
    // A category template whose tail is absent ends neither in a space nor in the dangling `:`.
    expect(steps[1]?.body.category).toBe('Retorno');
  });

  it('renders a template whose every key is absent to an empty name, for validation to refuse', () => {
    const { steps } = plan(
      [{ key: 'apelido', type: 'string' }],
      [{ action: 'create_deal', name: '{{apelido}}' }],
      {},
    );
    expect(steps[0]?.body.name).toBe('');
  });

  it('passes a task its description and owner, and null as due date without a due rule', () => {
    const { steps } = plan(
      [],
      [
        { action: 'create_deal', name: 'Lead' },
        {
          action: 'create_task',
          name: 'Ligar',
          category: 'Contato',
          description: 'Logo',
          owner: { user_id: 3 },
        },
      ],
      {},
    );
    expect(steps[1]).toEqual({
      action: 'create_task',
      index: 1,
      owner: { user_id: 3 },
      body: { name: 'Ligar', category: 'Contato', description: 'Logo', due_date: null },
    });
  });
});

describe('planFlows: contact match', () => {
  const flows = (match_on: string[]) => [{ action: 'upsert_contact', match_on }];

  it('matches on the first key of match_on that has a value', () => {
    const both = { telefone: '+5511987654321', email: 'Ana@X.com' };
    expect(plan(LEAD, flows(['phone', 'email']), both).steps[0]).toMatchObject({
      match: { by: 'phone', value: '+5511987654321' },
    });
    // Emails match case-insensitively: the key is lower-cased, the body keeps the spelling.
    expect(plan(LEAD, flows(['email', 'phone']), both).steps[0]).toMatchObject({
      match: { by: 'email', value: 'ana@x.com' },
      body: { email: 'Ana@X.com' },
    });
    expect(plan(LEAD, flows(['email', 'phone']), { telefone: '+5511987654321' }).steps[0]).toMatchObject({
      match: { by: 'phone', value: '+5511987654321' },
    });
  });

  it('has no match when no key of match_on has a value', () => {
    const [step] = plan(LEAD, flows(['phone']), { nome: 'Ana', email: 'ana@x.com' }).steps;
    expect(step).toEqual({
      action: 'upsert_contact',
      index: 0,
      owner: undefined,
      body: { name: 'Ana', email: 'ana@x.com' },
    });
  });
});

describe('planFlows: skipped steps', () => {
  it('skips an action whose condition does not hold, and the tasks after a skipped deal', () => {
    const { steps, skipped } = plan(
      LEAD,
      [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'create_deal', name: 'Lead', when: { field: 'obs', op: 'exists' } },
        { action: 'create_task', name: 'Ligar', category: 'Contato' },
        { action: 'create_task', name: 'Visitar', category: 'Visita' },
      ],
      { nome: 'Ana' },
    );
    expect(steps.map((s) => s.action)).toEqual(['upsert_contact']);
    expect(skipped).toEqual([
      { index: 1, action: 'create_deal', reason: 'its condition does not hold' },
      { index: 2, action: 'create_task', reason: 'no deal was created before it' },
      { index: 3, action: 'create_task', reason: 'no deal was created before it' },
    ]);
  });

  it('skips upsert_company when the event has no CNPJ', () => {
    const { steps, skipped } = plan(LEAD, [{ action: 'upsert_company' }], { empresa: 'Acme' });
    expect(steps).toEqual([]);
    expect(skipped).toEqual([{ index: 0, action: 'upsert_company', reason: 'the event has no CNPJ' }]);
  });

  it('skips a task with a false condition but keeps the ones after it', () => {
    const { steps, skipped } = plan(
      LEAD,
      [
        { action: 'create_deal', name: 'Lead' },
        { action: 'create_task', name: 'A', category: 'C', when: { field: 'obs', op: 'equals', value: 'x' } },
        { action: 'create_task', name: 'B', category: 'C' },
      ],
      { obs: 'y' },
    );
    expect(steps.map((s) => [s.index, s.body.name])).toEqual([
      [0, 'Lead'],
      [2, 'B'],
    ]);
    expect(skipped).toEqual([{ index: 1, action: 'create_task', reason: 'its condition does not hold' }]);
  });
});

describe('planFlows: when', () => {
  const fields = [
    { key: 's', type: 'string' },
    { key: 'n', type: 'number' },
    { key: 'b', type: 'boolean' },
  ];
  const holds = (when: unknown, values: Record<string, FieldValue>): boolean =>
    plan(fields, [{ action: 'create_deal', name: 'X', when }], values).steps.length === 1;

  it.each([
    ['exists: a value', { field: 's', op: 'exists' }, { s: 'x' }, true],
    ['exists: false counts', { field: 'b', op: 'exists' }, { b: false }, true],
    ['exists: zero counts', { field: 'n', op: 'exists' }, { n: 0 }, true],
    ['exists: absent', { field: 's', op: 'exists' }, {}, false],
    ['exists: empty string', { field: 's', op: 'exists' }, { s: '' }, false],
    ['equals: same text', { field: 's', op: 'equals', value: 'sim' }, { s: 'sim' }, true],
    ['equals: other case', { field: 's', op: 'equals', value: 'sim' }, { s: 'Sim' }, false],
    ['equals: same number', { field: 'n', op: 'equals', value: 100 }, { n: 100 }, true],
    ['equals: number vs text', { field: 's', op: 'equals', value: 100 }, { s: '100' }, false],
    ['equals: boolean', { field: 'b', op: 'equals', value: true }, { b: true }, true],
    ['equals: absent', { field: 's', op: 'equals', value: 'sim' }, {}, false],
    ['not_equals: other', { field: 's', op: 'not_equals', value: 'não' }, { s: 'sim' }, true],
    ['not_equals: same', { field: 's', op: 'not_equals', value: 'não' }, { s: 'não' }, false],
    ['not_equals: absent', { field: 's', op: 'not_equals', value: 'não' }, {}, true],
    ['contains: other case', { field: 's', op: 'contains', value: 'Google' }, { s: 'ads.GOOGLE.com' }, true],
    [
      'contains: accented, other case',
      { field: 's', op: 'contains', value: 'ÔNIX' },
      { s: 'quero um ônix' },
      true,
    ],
    ['contains: a number', { field: 'n', op: 'contains', value: 99 }, { n: 1990 }, true],
    ['contains: no', { field: 's', op: 'contains', value: 'google' }, { s: 'facebook' }, false],
    ['contains: absent', { field: 's', op: 'contains', value: 'google' }, {}, false],
  ] as const)('%s → %s', (_name, when, values, expected) => {
    expect(holds(when, values)).toBe(expected);
  });
});

describe('planFlows: due dates', () => {
  const fields = [
    { key: 'compra', type: 'date' },
    { key: 'visita', type: 'date' },
  ];
  const dueOf = (due: unknown, values: Record<string, FieldValue> = {}, receivedAt = RECEIVED) =>
    plan(
      fields,
      [
        { action: 'create_deal', name: 'Lead' },
        { action: 'create_task', name: 'T', category: 'C', due },
      ],
      values,
      receivedAt,
    ).steps[1]?.body.due_date;

  it('counts from received_at, plus days and hours', () => {
    expect(dueOf({ from: 'received_at' })).toBe('2026-01-10T12:00:00.000Z');
    expect(dueOf({ from: 'received_at', days: 2, hours: 3 })).toBe(
      new Date(RECEIVED + 51 * HOUR).toISOString(),
    );
    expect(dueOf({ from: 'received_at', days: 1, hours: -36 })).toBe('2026-01-10T00:00:00.000Z');
    expect(dueOf({ from: 'received_at', days: -3 })).toBe('2026-01-07T12:00:00.000Z');
  });

  it('counts from a date field, bare (midnight UTC) or with a time', () => {
    expect(dueOf({ from: 'compra', days: 365 }, { compra: '2024-03-05' })).toBe('2025-03-05T00:00:00.000Z');
    // 2024 is a leap year: 365 days after 1 Feb 2024 is 31 Jan 2025.
    expect(dueOf({ from: 'compra', days: 365 }, { compra: '2024-02-01' })).toBe('2025-01-31T00:00:00.000Z');
    expect(dueOf({ from: 'visita', hours: -2 }, { visita: '2024-03-10T15:30:00.000Z' })).toBe(
      '2024-03-10T13:30:00.000Z',
    );
    expect(dueOf({ from: 'compra', days: -1, hours: 12 }, { compra: '2024-03-01' })).toBe(
      '2024-02-29T12:00:00.000Z',
    );
  });

  it('is null when the date it counts from is absent', () => {
    expect(dueOf({ from: 'compra', days: 365 }, { visita: '2024-03-10T15:30:00.000Z' })).toBeNull();
  });
});

describe('planFlows: keys from the configuration', () => {
  it('builds custom fields on an object without a prototype, even for a key stored before reserved names were refused', () => {
    const fields = [
      { key: 'n', type: 'string', required: false, target: 'contact.name' },
      { key: 'a', type: 'string', required: false, target: 'contact.custom_fields.__proto__' },
    ] as const;
    const { steps } = planFlows(
      { fields: [...fields], flows: [{ action: 'upsert_contact', match_on: ['phone'] }] },
      new Map([
        ['n', 'Ana'],
        ['a', 'x'],
      ]),
      { receivedAt: RECEIVED, zone: 'UTC' },
    );
    const custom = steps[0]?.body.custom_fields as object;
    expect(Object.getPrototypeOf(custom)).toBeNull();
    // Kept as a key (which the /v1 schema then refuses), never taken as the object's prototype.
    expect(Object.getOwnPropertyDescriptor(custom, '__proto__')?.value).toBe('x');
  });
});
