import { describe, expect, it } from 'vitest';
import { call, create, expectProblem, type Json, json, keyWith, newAccount } from '../helpers';

const feed = async (key: string, query = ''): Promise<Json> => {
  const res = await call(`/v1/events${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return json(res);
};

const put = (key: string, path: string, body: Json) => call(path, { method: 'PUT', key, body });

describe('GET /v1/events', () => {
  it('is newest first by default, oldest first with sort=occurred_at, each entry as the API shows it', async () => {
    const { key, keyId } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    expect(
      (await put(key, `/v1/companies/${company.id}`, { name: 'Acme SA', segment: 'Retail' })).status,
    ).toBe(200);
    const newest = await feed(key);
    expect(newest.data.map((e: Json) => e.type)).toEqual(['company.updated', 'company.created']);
    const oldest = await feed(key, '?sort=occurred_at');
    expect(oldest.data.map((e: Json) => e.type)).toEqual(['company.created', 'company.updated']);
    const [, updated] = oldest.data;
    expect(updated).toMatchObject({
      record_type: 'company',
      record_id: company.id,
      version: 2,
      actor: { type: 'api_key', id: keyId },
      changed_fields: ['name', 'segment'],
      previous: { name: 'Acme', segment: null },
    });
    expect(updated.id).toMatch(/^evt_[0-9a-f]{24}$/);
    // `data` is exactly what GET answers.
    const got = await json(await call(`/v1/companies/${company.id}`, { key }));
    expect(updated.data).toEqual(got.data);
    expect(oldest.data[0].changed_fields).toBeNull();
  });

  it('a poller following next_cursor misses nothing and sees nothing twice, with writes between its polls', async () => {
    const { key } = await newAccount();
    const seen: string[] = [];
    let cursor: string | null = null;
    let made = 0;
    // Oldest first the feed never ends: next_cursor is always where to resume.
    const poll = async () => {
      for (;;) {
        const page: Json = await feed(key, `?sort=occurred_at&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.data.map((e: Json) => e.id));
        expect(page.meta.next_cursor).toEqual(expect.any(String));
        cursor = page.meta.next_cursor;
        if (!page.data.length) return;
      }
    };
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        await create(key, '/v1/users', { name: `U${made}`, email: `u${made}@x.com` });
        made++;
      }
      await poll();
    }
    expect(seen).toHaveLength(made);
    expect(new Set(seen).size).toBe(made);
  });

  it('filters by type (exact and wildcard), record, and time', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'U', email: 'u@x.com' });
    const deal = await create(key, '/v1/deals', { name: 'D' });
    await put(key, `/v1/deals/${deal.id}`, { status: 'won' });
    const types = async (query: string) => (await feed(key, query)).data.map((e: Json) => e.type);
    expect(await types('?type=deal.*&sort=occurred_at')).toEqual(['deal.created', 'deal.updated']);
    expect(await types('?type=deal.updated,user.created&sort=occurred_at')).toEqual([
      'user.created',
      'deal.updated',
    ]);
    expect(await types(`?record_type=user&record_id=${user.id}`)).toEqual(['user.created']);
    expect(await types('?occurred_at__gte=2000-01-01')).toHaveLength(3);
    expect(await types('?occurred_at__lte=2000-01-01')).toEqual([]);
    for (const bad of [
      '?type=__proto__',
      '?type=constructor.*',
      '?record_type=constructor',
      '?sort=seq',
      '?cursor=abc',
    ]) {
      await expectProblem(await call(`/v1/events${bad}`, { key }), 400);
    }
  });

  it('needs events:read, and shows contact entries only to a key that may read contacts', async () => {
    const { id, key } = await newAccount();
    await create(key, '/v1/contacts', { name: 'Ana' });
    await create(key, '/v1/users', { name: 'U', email: 'u@x.com' });
    await expectProblem(await call('/v1/events', { key: await keyWith(id, ['contacts:read']) }), 403);
    const noContacts = await keyWith(id, ['events:read', 'users:read']);
    expect((await feed(noContacts)).data.map((e: Json) => e.type)).toEqual(['user.created']);
    const both = await keyWith(id, ['events:read', '*:read']);
    expect((await feed(both)).data.map((e: Json) => e.type)).toEqual(['user.created', 'contact.created']);
  });

  it("never shows another account's entries, nor their history", async () => {
    const mine = await newAccount();
    const theirs = await newAccount('Other');
    const company = await create(theirs.key, '/v1/companies', { name: 'Theirs', cnpj: '11222333000181' });
    expect((await feed(mine.key, `?record_type=company&record_id=${company.id}`)).data).toEqual([]);
    expect((await feed(mine.key)).data).toEqual([]);
    await expectProblem(await call(`/v1/companies/${company.id}/history`, { key: mine.key }), 404);
  });
});

describe('GET /v1/{resource}/{id}/history', () => {
  it("is the record's timeline, oldest first, through delete and restore, and a task's completion", async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'D' });
    const task = await create(key, '/v1/tasks', { name: 'T', deal_id: deal.id, category: 'Call' });
    await put(key, `/v1/tasks/${task.id}`, { is_completed: true });
    await put(key, `/v1/tasks/${task.id}`, { is_completed: false });
    expect((await call(`/v1/deals/${deal.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(`/v1/deals/${deal.id}/restore`, { method: 'POST', key })).status).toBe(200);
    const res = await call(`/v1/tasks/${task.id}/history`, { key });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((e: Json) => [e.type, e.version])).toEqual([
      ['task.created', 1],
      ['task.completed', 2],
      ['task.reopened', 3],
      ['task.deleted', 4],
      ['task.restored', 5],
    ]);
    expect(data[1]).toMatchObject({
      changed_fields: ['is_completed', 'completed_at'],
      previous: { is_completed: false },
    });
    await expectProblem(await call('/v1/tasks/999999999/history', { key }), 404);
  });
});
