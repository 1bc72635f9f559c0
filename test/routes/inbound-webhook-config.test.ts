import { describe, expect, it } from 'vitest';
import { expectProblem, type Json, newAccount, newUser, newWebhook } from '../helpers';
import { listIds, post } from './inbound-webhook-support';

describe('inbound webhooks: configuration rules', () => {
  const deal = { key: 'produto', type: 'string', target: 'deal.name' };
  const phone = { key: 'tel', type: 'phone', target: 'contact.phone' };
  const cases: [string, Json, string[]][] = [
    [
      'an unknown target',
      { fields: [{ key: 'idade', type: 'number', target: 'contact.age' }] },
      ['fields.0.target'],
    ],
    [
      'a target named like a method every object inherits',
      {
        fields: [
          { key: 'a', type: 'string', target: 'valueOf' },
          { key: 'b', type: 'string', target: 'constructor' },
          { key: 'c', type: 'string', target: '__proto__' },
        ],
      },
      ['fields.0.target', 'fields.1.target', 'fields.2.target'],
    ],
    [
      'a custom field target without a name',
      { fields: [{ key: 'x', type: 'string', target: 'contact.custom_fields.' }] },
      ['fields.0.target'],
    ],
    [
      'a custom field target of another record',
      { fields: [{ key: 'x', type: 'string', target: 'company.custom_fields.x' }] },
      ['fields.0.target'],
    ],
    ['an unknown type', { fields: [{ key: 'x', type: 'cpf' }] }, ['fields.0.type']],
    ['a key that is not a dot path', { fields: [{ key: 'lead..phone', type: 'string' }] }, ['fields.0.key']],
    ['a key with a space', { fields: [{ key: 'lead phone', type: 'string' }] }, ['fields.0.key']],
    [
      'contact.phone fed by a string',
      { fields: [{ key: 'tel', type: 'string', target: 'contact.phone' }] },
      ['fields.0.type'],
    ],
    [
      'contact.email fed by a string',
      { fields: [{ key: 'e', type: 'string', target: 'contact.email' }] },
      ['fields.0.type'],
    ],
    [
      'deal.value fed by a string',
      { fields: [{ key: 'v', type: 'string', target: 'deal.value' }] },
      ['fields.0.type'],
    ],
    [
      'contact.name fed by a phone',
      { fields: [{ key: 'n', type: 'phone', target: 'contact.name' }] },
      ['fields.0.type'],
    ],
    ['a duplicate key', { fields: [phone, { key: 'tel', type: 'string' }] }, ['fields.1.key']],
    [
      'two fields for one target',
      { fields: [deal, { key: 'outro', type: 'string', target: 'deal.name' }] },
      ['fields.1.target'],
    ],
    ['an unknown action', { flows: [{ action: 'send_email' }] }, ['flows.0.action']],
    [
      'an unknown action property',
      { fields: [deal], flows: [{ action: 'create_deal', stage: 'won' }] },
      ['flows.0.stage'],
    ],
    [
      'a deal name template with an undeclared key',
      { fields: [deal], flows: [{ action: 'create_deal', name: '{{produto}} {{ cliente }}' }] },
      ['flows.0.name'],
    ],
    [
      'task templates with undeclared keys',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'Ligar {{nome}}', category: '{{tipo}}' },
        ],
      },
      ['flows.1.name', 'flows.1.category'],
    ],
    [
      'a create_task with no create_deal',
      {
        fields: [phone],
        flows: [
          { action: 'upsert_contact', match_on: ['phone'] },
          { action: 'create_task', name: 'T', category: 'C' },
        ],
      },
      ['flows.1.action'],
    ],
    [
      'a create_task before the create_deal',
      {
        fields: [deal],
        flows: [{ action: 'create_task', name: 'T', category: 'C' }, { action: 'create_deal' }],
      },
      ['flows.0.action'],
    ],
    [
      'a due date from a field that is not a date',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'T', category: 'C', due: { from: 'produto' } },
        ],
      },
      ['flows.1.due.from'],
    ],
    [
      'a due date from an undeclared field',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'T', category: 'C', due: { from: 'data' } },
        ],
      },
      ['flows.1.due.from'],
    ],
    [
      'a condition on an undeclared field',
      { fields: [deal], flows: [{ action: 'create_deal', when: { field: 'origem', op: 'exists' } }] },
      ['flows.0.when.field'],
    ],
    [
      'an equals with no value',
      { fields: [deal], flows: [{ action: 'create_deal', when: { field: 'produto', op: 'equals' } }] },
      ['flows.0.when.value'],
    ],
    [
      'an unknown operator',
      {
        fields: [deal],
        flows: [{ action: 'create_deal', when: { field: 'produto', op: 'matches', value: 'x' } }],
      },
      ['flows.0.when.op'],
    ],
    [
      'an upsert_contact matching on a field nothing fills',
      { fields: [phone], flows: [{ action: 'upsert_contact', match_on: ['phone', 'email'] }] },
      ['flows.0.match_on.1'],
    ],
    [
      'an upsert_contact matching on something else',
      { fields: [phone], flows: [{ action: 'upsert_contact', match_on: ['name'] }] },
      ['flows.0.match_on.0'],
    ],
    [
      'an upsert_company with no cnpj field',
      { fields: [deal], flows: [{ action: 'upsert_company' }] },
      ['flows.0.action'],
    ],
    [
      'a create_deal with no name at all',
      { fields: [phone], flows: [{ action: 'create_deal' }] },
      ['flows.0.name'],
    ],
    [
      'two create_deal actions',
      { fields: [deal], flows: [{ action: 'create_deal' }, { action: 'create_deal', name: 'Outro' }] },
      ['flows.1.action'],
    ],
    [
      'an owner that is neither a user nor a rotation',
      { fields: [deal], flows: [{ action: 'create_deal', owner: { team: 3 } }] },
      ['flows.0.owner'],
    ],
    [
      'an empty rotation',
      { fields: [deal], flows: [{ action: 'create_deal', owner: { round_robin: [] } }] },
      ['flows.0.owner.round_robin'],
    ],
  ];

  it.each(cases)('refuses %s with 422 pointing at the offending element', async (_name, config, paths) => {
    const { key } = await newAccount();
    const body = await expectProblem(await post(key, { name: 'Bad', ...config }), 422, 'validation_failed');
    expect(body.errors.map((e: Json) => e.path).sort()).toEqual([...paths].sort());
    expect(await listIds(key, {})).toEqual([]);
  });

  it('accepts custom field targets of contact and deal, fields with no target, and received_at as due', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'cor', type: 'string', target: 'contact.custom_fields.cor' },
        { key: 'quando', type: 'date', target: 'contact.custom_fields.quando' },
        { key: 'qtd', type: 'number', target: 'deal.custom_fields.qtd-itens_2' },
        { key: 'titulo', type: 'string' },
      ],
      flows: [
        { action: 'create_deal', name: 'Pedido {{titulo}} {{qtd}}' },
        { action: 'create_task', name: 'T', category: 'C', due: { from: 'received_at', days: -1 } },
        { action: 'create_task', name: 'U', category: 'C', due: { from: 'quando' } },
      ],
    });
    expect(hook.fields).toHaveLength(4);
    expect(hook.flows).toHaveLength(3);
  });

  it("refuses owners that are not users of the account, another account's users included", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const mine = await newUser(a.key, 'Mine');
    const theirs = await newUser(b.key, 'Theirs');
    const body = await expectProblem(
      await post(a.key, {
        name: 'X',
        fields: [{ key: 'produto', type: 'string', target: 'deal.name' }],
        flows: [
          { action: 'create_deal', owner: { user_id: theirs.id } },
          {
            action: 'create_task',
            name: 'T',
            category: 'C',
            owner: { round_robin: [theirs.id, mine.id, 999_999] },
          },
          { action: 'create_task', name: 'U', category: 'C', owner: { user_id: mine.id } },
        ],
      }),
      422,
      'validation_failed',
    );
    expect(body.errors).toEqual([
      expect.objectContaining({ path: 'flows.0.owner.user_id', code: 'not_found' }),
      expect.objectContaining({ path: 'flows.1.owner.round_robin.0', code: 'not_found' }),
      expect.objectContaining({ path: 'flows.1.owner.round_robin.2', code: 'not_found' }),
    ]);
    expect(await listIds(a.key, {})).toEqual([]);
  });
});
