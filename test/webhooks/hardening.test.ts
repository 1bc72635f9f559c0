import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { leaves } from '../../src/core/json-paths';
import {
  accountsOnShard,
  call,
  callWithDb,
  create,
  expectProblem,
  json,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';
import { runEvent } from '../queue/webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const nome = { key: 'nome', type: 'string', target: 'contact.name' } as const;
const telefone = { key: 'telefone', type: 'phone', target: 'contact.phone' } as const;

describe('ingest refuses what could not be stored or read back', () => {
  it('a body nested deeper than 32 levels is a 400, and nothing is stored', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const deep = `${'{"a":'.repeat(33)}1${'}'.repeat(33)}`;
    await expectProblem(await postEvent(hook.path, deep), 400, 'body_too_deep');
    const ok = `${'{"a":'.repeat(32)}1${'}'.repeat(32)}`;
    expect((await postEvent(hook.path, ok)).status).toBe(204);
    const events = await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }));
    expect(events.data.map((e: { status: string }) => e.status)).toEqual(['pending', 'rejected']);
  });

  it('a number JSON.parse reads as Infinity (1e400) does not fit a number field', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'valor', type: 'number', required: true }] });
    const body = await expectProblem(await postEvent(hook.path, '{"valor": 1e400}'), 400, 'invalid_fields');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'valor', code: 'invalid_type' })]);
  });
});

describe('configuration rules found in review', () => {
  const refused = async (body: Record<string, unknown>, path: string) => {
    const { key } = await newAccount();
    const res = await call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'X', ...body } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
  };

  it('a create_deal before the upsert_contact it would link is a 422', () =>
    refused(
      {
        fields: [nome, telefone],
        flows: [
          { action: 'create_deal', name: '{{nome}}' },
          { action: 'upsert_contact', match_on: ['phone'] },
        ],
      },
      'flows.0.action',
    ));

  it('a custom field named __proto__ is a 422, as on /v1', () =>
    refused(
      { fields: [{ key: 'x', type: 'string', target: 'contact.custom_fields.__proto__' }] },
      'fields.0.target',
    ));

  it('an equals whose value is of another kind than its field is a 422', () =>
    refused(
      {
        fields: [nome, { key: 'idade', type: 'number' }],
        flows: [
          {
            action: 'upsert_contact',
            match_on: ['phone'],
            when: { field: 'idade', op: 'equals', value: '30' },
          },
        ],
      },
      'flows.0.when.value',
    ));
});

it('new flows start their round-robin rotations afresh', async () => {
  const { key } = await newAccount();
  const a = await create(key, '/v1/users', { name: 'A', email: 'a@x.com' });
  const b = await create(key, '/v1/users', { name: 'B', email: 'b@x.com' });
  const flows = [{ action: 'create_deal', name: '{{nome}}', owner: { round_robin: [a.id, b.id] } }];
  const hook = await newWebhook(key, { fields: [nome], flows });
  const ownerOf = async (body: object) => {
    const event = await runEvent(key, hook, body);
    return (await json(await call(`/v1/deals/${event.result.deal_id}`, { key }))).data.owner_id;
  };
  expect(await ownerOf({ nome: 'Um' })).toBe(a.id);
  expect(await ownerOf({ nome: 'Dois' })).toBe(b.id);
  expect(
    (await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { flows } })).status,
  ).toBe(200);
  expect(await ownerOf({ nome: 'Três' })).toBe(a.id);
});

it('sample fields leave out keys a dot path cannot name', () => {
  expect(leaves({ 'a.b': 1, 'c d': 2, '': 3, ok: { 'x.y': 4, z: 5 } })).toEqual([['ok.z', 5]]);
});

it('an event whose custom fields would take a contact past 100 leaves the new one out with a warning, and updates the rest', async () => {
  const { key } = await newAccount();
  const full = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i]));
  const contact = await create(key, '/v1/contacts', {
    name: 'Ana',
    phone: '+5511987654321',
    custom_fields: full,
  });
  const hook = await newWebhook(key, {
    fields: [
      nome,
      telefone,
      { key: 'carro', type: 'string', target: 'contact.custom_fields.carro' },
      { key: 'f1', type: 'string', target: 'contact.custom_fields.f1' },
    ],
    flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
  });
  const event = await runEvent(key, hook, {
    nome: 'Ana Maria',
    telefone: '11 98765-4321',
    carro: 'Onix',
    f1: 'um',
  });
  expect(event).toMatchObject({ status: 'processed', error: null, result: { contact_id: contact.id } });
  expect(event.warnings).toEqual([
    {
      path: 'carro',
      code: 'dropped',
      params: { record: 'contact', cause: { code: 'custom_fields_full', params: { max: 100 } } },
      message: expect.stringContaining('100 custom fields already'),
    },
  ]);
  const after = (await json(await call(`/v1/contacts/${contact.id}`, { key }))).data;
  // A key the contact has already fits and is updated; so is the name.
  expect(after).toMatchObject({ name: 'Ana Maria', custom_fields: { ...full, f1: 'um' } });
  expect(Object.keys(after.custom_fields)).toHaveLength(100);
});

it('a PUT checked against a configuration that changes before it writes is a 409, and writes nothing', async () => {
  const { key } = await newAccount();
  const email = { key: 'email', type: 'email', target: 'contact.email' };
  const hook = await newWebhook(key, {
    fields: [nome, telefone, email],
    flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
  });
  // This PUT matches on email too, valid with the fields it reads. Between its read and its write
  // another client removes the email field, valid with the flows that one reads: both applied
  // would leave flows matching on a field nothing fills.
  let batches = 0;
  const racing = {
    withSession: (constraint: string) => {
      const session = env.DB.withSession(constraint);
      return {
        prepare: (query: string) => session.prepare(query),
        getBookmark: () => session.getBookmark(),
        batch: async (statements: D1PreparedStatement[]) => {
          const result = await session.batch(statements);
          batches += 1;
          if (batches === 1) {
            const other = await call(`/v1/inbound-webhooks/${hook.id}`, {
              method: 'PUT',
              key,
              body: { fields: [nome, telefone] },
            });
            expect(other.status).toBe(200);
          }
          return result;
        },
      };
    },
  } as unknown as D1Database;
  const res = await callWithDb(racing, `/v1/inbound-webhooks/${hook.id}`, {
    method: 'PUT',
    key,
    body: { flows: [{ action: 'upsert_contact', match_on: ['phone', 'email'] }] },
  });
  await expectProblem(res, 409, 'conflict');
  const stored = (await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data;
  expect(stored.flows).toEqual([{ action: 'upsert_contact', match_on: ['phone'] }]);
  expect(stored.fields.map((f: { key: string }) => f.key)).toEqual(['nome', 'telefone']);
});
