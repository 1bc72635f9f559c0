import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../../cnpj';
import {
  accountsOnShard,
  call,
  callWithDb,
  create,
  expectProblem,
  type Json,
  json,
  keyWith,
  newAccount,
  recordingD1,
  roundTrips,
} from '../../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

let serial = 0;
const cnpj = () => withCheckDigits(`${32_000_000 + ++serial}0001`);

const batch = (key: string, resource: string, body: Json, headers?: Record<string, string>) =>
  call(`/v1/${resource}/batch`, { method: 'POST', key, body, headers });

const count = async (key: string, path: string) => (await json(await call(path, { key }))).data.length;

describe('POST /v1/{resource}/batch', () => {
  it('non-atomic: creates, upserts by masked CNPJ, fails one alone; 207 in request order, in 2 round trips', async () => {
    const { key } = await newAccount();
    const known = cnpj();
    const existing = await create(key, '/v1/companies', { name: 'Old name', cnpj: known, segment: 'Frota' });
    const fresh = cnpj();
    const res = await batch(key, 'companies', {
      items: [
        { op: 'create', data: { name: 'Nova', cnpj: fresh, external_id: 'ERP-1' } },
        { op: 'upsert', data: { name: 'New name', cnpj: mask(known) } },
        { op: 'create', data: { name: '', cnpj: cnpj() } },
        { op: 'update', id: existing.id, data: { observations: 'x' } },
      ],
    });
    expect(res.status).toBe(207);
    expect(roundTrips(res)).toBe(2);
    const { data } = await json(res);
    expect(data.map((d: Json) => [d.index, d.status])).toEqual([
      [0, 201],
      [1, 200],
      [2, 422],
      [3, 409],
    ]);
    expect(data[0].data).toMatchObject({ name: 'Nova', cnpj: fresh, external_id: 'ERP-1' });
    // An upsert updates only what it sends.
    expect(data[1].data).toMatchObject({ id: existing.id, name: 'New name', segment: 'Frota' });
    // The problem the single call gives: the same code and errors.
    const single = await json(
      await call('/v1/companies', { method: 'POST', key, body: { name: '', cnpj: cnpj() } }),
    );
    expect(data[2].error).toMatchObject({ code: single.code, status: 422, errors: single.errors });
    // The same record twice in one batch: the second is refused, not half-applied.
    expect(data[3].error).toMatchObject({ code: 'conflict', status: 409 });
    expect(await count(key, '/v1/companies')).toBe(2);
  });

  it('200 when every item succeeds; an upsert by external_id updates, then a re-run changes nothing', async () => {
    const { key } = await newAccount();
    const items = [
      { op: 'upsert', data: { name: 'Onix', external_id: 'D-1', value: 10 } },
      { op: 'upsert', data: { name: 'Cruze', external_id: 'D-2' } },
    ];
    const first = await batch(key, 'deals', { items });
    expect(first.status).toBe(200);
    const created = (await json(first)).data;
    expect(created.map((d: Json) => d.status)).toEqual([201, 201]);
    const again = await batch(key, 'deals', { items });
    expect(again.status).toBe(200);
    const second = (await json(again)).data;
    expect(second.map((d: Json) => d.status)).toEqual([200, 200]);
    expect(second.map((d: Json) => d.data.id)).toEqual(created.map((d: Json) => d.data.id));
    expect(await count(key, '/v1/deals')).toBe(2);
  });

  it('atomic: the first failing item as the problem with its index, and nothing written', async () => {
    const { key } = await newAccount();
    const res = await batch(key, 'companies', {
      atomic: true,
      items: [
        { op: 'create', data: { name: 'A', cnpj: cnpj() } },
        { op: 'create', data: { name: 'B', cnpj: '11.111.111/1111-11' } },
      ],
    });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.index).toBe(1);
    expect(await count(key, '/v1/companies')).toBe(0);
    const ok = await batch(key, 'companies', {
      atomic: true,
      items: [{ op: 'create', data: { name: 'A', cnpj: cnpj() } }],
    });
    expect(ok.status).toBe(200);
  });

  it('contacts: upsert by email, then by phone in any mask; relations by natural key', async () => {
    const { key } = await newAccount();
    const taxId = cnpj();
    const company = await create(key, '/v1/companies', { name: 'Auto Lima', cnpj: taxId });
    const owner = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const byEmail = await create(key, '/v1/contacts', { name: 'Bruno', email: 'bruno@example.com' });
    const byPhone = await create(key, '/v1/contacts', { name: 'Caio', phone: '+5511987654321' });
    const res = await batch(key, 'contacts', {
      items: [
        {
          op: 'upsert',
          data: { name: 'Bruno L', email: 'BRUNO@example.com', company: { cnpj: mask(taxId) } },
        },
        {
          op: 'upsert',
          data: { name: 'Caio M', phone: '(11) 98765-4321', owner: { email: 'ANA@example.com' } },
        },
        { op: 'upsert', data: { name: 'Duda', email: 'duda@example.com', company: { cnpj: cnpj() } } },
      ],
    });
    expect(res.status).toBe(207);
    const { data } = await json(res);
    expect(data[0].data).toMatchObject({ id: byEmail.id, name: 'Bruno L', company_id: company.id });
    expect(data[1].data).toMatchObject({ id: byPhone.id, name: 'Caio M', owner_id: owner.id });
    expect(data[2].error.errors).toEqual([
      expect.objectContaining({ path: 'company.cnpj', code: 'not_found' }),
    ]);
  });

  it('tasks by deal external_id, deals by contact and company keys', async () => {
    const { key } = await newAccount();
    const taxId = cnpj();
    await create(key, '/v1/companies', { name: 'Auto Lima', cnpj: taxId });
    await create(key, '/v1/contacts', { name: 'Bruno', phone: '11 98765-4321' });
    const deals = await batch(key, 'deals', {
      items: [
        {
          op: 'upsert',
          data: {
            name: 'Onix',
            external_id: 'D-9',
            company: { cnpj: taxId },
            contact: { phone: '+55 (11) 98765-4321' },
          },
        },
      ],
    });
    expect(deals.status).toBe(200);
    const deal = (await json(deals)).data[0].data;
    expect(deal.company_id).toEqual(expect.any(Number));
    expect(deal.contact_id).toEqual(expect.any(Number));
    const tasks = await batch(key, 'tasks', {
      items: [
        {
          op: 'upsert',
          data: { name: 'Call', category: 'Ligação', external_id: 'T-1', deal: { external_id: 'D-9' } },
        },
      ],
    });
    expect(tasks.status).toBe(200);
    expect((await json(tasks)).data[0].data).toMatchObject({ deal_id: deal.id, external_id: 'T-1' });
  });

  it("another account's natural keys and ids never resolve", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const theirCnpj = cnpj();
    const theirs = await create(b.key, '/v1/companies', {
      name: 'Theirs',
      cnpj: theirCnpj,
      external_id: 'X',
    });
    const theirUser = await create(b.key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const theirDeal = await create(b.key, '/v1/deals', { name: 'D', external_id: 'DX' });
    const res = await batch(a.key, 'contacts', {
      items: [
        { op: 'create', data: { name: 'C1', company: { cnpj: theirCnpj } } },
        { op: 'create', data: { name: 'C2', company: { external_id: 'X' } } },
        { op: 'create', data: { name: 'C3', owner: { email: 'bia@example.com' } } },
        { op: 'create', data: { name: 'C4', company_id: theirs.id, owner_id: theirUser.id } },
        { op: 'update', id: theirs.id, data: { name: 'mine now' } },
      ],
    });
    const { data } = await json(res);
    expect(data.map((d: Json) => d.status)).toEqual([422, 422, 422, 422, 404]);
    const tasks = await json(
      await batch(a.key, 'tasks', {
        items: [{ op: 'create', data: { name: 'T', category: 'x', deal: { external_id: 'DX' } } }],
      }),
    );
    expect(tasks.data[0].status).toBe(422);
    // An upsert by their CNPJ creates a company of A's own: B's is untouched.
    const up = await json(
      await batch(a.key, 'companies', { items: [{ op: 'upsert', data: { name: 'Mine', cnpj: theirCnpj } }] }),
    );
    expect(up.data[0].status).toBe(201);
    expect(up.data[0].data.id).not.toBe(theirs.id);
    const still = await json(await call(`/v1/companies/${theirs.id}`, { key: b.key }));
    expect(still.data.name).toBe('Theirs');
    expect(theirDeal.id).toEqual(expect.any(Number));
  });

  it('scopes per operation: :insert for creates, :update for updates, both for upserts', async () => {
    const { id, key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'A', cnpj: cnpj() });
    const inserter = await keyWith(id, ['companies:insert']);
    const updater = await keyWith(id, ['companies:update']);
    const create1 = { op: 'create', data: { name: 'B', cnpj: cnpj() } };
    const update1 = { op: 'update', id: company.id, data: { name: 'A2' } };
    expect((await batch(inserter, 'companies', { items: [create1] })).status).toBe(200);
    expect((await batch(updater, 'companies', { items: [update1] })).status).toBe(200);
    const upsert = { op: 'upsert', data: { name: 'C', cnpj: cnpj() } };
    const refused = await expectProblem(await batch(inserter, 'companies', { items: [upsert] }), 403);
    expect(refused.required_scope).toBe('companies:update');
    await expectProblem(await batch(updater, 'companies', { items: [create1] }), 403);
    expect(await count(key, '/v1/companies')).toBe(2);
  });

  it('Idempotency-Key: a retry gets the first answer and writes nothing again', async () => {
    const { key } = await newAccount();
    const body = { items: [{ op: 'create', data: { name: 'A', cnpj: cnpj() } }] };
    const headers = { 'Idempotency-Key': 'batch-1' };
    const first = await batch(key, 'companies', body, headers);
    expect(first.status).toBe(200);
    const again = await batch(key, 'companies', body, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await json(again)).toEqual(await json(first));
    expect(await count(key, '/v1/companies')).toBe(1);
  });

  it('hostile bodies: prototype keys, 101 items, a relation that is not one key', async () => {
    const { key } = await newAccount();
    const proto = await call('/v1/contacts/batch', {
      method: 'POST',
      key,
      body: '{"items":[{"op":"create","data":{"name":"A","__proto__":{"x":1}}},{"op":"create","data":{"name":"B","constructor":"y"}},{"op":"create","data":{"name":"C","company":{"__proto__":"1"}}}]}',
    });
    const { data } = await json(proto);
    expect(data.map((d: Json) => d.status)).toEqual([422, 422, 422]);
    expect(({} as Json).x).toBeUndefined();
    const many = Array.from({ length: 101 }, () => ({ op: 'create', data: { name: 'x' } }));
    await expectProblem(await batch(key, 'contacts', { items: many }), 422);
    const two = await json(
      await batch(key, 'contacts', {
        items: [{ op: 'create', data: { name: 'x', company: { cnpj: cnpj(), external_id: 'a' } } }],
      }),
    );
    expect(two.data[0].status).toBe(422);
    expect(await count(key, '/v1/contacts')).toBe(0);
  });

  it('100 tasks with owners and categories: 2 round trips, statements within D1 limits', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await create(key, '/v1/deals', { name: 'D', external_id: 'D-1' });
    const items = Array.from({ length: 100 }, (_, i) => ({
      op: 'upsert',
      data: {
        name: `T${i}`,
        category: `Cat ${i}`,
        external_id: `T-${i}`,
        deal: { external_id: 'D-1' },
        owner: { email: 'ana@example.com' },
      },
    }));
    const recorder = recordingD1(env.DB);
    const res = await callWithDb(recorder.db, '/v1/tasks/batch', { method: 'POST', key, body: { items } });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(2);
    const { data } = await json(res);
    expect(data.every((d: Json) => d.data.owner_ids[0] === user.id)).toBe(true);
    const most = Math.max(...recorder.statements.map((s) => s.params.length));
    expect(most).toBeLessThanOrEqual(100);
    // 9 per task (category, task, owners unlinked and linked, the change journal's 4, read back),
    // plus the reads: within D1's 1,000 per invocation (docs/import-export.md).
    expect(recorder.statements.length).toBeLessThanOrEqual(1000);
  });

  it('a record in the trash: an update by id is a 404, an upsert by its key a 409, no twin created', async () => {
    const { key } = await newAccount();
    const taxId = cnpj();
    const company = await create(key, '/v1/companies', { name: 'A', cnpj: taxId, external_id: 'E-1' });
    expect((await call(`/v1/companies/${company.id}`, { method: 'DELETE', key })).status).toBe(204);
    const { data } = await json(
      await batch(key, 'companies', {
        items: [
          { op: 'update', id: company.id, data: { name: 'B' } },
          { op: 'upsert', data: { name: 'C', cnpj: mask(taxId) } },
          { op: 'upsert', data: { name: 'D', cnpj: cnpj(), external_id: 'E-1' } },
        ],
      }),
    );
    expect(data.map((d: Json) => d.status)).toEqual([404, 409, 409]);
    expect(await count(key, '/v1/companies')).toBe(0);
  });
});
