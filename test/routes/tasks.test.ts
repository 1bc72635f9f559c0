import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  allIds,
  call,
  create,
  expectCursorRefused,
  expectLimitsRefused,
  expectNotFound,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  expectUnknownQueries,
  ISO_MS,
  idsOf,
  insertRow,
  type Json,
  json,
  list,
  ms,
  newAccount,
  newUser,
  pageWithNext,
  qs,
  resource,
  roundTrips,
  writable,
} from '../helpers';
import { deref } from '../openapi';

const { get, listIds, put } = resource('/v1/tasks');

const post = (key: string, body: unknown) => call('/v1/tasks', { method: 'POST', key, body });

/** A category row written straight to D1 (ASCII names only: name_norm is their lower case). */
const insertCategory = (accountId: number, name: string): Promise<number> =>
  insertRow('task_categories', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    created_at: Date.now(),
  });

type TaskRow = {
  dealId: number;
  categoryId: number;
  created: number;
  updated?: number;
  due?: number | null;
  completed?: number | null;
  name?: string;
};

/** A task row written straight to D1, so its timestamps (epoch ms) can be chosen. */
const insertTask = (accountId: number, t: TaskRow): Promise<number> =>
  insertRow('tasks', {
    account_id: accountId,
    name: t.name ?? 'Task',
    deal_id: t.dealId,
    category_id: t.categoryId,
    due_date: t.due ?? null,
    completed_at: t.completed ?? null,
    created_at: t.created,
    updated_at: t.updated ?? t.created,
  });

/** Extra owners written straight to D1: the API itself only ever sets one. */
async function addOwners(accountId: number, taskId: number, userIds: number[]): Promise<void> {
  await env.DB.batch(
    userIds.map((userId) =>
      env.DB.prepare('INSERT INTO task_owners (account_id, task_id, user_id) VALUES (?, ?, ?)').bind(
        accountId,
        taskId,
        userId,
      ),
    ),
  );
}

const TASK_KEYS = [
  'category',
  'completed_at',
  'created_at',
  'deal_id',
  'deleted_at',
  'description',
  'due_date',
  'id',
  'is_completed',
  'name',
  'owner_ids',
  'updated_at',
];

describe('tasks: create and read', () => {
  it('creates a task with every field: 201, Location, UTC due date, and GET returns the same', async () => {
    const { key, dealId } = await accountWithDeal();
    const owner = await newUser(key, 'Owner');
    const res = await post(key, {
      deal_id: dealId,
      name: '  Call the client  ',
      description: 'Ask about the renewal',
      due_date: '2026-12-01T10:00:00-03:00',
      category: 'Ligação',
      owner_id: owner.id,
    });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/tasks/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      deal_id: dealId,
      name: 'Call the client',
      description: 'Ask about the renewal',
      due_date: '2026-12-01T13:00:00.000Z',
      category: 'Ligação',
      owner_ids: [owner.id],
      is_completed: false,
      completed_at: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      deleted_at: null,
    });
    expect(Object.keys(data).sort()).toEqual(TASK_KEYS);
    expect(data).not.toHaveProperty('owner_id');
    expect(data.updated_at).toBe(data.created_at);
    expect(Math.abs(ms(data.created_at) - Date.now())).toBeLessThan(60_000);

    const read = await get(key, data.id);
    expect(read).toEqual(data);
    expect(read).not.toHaveProperty('owner_id');
  });

  it('defaults description and due_date to null, owner_ids to [] and is_completed to false', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Minimal', category: 'Call' });
    expect(task).toEqual({
      id: expect.any(Number),
      deal_id: dealId,
      name: 'Minimal',
      description: null,
      due_date: null,
      category: 'Call',
      owner_ids: [],
      is_completed: false,
      completed_at: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      deleted_at: null,
    });
    expect(await get(key, task.id)).toEqual(task);
  });

  it.each(['deal_id', 'name', 'category'])('requires %s on POST (422 required)', async (field) => {
    const { key, dealId } = await accountWithDeal();
    const body: Record<string, unknown> = { deal_id: dealId, name: 'N', category: 'Call' };
    delete body[field];
    const problem = await expectProblem(await post(key, body), 422, 'validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: field, code: 'required' })]);
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
  });

  it('names every missing required field at once', async () => {
    const { key } = await accountWithDeal();
    const problem = await expectProblem(
      await post(key, { description: 'only this' }),
      422,
      'validation_failed',
    );
    const required = problem.errors.filter((e: Json) => e.code === 'required').map((e: Json) => e.path);
    expect(required.sort()).toEqual(['category', 'deal_id', 'name']);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['256 characters', 'x'.repeat(256)],
    ['null', null],
    ['a number', 5],
  ])('rejects a name that is %s with 422 on path name', async (_, name) => {
    const { key, dealId } = await accountWithDeal();
    const problem = await expectProblem(
      await post(key, { deal_id: dealId, name, category: 'Call' }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].path).toBe('name');
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
  });

  it('trims name and category and accepts 255 characters for each', async () => {
    const { key, dealId } = await accountWithDeal();
    const long = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: ` ${'n'.repeat(255)} `,
      category: ` ${'c'.repeat(255)} `,
    });
    expect(long.name).toBe('n'.repeat(255));
    expect(long.category).toBe('c'.repeat(255));
    const trimmed = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: '\tT ',
      category: '  Meeting  ',
    });
    expect(trimmed).toMatchObject({ name: 'T', category: 'Meeting' });
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['256 characters', 'x'.repeat(256)],
    ['null', null],
    ['a number', 7],
    ['an array', ['Call']],
  ])('rejects a category that is %s with 422 on path category', async (_, category) => {
    const { key, dealId } = await accountWithDeal();
    const problem = await expectProblem(
      await post(key, { deal_id: dealId, name: 'N', category }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].path).toBe('category');
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
  });

  it('accepts a description up to 10,000 characters or null, and rejects 10,001 or a non-string', async () => {
    const { key, dealId } = await accountWithDeal();
    const base = { deal_id: dealId, name: 'D', category: 'Call' };
    const max = await create(key, '/v1/tasks', { ...base, description: 'd'.repeat(10_000) });
    expect(max.description).toBe('d'.repeat(10_000));
    expect((await get(key, max.id)).description).toHaveLength(10_000);
    expect((await create(key, '/v1/tasks', { ...base, description: null })).description).toBeNull();
    for (const description of ['d'.repeat(10_001), 42, { text: 'x' }]) {
      const problem = await expectProblem(
        await post(key, { ...base, description }),
        422,
        'validation_failed',
      );
      expect(problem.errors[0].path).toBe('description');
    }
    expect((await list(key, '/v1/tasks')).data).toHaveLength(2);
  });

  it.each([
    ['2026-12-01T10:00:00-03:00', '2026-12-01T13:00:00.000Z'],
    ['2026-12-01T13:00:00Z', '2026-12-01T13:00:00.000Z'],
    ['2026-12-01T13:00:00.123Z', '2026-12-01T13:00:00.123Z'],
    ['2026-12-01T18:30:00+05:30', '2026-12-01T13:00:00.000Z'],
    ['2026-12-01T01:00:00.5+12:00', '2026-11-30T13:00:00.500Z'],
    ['2026-12-31T23:30:00-02:00', '2027-01-01T01:30:00.000Z'],
  ])('accepts due_date %s and returns it in UTC as %s', async (input, expected) => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'D',
      category: 'Call',
      due_date: input,
    });
    expect(task.due_date).toBe(expected);
    expect((await get(key, task.id)).due_date).toBe(expected);
  });

  it.each([
    ['a date without a time', '2026-12-01'],
    ['garbage', 'next tuesday'],
    ['an impossible date', '2026-02-30T10:00:00Z'],
    ['an impossible hour', '2026-12-01T25:00:00Z'],
    ['a month 13', '2026-13-01T10:00:00Z'],
    ['a number', 1_796_130_000_000],
    ['a boolean', true],
    ['an empty string', ''],
    ['a date-time without an offset', '2026-12-01T10:00:00'],
    ['after year 9999 once in UTC', '9999-12-31T23:59:59-00:01'],
    ['before year 0000 once in UTC', '0000-01-01T00:00:00+00:01'],
  ])('rejects a due_date that is %s with 422 on path due_date', async (_, due_date) => {
    const { key, dealId } = await accountWithDeal();
    const problem = await expectProblem(
      await post(key, { deal_id: dealId, name: 'D', category: 'Call', due_date }),
      422,
      'validation_failed',
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'due_date' })]);
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
  });

  it('rejects a deal_id that is not a deal of the account with 422 not_found', async () => {
    const { key, dealId } = await accountWithDeal();
    const other = await accountWithDeal('Other');
    for (const deal_id of [dealId + 100_000, other.dealId]) {
      const problem = await expectProblem(
        await post(key, { deal_id, name: 'N', category: 'Call' }),
        422,
        'validation_failed',
      );
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'deal_id', code: 'not_found' })]);
    }
    for (const deal_id of [0, -1, 1.5, 'x', String(dealId), null]) {
      const problem = await expectProblem(
        await post(key, { deal_id, name: 'N', category: 'Call' }),
        422,
        'validation_failed',
      );
      expect(problem.errors[0].path, JSON.stringify(deal_id)).toBe('deal_id');
    }
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
    expect((await list(other.key, '/v1/tasks')).data).toEqual([]);
  });

  it('rejects an owner_id that is not a user of the account with 422 not_found', async () => {
    const { key, dealId } = await accountWithDeal();
    const other = await newAccount('Other');
    const stranger = await newUser(other.key, 'Stranger');
    for (const owner_id of [999_999, stranger.id]) {
      const problem = await expectProblem(
        await post(key, { deal_id: dealId, name: 'N', category: 'Call', owner_id }),
        422,
        'validation_failed',
      );
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);
    }
    for (const owner_id of [0, -2, 2.5, 'x', [1]]) {
      const problem = await expectProblem(
        await post(key, { deal_id: dealId, name: 'N', category: 'Call', owner_id }),
        422,
        'validation_failed',
      );
      expect(problem.errors[0].path, JSON.stringify(owner_id)).toBe('owner_id');
    }
    const both = await expectProblem(
      await post(key, { deal_id: dealId + 100_000, name: 'N', category: 'Call', owner_id: 999_999 }),
      422,
    );
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['deal_id', 'owner_id']);
    expect((await list(key, '/v1/tasks')).data).toEqual([]);
  });

  it('accepts owner_id null on POST as "no owners"', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'N',
      category: 'Call',
      owner_id: null,
    });
    expect(task.owner_ids).toEqual([]);
  });

  it('refuses read-only fields (owner_ids and completed_at included) with read_only, and unknown fields', async () => {
    const { key, dealId } = await accountWithDeal();
    const user = await newUser(key, 'U');
    const readOnly = {
      id: 424_242,
      owner_ids: [user.id],
      completed_at: '2001-01-01T00:00:00.000Z',
      created_at: '2001-01-01T00:00:00.000Z',
      updated_at: '2001-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await post(key, { deal_id: dealId, name: 'RO', category: 'Call', ...readOnly }),
      Object.keys(readOnly),
      { writes: { owner_ids: 'owner_id', completed_at: 'is_completed' } },
    );
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'RO', category: 'Call' });
    expect(task.owner_ids).toEqual([]);
    expect(task.completed_at).toBeNull();
    expect(Math.abs(ms(task.created_at) - Date.now())).toBeLessThan(60_000);
    expect(task.updated_at).toBe(task.created_at);

    for (const field of ['priority', 'category_id', 'account_id', 'owners']) {
      await expectUnknownField(
        await post(key, { deal_id: dealId, name: 'U', category: 'Call', [field]: 1 }),
        field,
      );
    }
    expect(idsOf(await list(key, '/v1/tasks'))).toEqual([task.id]);
  });

  it('answers 404 for a non-existent id and for malformed path ids', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Real', category: 'Call' });
    await expectNotFound(key, '/v1/tasks', task.id + 100_000, [
      'abc',
      '0',
      '-1',
      '1.5',
      '007',
      '1e3',
      '99999999999999999',
    ]);
    expect((await get(key, task.id)).name).toBe('Real');
  });

  it('requires a valid API key', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Real', category: 'Call' });
    await expectProblem(await call('/v1/tasks'), 401, 'unauthorized');
    await expectProblem(await call(`/v1/tasks/${task.id}`), 401, 'unauthorized');
    await expectProblem(
      await call('/v1/tasks', { method: 'POST', body: { deal_id: dealId, name: 'N', category: 'C' } }),
      401,
    );
    await expectProblem(await call('/v1/tasks', { key: `crm_${'A'.repeat(43)}` }), 401, 'unauthorized');
    expect(idsOf(await list(key, '/v1/tasks'))).toEqual([task.id]);
  });
});

describe('tasks: update', () => {
  it('PUT is partial: absent fields stay and null clears description and due_date', async () => {
    const { key, dealId } = await accountWithDeal();
    const owner = await newUser(key, 'Owner');
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'Partial',
      description: 'Text',
      due_date: '2026-05-01T12:00:00Z',
      category: 'Call',
      owner_id: owner.id,
    });

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
      category: 'Call',
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
      const { key, dealId } = await accountWithDeal();
      const owner = await newUser(key, 'Owner');
      const task = await create(key, '/v1/tasks', {
        deal_id: dealId,
        name: 'Stable',
        description: 'Keep',
        due_date: '2026-03-01T00:00:00Z',
        category: 'Call',
        owner_id: owner.id,
      });
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
    const { key, dealId } = await accountWithDeal();
    const owner = await newUser(key, 'Owner');
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'Round trip',
      description: 'Body',
      due_date: '2026-04-01T10:00:00Z',
      category: 'Visita',
      owner_id: owner.id,
    });
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

describe('tasks: completion', () => {
  it('completes, completes again (keeping completed_at) and reopens, changing nothing else', async () => {
    const { key, dealId } = await accountWithDeal();
    const owner = await newUser(key, 'Owner');
    const task = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'State',
      description: 'Desc',
      due_date: '2026-07-01T15:00:00Z',
      category: 'Call',
      owner_id: owner.id,
    });
    expect(task).toMatchObject({ is_completed: false, completed_at: null });

    const done = await put(key, task.id, { is_completed: true });
    expect(done.status).toBe(200);
    const completed = (await json(done)).data;
    expect(completed).toEqual({
      ...task,
      is_completed: true,
      completed_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Math.abs(ms(completed.completed_at) - Date.now())).toBeLessThan(60_000);
    expect(ms(completed.completed_at)).toBeGreaterThanOrEqual(ms(task.created_at));
    expect(await get(key, task.id)).toEqual(completed);

    const again = (await json(await put(key, task.id, { is_completed: true }))).data;
    expect(again).toEqual({ ...completed, updated_at: expect.stringMatching(ISO_MS) });
    expect(again.completed_at).toBe(completed.completed_at);
    expect(ms(again.updated_at)).toBeGreaterThan(ms(completed.updated_at));

    // Other edits of a completed task keep it completed and keep completed_at.
    const edited = (await json(await put(key, task.id, { name: 'State 2' }))).data;
    expect(edited).toMatchObject({ is_completed: true, completed_at: completed.completed_at });

    const reopened = (await json(await put(key, task.id, { is_completed: false }))).data;
    expect(reopened).toEqual({
      ...task,
      name: 'State 2',
      is_completed: false,
      completed_at: null,
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(await get(key, task.id)).toEqual(reopened);

    const stillOpen = (await json(await put(key, task.id, { is_completed: false }))).data;
    expect(stillOpen).toMatchObject({ is_completed: false, completed_at: null });

    const redone = (await json(await put(key, task.id, { is_completed: true }))).data;
    expect(redone.is_completed).toBe(true);
    expect(ms(redone.completed_at)).toBeGreaterThanOrEqual(ms(completed.completed_at));
  });

  it('a complete racing a reopen never brings back the old completed_at', async () => {
    const { key, dealId } = await accountWithDeal();
    for (let round = 0; round < 5; round++) {
      const task = await create(key, '/v1/tasks', {
        deal_id: dealId,
        name: `Race ${round}`,
        category: 'Call',
        is_completed: true,
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const [reopen, complete] = await Promise.all([
        put(key, task.id, { is_completed: false }),
        put(key, task.id, { is_completed: true }),
      ]);
      expect([reopen.status, complete.status]).toEqual([200, 200]);
      const final = await get(key, task.id);
      // Either the reopen came last (open), or the complete did, after a reopen: a new time.
      if (final.is_completed) expect(ms(final.completed_at)).toBeGreaterThan(ms(task.completed_at));
      else expect(final.completed_at).toBeNull();
    }
  });

  it('POST with is_completed true sets completed_at; false or absent leaves it null', async () => {
    const { key, dealId } = await accountWithDeal();
    const base = { deal_id: dealId, name: 'C', category: 'Call' };
    const done = await create(key, '/v1/tasks', { ...base, is_completed: true });
    expect(done.is_completed).toBe(true);
    expect(done.completed_at).toMatch(ISO_MS);
    expect(Math.abs(ms(done.completed_at) - Date.now())).toBeLessThan(60_000);
    expect(await get(key, done.id)).toEqual(done);

    const open = await create(key, '/v1/tasks', { ...base, is_completed: false });
    expect(open).toMatchObject({ is_completed: false, completed_at: null });

    // completed_at in a body is read-only, even with is_completed.
    await expectReadOnly(
      await post(key, { ...base, is_completed: true, completed_at: '2001-01-01T00:00:00.000Z' }),
      ['completed_at'],
      { writes: { completed_at: 'is_completed' } },
    );
    expect(idsOf(await list(key, '/v1/tasks')).sort()).toEqual([done.id, open.id].sort());
  });

  it('completed_at in a PUT body is a 422 read_only: it neither completes nor moves completed_at', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'C', category: 'Call' });
    const writes = { completed_at: 'is_completed' };
    await expectReadOnly(
      await put(key, task.id, { completed_at: '2001-01-01T00:00:00.000Z' }),
      ['completed_at'],
      {
        writes,
      },
    );
    expect(await get(key, task.id)).toEqual(task);

    const done = (await json(await put(key, task.id, { is_completed: true }))).data;
    for (const completed_at of ['2001-01-01T00:00:00.000Z', null]) {
      await expectReadOnly(await put(key, task.id, { completed_at }), ['completed_at'], { writes });
    }
    expect(await get(key, task.id)).toEqual(done);
  });

  it.each([['yes'], ['true'], [1], [0], [{}]])(
    'rejects is_completed %j on POST with 422',
    async (is_completed) => {
      const { key, dealId } = await accountWithDeal();
      const problem = await expectProblem(
        await post(key, { deal_id: dealId, name: 'C', category: 'Call', is_completed }),
        422,
        'validation_failed',
      );
      expect(problem.errors[0].path).toBe('is_completed');
      expect((await list(key, '/v1/tasks')).data).toEqual([]);
    },
  );
});

describe('tasks: categories by name', () => {
  it.each([
    ['Ligação', 'LIGAÇÃO'],
    ['Ligação', 'ligação'],
    ['Встреча', 'ВСТРЕЧА'],
    ['E-mail', ' e-MAIL '],
  ])('creates %s on first use and reuses it for %s, keeping the first spelling', async (first, second) => {
    const { key, dealId } = await accountWithDeal();
    const a = await create(key, '/v1/tasks', { deal_id: dealId, name: 'A', category: first });
    expect(a.category).toBe(first);
    const b = await create(key, '/v1/tasks', { deal_id: dealId, name: 'B', category: second });
    expect(b.category).toBe(first);
    expect((await get(key, b.id)).category).toBe(first);

    const categories = await list(key, '/v1/task-categories');
    expect(categories.data).toEqual([{ id: expect.any(Number), name: first, task_count: 2 }]);
  });

  it('keeps different names apart and does not confuse similar ones', async () => {
    const { key, dealId } = await accountWithDeal();
    const names = ['Call', 'Calls', 'Cal', 'Ligacao', 'Ligação'];
    for (const category of names) {
      const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'T', category });
      expect(task.category).toBe(category);
    }
    const categories = await list(key, '/v1/task-categories');
    expect(categories.data.map((c: Json) => c.name).sort()).toEqual([...names].sort());
    expect(categories.data.every((c: Json) => c.task_count === 1)).toBe(true);
  });

  it('PUT category moves the task to another category, created or reused by name', async () => {
    const { key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'T', category: 'Call' });
    const other = await create(key, '/v1/tasks', { deal_id: dealId, name: 'O', category: 'Email' });

    const moved = await put(key, task.id, { category: 'Meeting' });
    expect(moved.status).toBe(200);
    expect((await json(moved)).data).toEqual({
      ...task,
      category: 'Meeting',
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect((await get(key, task.id)).category).toBe('Meeting');

    const reused = (await json(await put(key, task.id, { category: 'EMAIL' }))).data;
    expect(reused.category).toBe('Email');
    expect((await get(key, other.id)).category).toBe('Email');

    const back = (await json(await put(key, task.id, { category: ' call ' }))).data;
    expect(back.category).toBe('Call');
  });

  it('gives each account its own categories, with its own spelling', async () => {
    const a = await accountWithDeal('A');
    const b = await accountWithDeal('B');
    const taskA = await create(a.key, '/v1/tasks', { deal_id: a.dealId, name: 'A', category: 'Follow-up' });
    const taskB = await create(b.key, '/v1/tasks', { deal_id: b.dealId, name: 'B', category: 'FOLLOW-UP' });
    expect(taskA.category).toBe('Follow-up');
    expect(taskB.category).toBe('FOLLOW-UP');
    const catsA = (await list(a.key, '/v1/task-categories')).data;
    const catsB = (await list(b.key, '/v1/task-categories')).data;
    expect(catsA).toEqual([{ id: expect.any(Number), name: 'Follow-up', task_count: 1 }]);
    expect(catsB).toEqual([{ id: expect.any(Number), name: 'FOLLOW-UP', task_count: 1 }]);
    expect(catsA[0].id).not.toBe(catsB[0].id);
  });
});

/** Two deals, three users and seven tasks with known owners, categories, due dates and states. */
async function filterFixture() {
  const { id: accountId, key, dealId: d1 } = await accountWithDeal();
  const d2 = (await create(key, '/v1/deals', { name: 'Second' })).id as number;
  const d3 = (await create(key, '/v1/deals', { name: 'Third, no tasks' })).id as number;
  const [u1, u2, u3] = [
    (await newUser(key, 'U1')).id as number,
    (await newUser(key, 'U2')).id as number,
    (await newUser(key, 'U3')).id as number,
  ];
  const t = async (body: Record<string, unknown>) =>
    (await create(key, '/v1/tasks', { name: 'T', ...body })).id as number;
  const tasks = {
    // deal d1
    call1: await t({ deal_id: d1, category: 'Ligação', owner_id: u1, due_date: '2026-03-04T23:59:59.999Z' }),
    call2: await t({ deal_id: d1, category: 'LIGAÇÃO', owner_id: u1, due_date: '2026-03-05T00:00:00.000Z' }),
    mail1: await t({ deal_id: d1, category: 'Email', owner_id: u2, is_completed: true }),
    // deal d2
    call3: await t({ deal_id: d2, category: 'ligação', owner_id: u2, due_date: '2026-03-05T23:59:59.999Z' }),
    mail2: await t({
      deal_id: d2,
      category: 'email',
      due_date: '2026-03-06T00:00:00.000Z',
      is_completed: true,
    }),
    meet1: await t({ deal_id: d2, category: 'Meeting%', owner_id: u3 }),
    meet2: await t({
      deal_id: d2,
      category: 'Meeting_',
      owner_id: u1,
      due_date: '2026-03-05T12:00:00-03:00',
    }),
  };
  // Several owners: call1 has u1+u2, call3 has u2+u3, meet2 has u1+u2+u3.
  await addOwners(accountId, tasks.call1, [u2]);
  await addOwners(accountId, tasks.call3, [u3]);
  await addOwners(accountId, tasks.meet2, [u2, u3]);
  return { accountId, key, d1, d2, d3, u1, u2, u3, tasks };
}

describe('tasks: list and filters', () => {
  it('returns data and meta with the default limit 25 and honours limit 1..100', async () => {
    const { key, dealId } = await accountWithDeal();
    expect(await list(key, '/v1/tasks')).toEqual({ data: [], meta: { limit: 25, next_cursor: null } });
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Only', category: 'Call' });
    expect(await list(key, '/v1/tasks')).toEqual({ data: [task], meta: { limit: 25, next_cursor: null } });
    expect((await list(key, '/v1/tasks?limit=100')).meta.limit).toBe(100);
    await expectLimitsRefused(key, '/v1/tasks');
  });

  it('lists each task as GET returns it, with all of its owners', async () => {
    const f = await filterFixture();
    const page = await list(f.key, '/v1/tasks?limit=100');
    expect(page.data).toHaveLength(7);
    for (const row of page.data) {
      expect(row).toEqual(await get(f.key, row.id));
      expect(row).not.toHaveProperty('owner_id');
    }
    const byId = new Map(page.data.map((row: Json) => [row.id, row]));
    expect((byId.get(f.tasks.call1) as Json).owner_ids).toEqual([f.u1, f.u2]);
    expect((byId.get(f.tasks.meet2) as Json).owner_ids).toEqual([f.u1, f.u2, f.u3]);
    expect((byId.get(f.tasks.mail2) as Json).owner_ids).toEqual([]);
    expect((byId.get(f.tasks.call3) as Json).category).toBe('Ligação');
  });

  it.each([
    'foo=1',
    'name=T',
    'name__contains=T',
    'status=open',
    'due_date=2026-03-05',
    'due_date__contains=2026',
    'category_id=1',
    'owner_ids=1',
    'completed=true',
    'completed_at__gte=2026-01-01',
  ])('rejects the unknown query parameter %s with 400 invalid_query', async (query) => {
    const { key } = await accountWithDeal();
    await expectUnknownQueries(key, '/v1/tasks', [query]);
  });

  it('filters by deal_id: one id or a comma list', async () => {
    const f = await filterFixture();
    const ids = (deal_id: string) => listIds(f.key, { deal_id, sort: 'created_at' });
    const { call1, call2, mail1, call3, mail2, meet1, meet2 } = f.tasks;
    expect(await ids(String(f.d1))).toEqual([call1, call2, mail1]);
    expect(await ids(String(f.d2))).toEqual([call3, mail2, meet1, meet2]);
    expect(await ids(`${f.d2},${f.d1}`)).toEqual([call1, call2, mail1, call3, mail2, meet1, meet2]);
    expect(await ids(`${f.d1}, ${f.d3}`)).toEqual([call1, call2, mail1]);
    expect(await ids(String(f.d3))).toEqual([]);
    expect(await ids('999999')).toEqual([]);
    const hundred = [f.d2, ...Array.from({ length: 99 }, (_, i) => 900_000 + i)].join(',');
    expect(await ids(hundred)).toEqual([call3, mail2, meet1, meet2]);
  });

  it('filters by category: the exact name, case-insensitive (Unicode), % and _ literal', async () => {
    const f = await filterFixture();
    const ids = (category: string) => listIds(f.key, { category, sort: 'created_at' });
    const { call1, call2, mail1, call3, mail2, meet1, meet2 } = f.tasks;
    for (const spelling of ['Ligação', 'ligação', 'LIGAÇÃO', 'LiGaÇãO']) {
      expect(await ids(spelling), spelling).toEqual([call1, call2, call3]);
    }
    expect(await ids('EMAIL')).toEqual([mail1, mail2]);
    expect(await ids('Meeting%')).toEqual([meet1]);
    expect(await ids('meeting_')).toEqual([meet2]);
    for (const miss of ['Ligacao', 'Liga', 'Mail', 'Meeting', 'Meeting%%', 'Meetingx', 'E%']) {
      expect(await ids(miss), miss).toEqual([]);
    }
    // Category names are stored trimmed, and so is the filter.
    expect(await ids('  ligação ')).toEqual([call1, call2, call3]);
  });

  it('filters by owner_id: one id or a list, matching ANY owner, each task once', async () => {
    const f = await filterFixture();
    const ids = (owner_id: string) => listIds(f.key, { owner_id, sort: 'created_at' });
    const { call1, call2, mail1, call3, meet1, meet2 } = f.tasks;
    expect(await ids(String(f.u1))).toEqual([call1, call2, meet2]);
    expect(await ids(String(f.u2))).toEqual([call1, mail1, call3, meet2]);
    expect(await ids(String(f.u3))).toEqual([call3, meet1, meet2]);
    expect(await ids(`${f.u1},${f.u2}`)).toEqual([call1, call2, mail1, call3, meet2]);
    expect(await ids(`${f.u3},${f.u1},${f.u2}`)).toEqual([call1, call2, mail1, call3, meet1, meet2]);
    expect(await ids('999999')).toEqual([]);
    const hundred = [f.u3, ...Array.from({ length: 99 }, (_, i) => 900_000 + i)].join(',');
    expect(await ids(hundred)).toEqual([call3, meet1, meet2]);

    // A task with several matching owners comes once, on every page size, with all its owners.
    expect(
      await allIds(f.key, `/v1/tasks?${qs({ owner_id: `${f.u1},${f.u2},${f.u3}`, limit: '1' })}`),
    ).toEqual([meet2, meet1, call3, mail1, call2, call1]);
    const filtered = await list(f.key, `/v1/tasks?${qs({ owner_id: String(f.u3), sort: 'created_at' })}`);
    expect(filtered.data.map((row: Json) => row.owner_ids)).toEqual([
      [f.u2, f.u3],
      [f.u3],
      [f.u1, f.u2, f.u3],
    ]);
  });

  it('filters by is_completed true or false', async () => {
    const f = await filterFixture();
    const ids = (is_completed: string) => listIds(f.key, { is_completed, sort: 'created_at' });
    const { call1, call2, mail1, call3, mail2, meet1, meet2 } = f.tasks;
    expect(await ids('true')).toEqual([mail1, mail2]);
    expect(await ids('false')).toEqual([call1, call2, call3, meet1, meet2]);
    expect((await put(f.key, call2, { is_completed: true })).status).toBe(200);
    expect((await put(f.key, mail1, { is_completed: false })).status).toBe(200);
    expect(await ids('true')).toEqual([call2, mail2]);
    expect(await ids('false')).toEqual([call1, mail1, call3, meet1, meet2]);
  });

  it.each(['yes', '1', '0', 'TRUE', 'False', '', 'true,false', 'null'])(
    'rejects is_completed=%s with 400 invalid_query',
    async (is_completed) => {
      const { key } = await accountWithDeal();
      await expectProblem(await call(`/v1/tasks?${qs({ is_completed })}`, { key }), 400, 'invalid_query');
    },
  );

  it.each([
    ['deal_id', 'x'],
    ['deal_id', '0'],
    ['deal_id', '1,x'],
    ['deal_id', '-2'],
    ['deal_id', Array.from({ length: 101 }, (_, i) => i + 1).join(',')],
    ['owner_id', 'x'],
    ['owner_id', '0'],
    ['owner_id', '1,,2'],
    ['owner_id', '1.5'],
    ['due_date__gte', 'yesterday'],
    ['due_date__lte', '2026-13-01'],
    ['due_date__gt', '2026-02-30'],
    ['due_date__lt', '05/03/2026'],
    ['sort', 'name'],
    ['sort', '-name'],
    ['sort', 'category'],
    ['sort', 'is_completed'],
    ['sort', 'id'],
    ['sort', '--due_date'],
  ])('rejects %s=%s with 400 invalid_query', async (param, value) => {
    const { key } = await accountWithDeal();
    await expectProblem(await call(`/v1/tasks?${qs({ [param]: value })}`, { key }), 400, 'invalid_query');
  });

  it('filters by due_date with a YYYY-MM-DD bound covering the whole UTC day; no due date never matches', async () => {
    const f = await filterFixture();
    const ids = (params: Record<string, string>) => listIds(f.key, { sort: 'created_at', ...params });
    const { call1: before, call2: start, call3: end, mail2: after, meet2: inside } = f.tasks;
    const D = '2026-03-05';
    expect(await ids({ due_date__gte: D })).toEqual([start, end, after, inside]);
    expect(await ids({ due_date__lte: D })).toEqual([before, start, end, inside]);
    expect(await ids({ due_date__gt: D })).toEqual([after]);
    expect(await ids({ due_date__lt: D })).toEqual([before]);
    expect(await ids({ due_date__gte: D, due_date__lte: D })).toEqual([start, end, inside]);
    expect(await ids({ due_date__gte: '1970-01-01' })).toEqual([before, start, end, after, inside]);
    expect(await ids({ due_date__lt: '2999-01-01' })).toEqual([before, start, end, after, inside]);
    expect(await ids({ due_date__lte: '2999-01-01T00:00:00Z' })).toEqual([before, start, end, after, inside]);
    expect(await ids({ due_date__gt: '1970-01-01T00:00:00Z' })).toEqual([before, start, end, after, inside]);
  });

  it('filters by due_date with a date-time bound, honouring its offset', async () => {
    const f = await filterFixture();
    const ids = (params: Record<string, string>) => listIds(f.key, { sort: 'created_at', ...params });
    const { call1: before, call2: start, call3: end, mail2: after, meet2: inside } = f.tasks;
    // inside is 2026-03-05T15:00:00.000Z
    expect(await ids({ due_date__gte: '2026-03-05T12:00:00-03:00' })).toEqual([end, after, inside]);
    expect(await ids({ due_date__gt: '2026-03-05T12:00:00-03:00' })).toEqual([end, after]);
    expect(await ids({ due_date__lte: '2026-03-05T15:00:00Z' })).toEqual([before, start, inside]);
    expect(await ids({ due_date__lt: '2026-03-06T00:00:00+08:00' })).toEqual([before, start, inside]);
    expect(await ids({ due_date__gt: '2026-03-05T00:00:00+00:00' })).toEqual([end, after, inside]);
    expect(
      await ids({ due_date__gte: '2026-03-05T00:00:00.000Z', due_date__lt: '2026-03-05T23:59:59.999Z' }),
    ).toEqual([start, inside]);
  });

  it('combines filters (AND between parameters)', async () => {
    const f = await filterFixture();
    const ids = (params: Record<string, string>) => listIds(f.key, { sort: 'created_at', ...params });
    const { call1, call2, mail1, call3, mail2, meet2 } = f.tasks;
    expect(await ids({ deal_id: String(f.d1), owner_id: String(f.u2) })).toEqual([call1, mail1]);
    expect(await ids({ deal_id: String(f.d2), category: 'LIGAÇÃO' })).toEqual([call3]);
    expect(await ids({ category: 'email', is_completed: 'true' })).toEqual([mail1, mail2]);
    expect(await ids({ category: 'email', is_completed: 'false' })).toEqual([]);
    expect(
      await ids({ owner_id: `${f.u1},${f.u3}`, is_completed: 'false', due_date__gte: '2026-03-05' }),
    ).toEqual([call2, call3, meet2]);
    expect(
      await ids({
        deal_id: `${f.d1},${f.d2}`,
        owner_id: String(f.u2),
        category: 'ligação',
        is_completed: 'false',
        due_date__gte: '2026-03-05',
        due_date__lte: '2026-03-05',
      }),
    ).toEqual([call3]);
    expect(await ids({ owner_id: String(f.u3), due_date__lt: '2026-03-05' })).toEqual([]);
    expect(await ids({ deal_id: String(f.d1), sort: 'due_date' })).toEqual([call1, call2, mail1]);
    expect(
      await allIds(f.key, `/v1/tasks?${qs({ owner_id: String(f.u2), sort: '-due_date', limit: '1' })}`),
    ).toEqual([call3, meet2, call1, mail1]);
  });
});

describe('tasks: sort and pagination', () => {
  /**
   * Seven tasks written straight to D1 (ids a < b < ... < g). Due dates tie (a, e) and three are
   * null (b, d, g), so every page size crosses the null boundary somewhere.
   */
  let fixture: Promise<{ key: string; ids: Record<string, number> }> | undefined;
  const sortFixture = () => {
    fixture ??= (async () => {
      const { id: accountId, key } = await newAccount();
      const d1 = (await create(key, '/v1/deals', { name: 'D1' })).id as number;
      const d2 = (await create(key, '/v1/deals', { name: 'D2' })).id as number;
      const categoryId = await insertCategory(accountId, 'Sorting');
      const day = (d: number) => Date.UTC(2026, 0, d);
      const rows: [string, number | null, number, number, number][] = [
        // name, due, deal, created, updated
        ['a', day(10), d2, day(1), day(21)],
        ['b', null, d1, day(2), day(20)],
        ['c', day(5), d1, day(3), day(25)],
        ['d', null, d2, day(4), day(22)],
        ['e', day(10), d1, day(5), day(23)],
        ['f', day(1), d2, day(6), day(24)],
        ['g', null, d1, day(7), day(26)],
      ];
      const ids: Record<string, number> = {};
      for (const [name, due, dealId, created, updated] of rows) {
        ids[name] = await insertTask(accountId, { name, due, dealId, categoryId, created, updated });
      }
      return { key, ids };
    })();
    return fixture;
  };

  const orders: [string, string][] = [
    ['due_date', 'fcaebdg'],
    ['-due_date', 'eacfgdb'],
    ['deal_id', 'bcegadf'],
    ['-deal_id', 'fdagecb'],
    ['created_at', 'abcdefg'],
    ['-created_at', 'gfedcba'],
    ['updated_at', 'badefcg'],
    ['-updated_at', 'gcfedab'],
  ];

  it.each(orders)(
    'sort=%s orders as %s on one page and across pages of 1, 2, 3 and 4',
    async (sort, order) => {
      const { key, ids } = await sortFixture();
      const expected = [...order].map((name) => ids[name]);
      expect(await listIds(key, { sort })).toEqual(expected);
      for (const limit of ['1', '2', '3', '4']) {
        const paged = await allIds(key, `/v1/tasks?${qs({ sort, limit })}`);
        expect(paged, `limit=${limit}`).toEqual(expected);
      }
    },
  );

  it('defaults to -created_at', async () => {
    const { key, ids } = await sortFixture();
    const expected = [...'gfedcba'].map((name) => ids[name]);
    expect(await listIds(key, {})).toEqual(expected);
    expect(await allIds(key, '/v1/tasks?limit=3')).toEqual(expected);
  });

  it('keeps tasks without a due date last in both directions, whatever the filters', async () => {
    const { key, ids } = await sortFixture();
    const names = async (params: Record<string, string>) => {
      const got = await allIds(key, `/v1/tasks?${qs({ limit: '1', ...params })}`);
      const byId = Object.fromEntries(Object.entries(ids).map(([n, id]) => [id, n]));
      return got.map((id) => byId[id]).join('');
    };
    expect(await names({ sort: 'due_date', is_completed: 'false' })).toBe('fcaebdg');
    expect((await names({ sort: 'due_date' })).slice(-3)).toBe('bdg');
    expect((await names({ sort: '-due_date' })).slice(-3)).toBe('gdb');
    expect(await names({ sort: 'due_date', deal_id: '999999' })).toBe('');
  });

  it('a page ending on the null boundary continues with the tasks without due date', async () => {
    const { key, ids } = await sortFixture();
    const first = await list(key, '/v1/tasks?sort=due_date&limit=4');
    expect(idsOf(first)).toEqual([ids.f, ids.c, ids.a, ids.e]);
    expect(first.meta.next_cursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.meta.next_cursor);
    const second = await list(key, `/v1/tasks?sort=due_date&limit=4&cursor=${cursor}`);
    expect(idsOf(second)).toEqual([ids.b, ids.d, ids.g]);
    expect(second.meta.next_cursor).toBeNull();

    const inNulls = await list(key, '/v1/tasks?sort=-due_date&limit=5');
    expect(idsOf(inNulls)).toEqual([ids.e, ids.a, ids.c, ids.f, ids.g]);
    const rest = await list(
      key,
      `/v1/tasks?sort=-due_date&limit=5&cursor=${encodeURIComponent(inNulls.meta.next_cursor)}`,
    );
    expect(idsOf(rest)).toEqual([ids.d, ids.b]);
    expect(rest.meta.next_cursor).toBeNull();
  });

  it('gives a Link rel="next" header and refuses a cursor of another sort or a garbage cursor', async () => {
    const { key } = await sortFixture();
    const { page } = await pageWithNext(key, '/v1/tasks?sort=due_date&limit=5');

    await expectCursorRefused(
      key,
      '/v1/tasks',
      { sort: 'due_date', cursor: page.meta.next_cursor, limit: 5 },
      ['-due_date', 'created_at', 'deal_id', ''],
      ['garbage!!', 'xyz', btoa('[1,2,3]'), btoa('["due_date","x",1]')],
    );
  });

  it('moves a task to the end of sort=updated_at when it is updated', async () => {
    const { key, dealId } = await accountWithDeal();
    const first = await create(key, '/v1/tasks', { deal_id: dealId, name: '1', category: 'Call' });
    const second = await create(key, '/v1/tasks', { deal_id: dealId, name: '2', category: 'Call' });
    expect((await put(key, first.id, { is_completed: true })).status).toBe(200);
    expect(await listIds(key, { sort: 'updated_at' })).toEqual([second.id, first.id]);
    expect(await listIds(key, { sort: '-updated_at' })).toEqual([first.id, second.id]);
  });

  it('breaks due_date ties by id in the sort direction across pages', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const categoryId = await insertCategory(accountId, 'Ties');
    const due = Date.UTC(2026, 5, 1);
    const early = await insertTask(accountId, { dealId, categoryId, due: due - 1, created: 1 });
    const tied: number[] = [];
    for (let i = 0; i < 5; i++)
      tied.push(await insertTask(accountId, { dealId, categoryId, due, created: 2 }));
    const none = [
      await insertTask(accountId, { dealId, categoryId, created: 3 }),
      await insertTask(accountId, { dealId, categoryId, created: 3 }),
      await insertTask(accountId, { dealId, categoryId, created: 3 }),
    ];
    expect(await allIds(key, '/v1/tasks?sort=due_date&limit=2')).toEqual([early, ...tied, ...none]);
    expect(await allIds(key, '/v1/tasks?sort=-due_date&limit=2')).toEqual([
      ...[...tied].reverse(),
      early,
      ...[...none].reverse(),
    ]);
    expect(await allIds(key, '/v1/tasks?sort=deal_id&limit=3')).toEqual([early, ...tied, ...none]);
    expect(await allIds(key, '/v1/tasks?sort=-deal_id&limit=3')).toEqual([early, ...tied, ...none].reverse());
  });
});

describe('tasks: D1 round trips', () => {
  it('a list of 100 tasks with owners costs exactly one round trip, like a list of 1', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const u1 = (await newUser(key, 'U1')).id as number;
    const u2 = (await newUser(key, 'U2')).id as number;
    const categoryId = await insertCategory(accountId, 'Bulk');
    const expected = new Map<number, number[]>();
    const owners: [number, number][] = [];
    for (let i = 0; i < 100; i++) {
      const id = await insertTask(accountId, {
        dealId,
        categoryId,
        name: `Bulk ${i}`,
        created: 1_700_000_000_000 + i,
      });
      const mine = [[], [u1], [u1, u2], [u2]][i % 4] as number[];
      expected.set(id, mine);
      for (const u of mine) owners.push([id, u]);
    }
    await env.DB.batch(
      owners.map(([taskId, userId]) =>
        env.DB.prepare('INSERT INTO task_owners (account_id, task_id, user_id) VALUES (?, ?, ?)').bind(
          accountId,
          taskId,
          userId,
        ),
      ),
    );

    const one = await call('/v1/tasks?limit=1', { key });
    expect(one.status).toBe(200);
    expect((await json(one)).data).toHaveLength(1);
    const oneTrips = roundTrips(one);
    expect(oneTrips).toBe(1);

    const hundred = await call('/v1/tasks?limit=100', { key });
    expect(hundred.status).toBe(200);
    const page = await json(hundred);
    expect(page.data).toHaveLength(100);
    for (const row of page.data) expect(row.owner_ids, `task ${row.id}`).toEqual(expected.get(row.id));
    expect(roundTrips(hundred)).toBe(oneTrips);

    const filtered = await call(
      `/v1/tasks?${qs({ owner_id: `${u1},${u2}`, category: 'bulk', is_completed: 'false', sort: 'due_date', limit: '100' })}`,
      { key },
    );
    expect(filtered.status).toBe(200);
    expect((await json(filtered)).data).toHaveLength(75);
    expect(roundTrips(filtered)).toBe(1);
  });

  it('reads one task in one round trip and writes in at most two', async () => {
    const { key, dealId } = await accountWithDeal();
    const u1 = await newUser(key, 'U1');
    const u2 = await newUser(key, 'U2');
    const within = (res: Response) => {
      const trips = roundTrips(res);
      expect(trips).toBeGreaterThanOrEqual(1);
      expect(trips).toBeLessThanOrEqual(2);
    };

    const created = await post(key, {
      deal_id: dealId,
      name: 'Trips',
      category: 'New category',
      owner_id: u1.id,
      due_date: '2026-01-01T00:00:00Z',
      is_completed: true,
    });
    expect(created.status).toBe(201);
    within(created);
    const task = (await json(created)).data;

    const reused = await post(key, { deal_id: dealId, name: 'Trips 2', category: 'NEW CATEGORY' });
    expect(reused.status).toBe(201);
    within(reused);

    const one = await call(`/v1/tasks/${task.id}`, { key });
    expect(one.status).toBe(200);
    expect(roundTrips(one)).toBe(1);

    for (const body of [
      { category: 'Another new one', owner_id: u2.id, is_completed: false },
      { owner_id: null },
      { is_completed: true },
      { name: 'Renamed' },
      { deal_id: dealId, category: 'new category' },
    ]) {
      const res = await put(key, task.id, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      within(res);
    }

    const categories = await call('/v1/task-categories', { key });
    expect(categories.status).toBe(200);
    expect(roundTrips(categories)).toBe(1);
  });
});

describe('tasks: tenant isolation', () => {
  it("never lists, reads or changes another account's tasks", async () => {
    const a = await accountWithDeal('A');
    const b = await accountWithDeal('B');
    const userB = await newUser(b.key, 'Bob');
    const taskB = await create(b.key, '/v1/tasks', {
      deal_id: b.dealId,
      name: 'B task',
      category: 'Secret',
      owner_id: userB.id,
      due_date: '2026-03-05T10:00:00Z',
    });
    const taskA = await create(a.key, '/v1/tasks', {
      deal_id: a.dealId,
      name: 'A task',
      category: 'Mine',
      due_date: '2026-03-05T11:00:00Z',
    });

    expect(await listIds(a.key, {})).toEqual([taskA.id]);
    expect(await allIds(a.key, '/v1/tasks?sort=due_date&limit=1')).toEqual([taskA.id]);
    expect(await listIds(a.key, { deal_id: String(b.dealId) })).toEqual([]);
    expect(await listIds(a.key, { owner_id: String(userB.id) })).toEqual([]);
    expect(await listIds(a.key, { category: 'Secret' })).toEqual([]);
    expect(await listIds(a.key, { is_completed: 'false' })).toEqual([taskA.id]);
    expect(await listIds(a.key, { due_date__gte: '2026-03-05' })).toEqual([taskA.id]);
    expect((await list(a.key, '/v1/task-categories')).data.map((c: Json) => c.name)).toEqual(['Mine']);

    await expectProblem(await call(`/v1/tasks/${taskB.id}`, { key: a.key }), 404, 'not_found');
    for (const body of [{ name: 'Hijacked' }, { is_completed: true }, { owner_id: null }, {}]) {
      await expectProblem(await put(a.key, taskB.id, body), 404, 'not_found');
    }
    expect(await get(b.key, taskB.id)).toEqual(taskB);
  });

  it("refuses another account's deal and user, and keeps categories apart", async () => {
    const a = await accountWithDeal('A');
    const b = await accountWithDeal('B');
    const userB = await newUser(b.key, 'Bob');
    const taskB = await create(b.key, '/v1/tasks', { deal_id: b.dealId, name: 'B', category: 'Secret' });

    const onDeal = await expectProblem(
      await post(a.key, { deal_id: b.dealId, name: 'X', category: 'C' }),
      422,
      'validation_failed',
    );
    expect(onDeal.errors).toEqual([expect.objectContaining({ path: 'deal_id', code: 'not_found' })]);
    const withOwner = await expectProblem(
      await post(a.key, { deal_id: a.dealId, name: 'X', category: 'C', owner_id: userB.id }),
      422,
      'validation_failed',
    );
    expect(withOwner.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);
    expect(await listIds(a.key, {})).toEqual([]);
    expect(await listIds(b.key, {})).toEqual([taskB.id]);

    const taskA = await create(a.key, '/v1/tasks', { deal_id: a.dealId, name: 'A', category: 'SECRET' });
    expect(taskA.category).toBe('SECRET');
    const putOwner = await expectProblem(await put(a.key, taskA.id, { owner_id: userB.id }), 422);
    expect(putOwner.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);
    expect((await get(a.key, taskA.id)).owner_ids).toEqual([]);

    expect((await get(b.key, taskB.id)).category).toBe('Secret');
    expect((await list(b.key, '/v1/task-categories')).data).toEqual([
      { id: expect.any(Number), name: 'Secret', task_count: 1 },
    ]);
    expect((await list(a.key, '/v1/task-categories')).data).toEqual([
      { id: expect.any(Number), name: 'SECRET', task_count: 1 },
    ]);
    expect(await listIds(a.key, { category: 'secret' })).toEqual([taskA.id]);
    expect(await listIds(b.key, { category: 'secret' })).toEqual([taskB.id]);
  });
});

/** Whether a property schema is marked read-only, directly or in one of its allOf parts. */
const isReadOnly = (doc: Json, node: Json): boolean => {
  const schema = deref(doc, node);
  return (
    schema?.readOnly === true ||
    (schema?.allOf ?? []).some((part: Json) => deref(doc, part)?.readOnly === true)
  );
};

describe('tasks: OpenAPI', () => {
  const load = async (): Promise<Json> => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    return json(res);
  };

  it('documents /v1/tasks, /v1/tasks/{id} and /v1/task-categories', async () => {
    const doc = await load();
    for (const [method, path] of [
      ['get', '/v1/tasks'],
      ['post', '/v1/tasks'],
      ['get', '/v1/tasks/{id}'],
      ['put', '/v1/tasks/{id}'],
      ['get', '/v1/task-categories'],
    ] as [string, string][]) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
  });

  it('describes the Task resource exactly: owner_ids read-only, no owner_id', async () => {
    const doc = await load();
    const task = doc.components.schemas.Task;
    expect(task).toBeDefined();
    expect(Object.keys(task.properties).sort()).toEqual(TASK_KEYS);
    expect(task.properties).not.toHaveProperty('owner_id');
    expect(task.required).toEqual(expect.arrayContaining(TASK_KEYS));
    const ownerIds = deref(doc, task.properties.owner_ids);
    expect(isReadOnly(doc, task.properties.owner_ids)).toBe(true);
    expect(ownerIds.type).toBe('array');
    expect(deref(doc, ownerIds.items).type).toBe('integer');
    expect(deref(doc, task.properties.is_completed).type).toBe('boolean');

    const one = deref(
      doc,
      doc.paths['/v1/tasks/{id}'].get.responses['200'].content['application/json'].schema,
    );
    expect(one.properties.data.$ref).toBe('#/components/schemas/Task');
    const page = deref(doc, doc.paths['/v1/tasks'].get.responses['200'].content['application/json'].schema);
    expect(page.properties.data.items.$ref).toBe('#/components/schemas/Task');
  });

  it.each([
    ['post', '/v1/tasks', 'TaskCreate'],
    ['put', '/v1/tasks/{id}', 'TaskUpdate'],
  ])('%s %s takes %s, with owner_id writable and owner_ids read-only', async (method, path, name) => {
    const doc = await load();
    const ref = doc.paths[path][method].requestBody.content['application/json'].schema;
    expect(ref.$ref).toBe(`#/components/schemas/${name}`);
    const body = deref(doc, ref);
    const props = body.properties;
    for (const field of [
      'deal_id',
      'name',
      'description',
      'due_date',
      'category',
      'owner_id',
      'is_completed',
    ]) {
      expect(props, `${name}.${field}`).toHaveProperty(field);
    }
    expect(isReadOnly(doc, props.owner_id)).toBe(false);
    for (const field of ['owner_ids', 'completed_at', 'id', 'created_at', 'updated_at']) {
      if (field in props) expect(isReadOnly(doc, props[field]), `${name}.${field}`).toBe(true);
    }
    const required: string[] = body.required ?? [];
    if (name === 'TaskCreate') expect([...required].sort()).toEqual(['category', 'deal_id', 'name']);
    else expect(required).toEqual([]);
    expect(body.additionalProperties).toBe(false);
  });

  it('documents the list filters and the eight sorts', async () => {
    const doc = await load();
    const params: Json[] = (doc.paths['/v1/tasks'].get.parameters ?? []).map((p: Json) => deref(doc, p));
    const names = params.filter((p) => p.in === 'query').map((p) => p.name);
    expect([...names].sort()).toEqual(
      [
        'category',
        'cursor',
        'deal_id',
        'deleted',
        'due_date__gt',
        'due_date__gte',
        'due_date__lt',
        'due_date__lte',
        'is_completed',
        'limit',
        'owner_id',
        'sort',
      ].sort(),
    );
    const sort = deref(doc, params.find((p) => p.name === 'sort').schema);
    expect([...sort.enum].sort()).toEqual(
      [
        'due_date',
        '-due_date',
        'deal_id',
        '-deal_id',
        'updated_at',
        '-updated_at',
        'created_at',
        '-created_at',
      ].sort(),
    );
  });
});
