import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  create,
  expectProblem,
  ISO_MS,
  idsOf,
  type Json,
  json,
  list,
  ms,
  newAccount,
  roundTrips,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 86_400_000;

const remove = (key: string, path: string) => call(path, { method: 'DELETE', key });
const restore = (key: string, path: string) => call(`${path}/restore`, { method: 'POST', key });

/** An account with one row of every resource with a trash, linked to each other. */
async function seeded(tag = 'a') {
  const account = await newAccount();
  const { key } = account;
  const user = await create(key, '/v1/users', { name: 'Ana', email: `ana.${tag}@example.com` });
  const company = await create(key, '/v1/companies', {
    name: 'Auto Lima',
    cnpj: '11.222.333/0001-81',
    owner_id: user.id,
    follower_ids: [user.id],
  });
  const contact = await create(key, '/v1/contacts', {
    name: 'Bruno',
    email: `bruno.${tag}@example.com`,
    company_id: company.id,
    owner_id: user.id,
  });
  const deal = await create(key, '/v1/deals', {
    name: 'Onix',
    company_id: company.id,
    contact_id: contact.id,
    owner_id: user.id,
  });
  const task = await create(key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Call',
    category: 'Ligação',
    owner_id: user.id,
  });
  return { ...account, user, company, contact, deal, task };
}

const resources = [
  ['/v1/users', 'user'],
  ['/v1/companies', 'company'],
  ['/v1/contacts', 'contact'],
  ['/v1/deals', 'deal'],
  ['/v1/tasks', 'task'],
] as const;

async function deletedAtOf(table: string, id: number): Promise<number | null> {
  const row = await env.DB.prepare(`select deleted_at from ${table} where id = ?`)
    .bind(id)
    .first<{ deleted_at: number | null }>();
  if (!row) throw new Error(`no ${table} ${id}`);
  return row.deleted_at;
}

describe('DELETE, the trash and restore, on every resource with a trash', () => {
  it.each(resources)(
    '%s: 204, then gone from GET, PUT, the list and a second DELETE; in the trash; restored',
    async (path, kind) => {
      const s = await seeded();
      const at = `${path}/${s[kind].id}`;
      // Read now: a company's counts moved since it was created.
      const row: Json = (await json(await call(at, { key: s.key }))).data;
      const before = Date.now();

      const res = await remove(s.key, at);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(roundTrips(res)).toBe(1);

      await expectProblem(await call(at, { key: s.key }), 404, 'not_found');
      await expectProblem(
        await call(at, { method: 'PUT', key: s.key, body: { name: 'X' } }),
        404,
        'not_found',
      );
      await expectProblem(await remove(s.key, at), 404, 'not_found');
      expect(idsOf(await list(s.key, path))).not.toContain(row.id);

      const trashRes = await call(`${path}?deleted=true`, { key: s.key });
      expect(roundTrips(trashRes)).toBe(1);
      const trash = (await json(trashRes)).data;
      const trashed = trash.find((r: Json) => r.id === row.id);
      expect(trashed).toEqual({ ...row, deleted_at: expect.stringMatching(ISO_MS) });
      expect(ms(trashed.deleted_at)).toBeGreaterThanOrEqual(before);
      expect(idsOf(await list(s.key, `${path}?deleted=false`))).not.toContain(row.id);

      const back = await restore(s.key, at);
      expect(back.status).toBe(200);
      expect(roundTrips(back)).toBe(1);
      // As it was: the restore does not count as an update.
      expect((await json(back)).data).toEqual(row);
      expect((await json(await call(at, { key: s.key }))).data).toEqual(row);
      expect(idsOf(await list(s.key, path))).toContain(row.id);
      expect(idsOf(await list(s.key, `${path}?deleted=true`))).not.toContain(row.id);
      await expectProblem(await restore(s.key, at), 404, 'not_found');
    },
  );

  it.each(resources)(
    '%s: a missing id is a 404 for DELETE and restore, and so is a live row for restore',
    async (path, kind) => {
      const s = await seeded();
      await expectProblem(await remove(s.key, `${path}/999999`), 404, 'not_found');
      await expectProblem(await restore(s.key, `${path}/999999`), 404, 'not_found');
      await expectProblem(await restore(s.key, `${path}/${s[kind].id}`), 404, 'not_found');
    },
  );

  it.each(resources)(
    '%s: another account can neither see, delete nor restore it, nor see its trash',
    async (path, kind) => {
      const a = await seeded('a');
      const b = await seeded('b');
      const mine = `${path}/${a[kind].id}`;
      await expectProblem(await remove(b.key, mine), 404, 'not_found');
      expect(await deletedAtOf(path.slice(4), a[kind].id)).toBeNull();
      expect((await remove(a.key, mine)).status).toBe(204);
      await expectProblem(await restore(b.key, mine), 404, 'not_found');
      expect(idsOf(await list(b.key, `${path}?deleted=true`))).toEqual([]);
      expect(await deletedAtOf(path.slice(4), a[kind].id)).not.toBeNull();
      expect((await restore(a.key, mine)).status).toBe(200);
    },
  );

  it.each(resources)(
    '%s: a row trashed more than 30 days ago is out of the trash list, and not restorable',
    async (path, kind) => {
      const s = await seeded();
      const at = `${path}/${s[kind].id}`;
      expect((await remove(s.key, at)).status).toBe(204);
      await env.DB.prepare(`update ${path.slice(4)} set deleted_at = ? where id = ?`)
        .bind(Date.now() - 30 * DAY - 1000, s[kind].id)
        .run();
      expect(idsOf(await list(s.key, `${path}?deleted=true`))).toEqual([]);
      await expectProblem(await restore(s.key, at), 404, 'not_found');
    },
  );

  it('a restore retried with the same Idempotency-Key gets the first answer again', async () => {
    const s = await seeded();
    const at = `/v1/deals/${s.deal.id}`;
    expect((await remove(s.key, at)).status).toBe(204);
    const send = () =>
      call(`${at}/restore`, { method: 'POST', key: s.key, headers: { 'Idempotency-Key': 'restore-1' } });
    const first = await send();
    expect(first.status).toBe(200);
    const body = await first.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await remove(s.key, at)).status).toBe(204);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.text()).toBe(body);
    // Replayed, not run: the deal is still in the trash.
    expect(idsOf(await list(s.key, '/v1/deals?deleted=true'))).toEqual([s.deal.id]);
  });

  it('a query parameter meant for another route is a 400 on DELETE, and nothing is deleted', async () => {
    const s = await seeded();
    const res = await call(`/v1/deals/${s.deal.id}?erase=true`, { method: 'DELETE', key: s.key });
    await expectProblem(res, 400, 'invalid_query');
    expect(await deletedAtOf('deals', s.deal.id)).toBeNull();
    await expectProblem(
      await call(`/v1/contacts/${s.contact.id}?erase=yes`, { method: 'DELETE', key: s.key }),
      400,
      'invalid_query',
    );
    expect(await deletedAtOf('contacts', s.contact.id)).toBeNull();
    await expectProblem(await call('/v1/deals?deleted=maybe', { key: s.key }), 400, 'invalid_query');
  });

  it('the trash pages and sorts like the list, and takes its filters', async () => {
    const { key } = await newAccount();
    const ids: number[] = [];
    for (const name of ['Carla', 'ana', 'Bia', 'Davi']) {
      ids.push((await create(key, '/v1/contacts', { name, phone: '11987654321' })).id);
    }
    const kept = await create(key, '/v1/contacts', { name: 'Alice' });
    for (const id of ids) expect((await remove(key, `/v1/contacts/${id}`)).status).toBe(204);
    const byName = async (sort: string) => {
      const seen: number[] = [];
      let url: string | null = `/v1/contacts?deleted=true&sort=${sort}&limit=1`;
      while (url) {
        const page: Json = await list(key, url);
        seen.push(...idsOf(page));
        url = page.meta.next_cursor
          ? `/v1/contacts?deleted=true&sort=${sort}&limit=1&cursor=${encodeURIComponent(page.meta.next_cursor)}`
          : null;
      }
      return seen;
    };
    const [carla, ana, bia, davi] = ids as [number, number, number, number];
    expect(await byName('name')).toEqual([ana, bia, carla, davi]);
    expect(await byName('-name')).toEqual([davi, carla, bia, ana]);
    expect(idsOf(await list(key, '/v1/contacts?deleted=true'))).toEqual([davi, bia, ana, carla]);
    expect(idsOf(await list(key, '/v1/contacts?deleted=true&name__contains=a'))).toEqual([
      davi,
      bia,
      ana,
      carla,
    ]);
    expect(idsOf(await list(key, '/v1/contacts?deleted=true&name__contains=bi'))).toEqual([bia]);
    expect(idsOf(await list(key, '/v1/contacts?deleted=true&sort=created_at&name__contains=vi'))).toEqual([
      davi,
    ]);
    expect(idsOf(await list(key, '/v1/contacts?name__contains=a'))).toEqual([kept.id]);
    expect(idsOf(await list(key, '/v1/contacts?phone=11987654321'))).toEqual([]);
  });
});

describe('what the trash hides', () => {
  it('search, filters and counts leave trashed rows out', async () => {
    const s = await seeded();
    const company = () => call(`/v1/companies/${s.company.id}`, { key: s.key }).then(json);
    expect((await company()).data).toMatchObject({ deal_count: 1, lead_count: 1 });
    expect(await remove(s.key, `/v1/contacts/${s.contact.id}`)).toHaveProperty('status', 204);
    expect(await remove(s.key, `/v1/deals/${s.deal.id}`)).toHaveProperty('status', 204);
    expect((await company()).data).toMatchObject({ deal_count: 0, lead_count: 0 });
    expect(idsOf(await list(s.key, '/v1/contacts?name__contains=bru'))).toEqual([]);
    expect(idsOf(await list(s.key, `/v1/contacts?company_id=${s.company.id}`))).toEqual([]);
    expect(idsOf(await list(s.key, `/v1/deals?owner_id=${s.user.id}`))).toEqual([]);
    expect(idsOf(await list(s.key, `/v1/tasks?deal_id=${s.deal.id}`))).toEqual([]);
    expect(idsOf(await list(s.key, '/v1/deals?deleted=true'))).toEqual([s.deal.id]);

    expect(await remove(s.key, `/v1/users/${s.user.id}`)).toHaveProperty('status', 204);
    expect(idsOf(await list(s.key, '/v1/users?name__contains=ana'))).toEqual([]);
    expect(idsOf(await list(s.key, `/v1/users?email=ana.a@example.com`))).toEqual([]);
    expect(await remove(s.key, `/v1/companies/${s.company.id}`)).toHaveProperty('status', 204);
    expect(idsOf(await list(s.key, '/v1/companies?cnpj=11222333000181'))).toEqual([]);
    expect(idsOf(await list(s.key, '/v1/companies?name__contains=lima'))).toEqual([]);
  });

  it("a task in the trash leaves its category's task_count, and counts again once restored", async () => {
    const s = await seeded();
    const second = await create(s.key, '/v1/tasks', {
      deal_id: s.deal.id,
      name: 'Again',
      category: 'ligação',
    });
    const count = async () => (await list(s.key, '/v1/task-categories')).data[0].task_count;
    expect(await count()).toBe(2);
    expect((await remove(s.key, `/v1/tasks/${second.id}`)).status).toBe(204);
    expect(await count()).toBe(1);
    expect((await remove(s.key, `/v1/deals/${s.deal.id}`)).status).toBe(204);
    expect(await count()).toBe(0);
    expect((await restore(s.key, `/v1/deals/${s.deal.id}`)).status).toBe(200);
    expect(await count()).toBe(1);
    expect((await restore(s.key, `/v1/tasks/${second.id}`)).status).toBe(200);
    expect(await count()).toBe(2);
  });

  it('a new write cannot reference a trashed row: the same 422 as a missing one, and nothing written', async () => {
    const s = await seeded();
    for (const [path, id] of [
      ['/v1/users', s.user.id],
      ['/v1/companies', s.company.id],
      ['/v1/contacts', s.contact.id],
      ['/v1/deals', s.deal.id],
    ] as const) {
      expect((await remove(s.key, `${path}/${id}`)).status).toBe(204);
    }
    const refused = async (path: string, body: Json, field: string) => {
      const problem = await expectProblem(await call(path, { method: 'POST', key: s.key, body }), 422);
      expect(problem.errors).toEqual([expect.objectContaining({ path: field, code: 'not_found' })]);
    };
    await refused('/v1/contacts', { name: 'X', owner_id: s.user.id }, 'owner_id');
    await refused('/v1/contacts', { name: 'X', company_id: s.company.id }, 'company_id');
    await refused('/v1/deals', { name: 'X', contact_id: s.contact.id }, 'contact_id');
    await refused('/v1/tasks', { name: 'X', deal_id: s.deal.id, category: 'C' }, 'deal_id');
    await refused(
      '/v1/companies',
      { name: 'X', cnpj: '12345678000195', follower_ids: [s.user.id] },
      'follower_ids.0',
    );
    const put = await call(`/v1/deals/${s.deal.id}`, { method: 'PUT', key: s.key, body: { name: 'Y' } });
    await expectProblem(put, 404, 'not_found');
    expect(idsOf(await list(s.key, '/v1/contacts'))).toEqual([]);
  });

  it('a task create whose deal goes to the trash after its check is the same 422, and writes nothing', async () => {
    const s = await seeded();
    // The deal is trashed between the create's check and its write: inside the write's batch,
    // right before the task's insert, by a trigger on the category the batch creates first.
    const trigger = `trash_deal_${s.id}`;
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} AFTER INSERT ON task_categories WHEN NEW.account_id = ${s.id} BEGIN UPDATE deals SET deleted_at = 1 WHERE id = ${s.deal.id}; END`,
    );
    try {
      const res = await call('/v1/tasks', {
        method: 'POST',
        key: s.key,
        body: { deal_id: s.deal.id, name: 'Late', category: 'Nova' },
      });
      const problem = await expectProblem(res, 422, 'validation_failed');
      expect(problem.errors).toEqual([expect.objectContaining({ code: 'not_found' })]);
    } finally {
      await env.DB.exec(`DROP TRIGGER ${trigger}`);
    }
    expect(await deletedAtOf('deals', s.deal.id)).toBeNull();
    expect(idsOf(await list(s.key, '/v1/tasks'))).toEqual([s.task.id]);
    expect((await list(s.key, '/v1/task-categories')).data).toHaveLength(1);
  });

  it("a trashed user's email and a trashed company's CNPJ stay taken until the purge: 409", async () => {
    const s = await seeded();
    expect((await remove(s.key, `/v1/users/${s.user.id}`)).status).toBe(204);
    expect((await remove(s.key, `/v1/companies/${s.company.id}`)).status).toBe(204);
    const user = await call('/v1/users', {
      method: 'POST',
      key: s.key,
      body: { name: 'A', email: 'ANA.a@example.com' },
    });
    await expectProblem(user, 409, 'conflict');
    const company = await call('/v1/companies', {
      method: 'POST',
      key: s.key,
      body: { name: 'A', cnpj: '11222333000181' },
    });
    await expectProblem(company, 409, 'conflict');
  });
});

describe('references', () => {
  it("a deal's tasks go to the trash with it and come back with it; one deleted before stays in the trash", async () => {
    const s = await seeded();
    const earlier = await create(s.key, '/v1/tasks', { deal_id: s.deal.id, name: 'Earlier', category: 'X' });
    expect((await remove(s.key, `/v1/tasks/${earlier.id}`)).status).toBe(204);
    const res = await remove(s.key, `/v1/deals/${s.deal.id}`);
    expect(res.status).toBe(204);
    expect(roundTrips(res)).toBe(1);
    await expectProblem(await call(`/v1/tasks/${s.task.id}`, { key: s.key }), 404);
    expect(idsOf(await list(s.key, '/v1/tasks?deleted=true')).sort()).toEqual([s.task.id, earlier.id].sort());

    // A task whose deal is in the trash comes back with its deal only.
    const blocked = await restore(s.key, `/v1/tasks/${s.task.id}`);
    expect((await expectProblem(blocked, 409, 'conflict')).detail).toMatch(/deal is in the trash/);
    expect(await deletedAtOf('tasks', s.task.id)).not.toBeNull();

    expect((await restore(s.key, `/v1/deals/${s.deal.id}`)).status).toBe(200);
    expect((await json(await call(`/v1/tasks/${s.task.id}`, { key: s.key }))).data).toEqual(s.task);
    expect(idsOf(await list(s.key, '/v1/tasks?deleted=true'))).toEqual([earlier.id]);
    expect((await restore(s.key, `/v1/tasks/${earlier.id}`)).status).toBe(200);
  });

  it('a deleted company or contact stays referenced by its contacts and deals, which stay live', async () => {
    const s = await seeded();
    expect((await remove(s.key, `/v1/companies/${s.company.id}`)).status).toBe(204);
    expect((await remove(s.key, `/v1/contacts/${s.contact.id}`)).status).toBe(204);
    const deal = (await json(await call(`/v1/deals/${s.deal.id}`, { key: s.key }))).data;
    expect(deal).toEqual(s.deal);
    expect(idsOf(await list(s.key, `/v1/deals?company_id=${s.company.id}`))).toEqual([s.deal.id]);
    const trashed = (await list(s.key, '/v1/contacts?deleted=true')).data;
    expect(trashed).toEqual([{ ...s.contact, deleted_at: expect.stringMatching(ISO_MS) }]);
    // A PUT that changes nothing else keeps the reference; naming the trashed row again is refused.
    const put = await call(`/v1/deals/${s.deal.id}`, { method: 'PUT', key: s.key, body: { name: 'Onix 2' } });
    expect((await json(put)).data).toMatchObject({ company_id: s.company.id, contact_id: s.contact.id });
  });

  it('a deleted user stays the owner and follower of its records, hidden from lists, until the purge', async () => {
    const s = await seeded();
    expect((await remove(s.key, `/v1/users/${s.user.id}`)).status).toBe(204);
    const company = (await json(await call(`/v1/companies/${s.company.id}`, { key: s.key }))).data;
    expect(company).toMatchObject({ owner_id: s.user.id, follower_ids: [s.user.id] });
    expect((await json(await call(`/v1/tasks/${s.task.id}`, { key: s.key }))).data.owner_ids).toEqual([
      s.user.id,
    ]);
    expect(idsOf(await list(s.key, '/v1/users'))).toEqual([]);
  });
});
