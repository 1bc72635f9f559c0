import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  create,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  ISO_MS,
  idsOf,
  type Json,
  json,
  list,
  ms,
  newAccount,
  newUser,
} from '../../helpers';
import { get, post, TASK_KEYS } from './support';

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
      external_id: null,
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
      external_id: null,
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
});
