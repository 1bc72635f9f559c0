import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  create,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  ISO_MS,
  type Json,
  json,
  ms,
  newAccount,
  newUser,
  writable,
} from '../../helpers';
import {
  addOwners,
  get,
  insertCategory,
  insertTask,
  listIds,
  post,
  put,
  taskWithEveryField,
} from './support';

describe('tasks: update', () => {
  it('PUT is partial: absent fields stay and null clears description and due_date', async () => {
    const { key, owner, task } = await taskWithEveryField('Partial');

    const renamed = await put(key, task.id, { name: '  Renamed  ' });
    expect(renamed.status).toBe(200);
    const afterRename = (await json(renamed)).data;
    expect(afterRename).toEqual({ ...task, name: 'Renamed', updated_at: expect.stringMatching(ISO_MS) });
    expect(afterRename).not.toHaveProperty('owner_id');

    const cleared = (await json(await put(key, task.id, { description: null, due_date: null }))).data;
    expect(cleared).toEqual({
      ...task,
      name: 'Renamed',
      description: null,
      due_date: null,
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(await get(key, task.id)).toEqual(cleared);

    const redated = (await json(await put(key, task.id, { due_date: '2026-06-01T09:00:00+02:00' }))).data;
    expect(redated.due_date).toBe('2026-06-01T07:00:00.000Z');

    const empty = await put(key, task.id, {});
    expect(empty.status).toBe(200);
    expect((await json(empty)).data).toMatchObject({
      name: 'Renamed',
      description: null,
      due_date: '2026-06-01T07:00:00.000Z',
      category: task.category,
      owner_ids: [owner.id],
    });
  });

  it('updated_at strictly increases on every PUT while created_at stays', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'T', category: 'Call' });
    let previous = task.updated_at;
    for (const body of [
      { name: 'T1' },
      { is_completed: true },
      { is_completed: true },
      {},
      { category: 'Mail' },
    ]) {
      const res = await put(key, task.id, body);
      expect(res.status).toBe(200);
      const { data } = await json(res);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(ms(data.updated_at), JSON.stringify(body)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(task.created_at);
      previous = data.updated_at;
    }
  });

  it('still moves updated_at forward when the stored one is ahead of the clock', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const categoryId = await insertCategory(accountId, 'Future');
    const id = await insertTask(accountId, { dealId, categoryId, created: Date.now() + 3_600_000 });
    const stored = await get(key, id);
    const once = (await json(await put(key, id, { name: 'Future 1' }))).data;
    expect(ms(once.updated_at)).toBeGreaterThan(ms(stored.updated_at));
    const twice = (await json(await put(key, id, { name: 'Future 2' }))).data;
    expect(ms(twice.updated_at)).toBeGreaterThan(ms(once.updated_at));
    expect(twice.created_at).toBe(stored.created_at);
  });

  it('deal_id is immutable: the same value is accepted, any other is 422', async () => {
    const { key, dealId } = await accountWithDeal();
    const otherDeal = await create(key, '/v1/deals', { name: 'Second deal' });
    const foreign = await accountWithDeal('Foreign');
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Pinned', category: 'Call' });

    const same = await put(key, task.id, { deal_id: dealId, name: 'Still pinned' });
    expect(same.status).toBe(200);
    const kept = (await json(same)).data;
    expect(kept).toMatchObject({ deal_id: dealId, name: 'Still pinned' });

    const moved = await expectProblem(
      await put(key, task.id, { deal_id: otherDeal.id }),
      422,
      'validation_failed',
    );
    expect(moved.errors).toEqual([expect.objectContaining({ path: 'deal_id', code: 'immutable' })]);

    for (const deal_id of [foreign.dealId, dealId + 100_000, null, 'x']) {
      const problem = await expectProblem(await put(key, task.id, { deal_id }), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(deal_id)).toBe('deal_id');
    }
    // A rejected PUT changes nothing, the other fields it carried included.
    await expectProblem(await put(key, task.id, { deal_id: otherDeal.id, name: 'Moved' }), 422);
    expect(await get(key, task.id)).toEqual(kept);
    expect(await listIds(key, { deal_id: String(otherDeal.id) })).toEqual([]);
  });

  it.each([
    ['name null', { name: null }, 'name'],
    ['name blank', { name: '  ' }, 'name'],
    ['name of 256', { name: 'x'.repeat(256) }, 'name'],
    ['category null', { category: null }, 'category'],
    ['category empty', { category: '' }, 'category'],
    ['category of 256', { category: 'c'.repeat(256) }, 'category'],
    ['description of 10,001', { description: 'd'.repeat(10_001) }, 'description'],
    ['due_date date-only', { due_date: '2026-12-01' }, 'due_date'],
    ['due_date Feb 30', { due_date: '2026-02-30T10:00:00Z' }, 'due_date'],
    ['due_date garbage', { due_date: 'soon' }, 'due_date'],
    ['due_date number', { due_date: 1_796_130_000_000 }, 'due_date'],
    ['is_completed "yes"', { is_completed: 'yes' }, 'is_completed'],
    ['is_completed 1', { is_completed: 1 }, 'is_completed'],
    ['is_completed null', { is_completed: null }, 'is_completed'],
    ['owner_id unknown', { owner_id: 999_999 }, 'owner_id'],
    ['owner_id "x"', { owner_id: 'x' }, 'owner_id'],
  ] as [string, Record<string, unknown>, string][])(
    'PUT with %s is 422 on path %s and changes nothing',
    async (_, body, path) => {
      const { key, task } = await taskWithEveryField('Stable');
      const problem = await expectProblem(await put(key, task.id, { name: 'Changed', ...body }), 422);
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors.map((e: Json) => e.path)).toContain(path);
      expect(await get(key, task.id)).toEqual(task);
    },
  );

  it('PUT refuses read-only fields and unknown ones, changing nothing', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'RO', category: 'Call' });
    await expectReadOnly(
      await put(key, task.id, {
        id: task.id + 7,
        created_at: '2001-01-01T00:00:00.000Z',
        updated_at: '2001-01-01T00:00:00.000Z',
        completed_at: '2001-01-01T00:00:00.000Z',
        name: 'RO2',
        priority: 'high',
      }),
      ['id', 'created_at', 'updated_at', 'completed_at'],
      { unknown: ['priority'] },
    );
    await expectUnknownField(await put(key, task.id, { priority: 'high' }), 'priority');
    expect(await get(key, task.id)).toEqual(task);
  });

  it('accepts back, unchanged, what GET returned without its read-only fields (open and completed tasks)', async () => {
    const { key, task } = await taskWithEveryField('Round trip');
    for (const state of [false, true]) {
      if (state) expect((await put(key, task.id, { is_completed: true })).status).toBe(200);
      const before = await get(key, task.id);
      const res = await put(key, task.id, writable(before, ['owner_ids', 'completed_at']));
      expect(res.status).toBe(200);
      const after = (await json(res)).data;
      expect(after).toEqual({ ...before, updated_at: expect.stringMatching(ISO_MS) });
      expect(ms(after.updated_at)).toBeGreaterThan(ms(before.updated_at));
    }
  });
});

describe('tasks: owners', () => {
  it('owner_id replaces every owner; null removes all; a PUT without it keeps them', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const u1 = await newUser(key, 'U1');
    const u2 = await newUser(key, 'U2');
    const u3 = await newUser(key, 'U3');
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'Owned',
      category: 'Call',
      owner_id: u3.id,
    });
    expect(task.owner_ids).toEqual([u3.id]);

    await addOwners(accountId, task.id, [u2.id, u1.id]);
    expect((await get(key, task.id)).owner_ids).toEqual([u1.id, u2.id, u3.id]);

    const kept = (await json(await put(key, task.id, { name: 'Still owned', description: 'x' }))).data;
    expect(kept.owner_ids).toEqual([u1.id, u2.id, u3.id]);

    const replaced = await put(key, task.id, { owner_id: u2.id });
    expect(replaced.status).toBe(200);
    const afterReplace = (await json(replaced)).data;
    expect(afterReplace).toEqual({ ...kept, owner_ids: [u2.id], updated_at: expect.stringMatching(ISO_MS) });
    expect((await get(key, task.id)).owner_ids).toEqual([u2.id]);

    const same = (await json(await put(key, task.id, { owner_id: u2.id }))).data;
    expect(same.owner_ids).toEqual([u2.id]);

    const removed = (await json(await put(key, task.id, { owner_id: null }))).data;
    expect(removed.owner_ids).toEqual([]);
    expect((await get(key, task.id)).owner_ids).toEqual([]);
    expect(await listIds(key, { owner_id: `${u1.id},${u2.id},${u3.id}` })).toEqual([]);

    const again = (await json(await put(key, task.id, { owner_id: u1.id }))).data;
    expect(again.owner_ids).toEqual([u1.id]);
    expect(await listIds(key, { owner_id: String(u1.id) })).toEqual([task.id]);
    expect(await listIds(key, { owner_id: String(u2.id) })).toEqual([]);
  });

  it('owner_ids in a write body is a 422 read_only that says to write owner_id; nothing changes', async () => {
    const { key, dealId } = await accountWithDeal();
    const u1 = await newUser(key, 'U1');
    const u2 = await newUser(key, 'U2');
    const u3 = await newUser(key, 'U3');
    const base = { deal_id: dealId, name: 'Owners', category: 'Call' };
    await expectReadOnly(
      await post(key, { ...base, owner_id: u1.id, owner_ids: [u2.id, u3.id] }),
      ['owner_ids'],
      {
        writes: { owner_ids: 'owner_id' },
      },
    );
    const task = await create(key, '/v1/tasks', { ...base, owner_id: u1.id });
    expect(task.owner_ids).toEqual([u1.id]);

    for (const body of [
      { owner_ids: [u2.id, u3.id] },
      { owner_ids: [] },
      { owner_ids: null },
      { owner_id: u3.id, owner_ids: [u1.id, u2.id] },
    ]) {
      await expectReadOnly(await put(key, task.id, body), ['owner_ids'], {
        writes: { owner_ids: 'owner_id' },
      });
    }
    expect(await get(key, task.id)).toEqual(task);
    expect(await listIds(key, { owner_id: `${u2.id},${u3.id}` })).toEqual([]);
  });

  it('a rejected owner_id leaves the owners as they were', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const other = await newAccount('Other');
    const stranger = await newUser(other.key, 'Stranger');
    const u1 = await newUser(key, 'U1');
    const u2 = await newUser(key, 'U2');
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'Owned',
      category: 'Call',
      owner_id: u1.id,
    });
    await addOwners(accountId, task.id, [u2.id]);
    for (const owner_id of [999_999, stranger.id]) {
      const problem = await expectProblem(await put(key, task.id, { owner_id }), 422, 'validation_failed');
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);
    }
    expect((await get(key, task.id)).owner_ids).toEqual([u1.id, u2.id]);
  });
});
