import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  allIds,
  call,
  create,
  expectLimitsRefused,
  expectProblem,
  type Json,
  list,
  newAccount,
  pageWithNext,
  resource,
} from '../helpers';

const tasks = resource('/v1/tasks');

/** POSTs one task per entry of `categories`, in order; returns the created tasks. */
async function tasksIn(key: string, dealId: number, categories: string[]): Promise<Json[]> {
  const created: Json[] = [];
  for (const category of categories) {
    created.push(await create(key, '/v1/tasks', { deal_id: dealId, name: `In ${category}`, category }));
  }
  return created;
}

const counts = async (key: string): Promise<[string, number][]> =>
  (await list(key, '/v1/task-categories?limit=100')).data.map((c: Json) => [c.name, c.task_count]);

describe('task categories: list', () => {
  it('is an empty page for an account without tasks', async () => {
    const { key } = await newAccount();
    expect(await list(key, '/v1/task-categories')).toEqual({
      data: [],
      meta: { limit: 25, next_cursor: null },
    });
  });

  it('lists id, name and task_count, sorted by name case-insensitively', async () => {
    const { key, dealId } = await accountWithDeal();
    const second = (await create(key, '/v1/deals', { name: 'Second' })).id as number;
    await tasksIn(key, dealId, ['bravo', 'Delta', 'Alpha', 'delta']);
    await tasksIn(key, second, ['BRAVO', 'charlie', 'DELTA']);

    const page = await list(key, '/v1/task-categories');
    expect(page.meta).toEqual({ limit: 25, next_cursor: null });
    expect(page.data).toEqual([
      { id: expect.any(Number), name: 'Alpha', task_count: 1 },
      { id: expect.any(Number), name: 'bravo', task_count: 2 },
      { id: expect.any(Number), name: 'charlie', task_count: 1 },
      { id: expect.any(Number), name: 'Delta', task_count: 3 },
    ]);
    for (const category of page.data) {
      expect(Object.keys(category).sort()).toEqual(['id', 'name', 'task_count']);
      expect(Number.isSafeInteger(category.id) && category.id > 0).toBe(true);
    }
    expect(new Set(page.data.map((c: Json) => c.id)).size).toBe(4);
  });

  it('counts completed and open tasks alike, and follows tasks that change category', async () => {
    const { key, dealId } = await accountWithDeal();
    const [call1, call2, mail] = await tasksIn(key, dealId, ['Call', 'Call', 'Mail']);
    expect(await counts(key)).toEqual([
      ['Call', 2],
      ['Mail', 1],
    ]);

    expect((await tasks.put(key, call1.id, { is_completed: true })).status).toBe(200);
    expect(await counts(key)).toEqual([
      ['Call', 2],
      ['Mail', 1],
    ]);

    expect((await tasks.put(key, call2.id, { category: 'mail' })).status).toBe(200);
    expect(await counts(key)).toEqual([
      ['Call', 1],
      ['Mail', 2],
    ]);

    expect((await tasks.put(key, mail.id, { category: 'Visit' })).status).toBe(200);
    expect(await counts(key)).toEqual([
      ['Call', 1],
      ['Mail', 1],
      ['Visit', 1],
    ]);

    // A category whose last task moved away is still the account's, with a count of 0.
    expect((await tasks.put(key, call1.id, { category: 'VISIT' })).status).toBe(200);
    expect(await counts(key)).toEqual([
      ['Call', 0],
      ['Mail', 1],
      ['Visit', 2],
    ]);
    // And it is reused, with its first spelling, when named again.
    const again = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Again', category: 'CALL' });
    expect(again.category).toBe('Call');
    expect(await counts(key)).toEqual([
      ['Call', 1],
      ['Mail', 1],
      ['Visit', 2],
    ]);
  });

  it('pages with limit and cursor in name order, names in any script included', async () => {
    const { key, dealId } = await accountWithDeal();
    await tasksIn(key, dealId, ['会议', 'bravo', 'Встреча', 'Alpha', 'Ligação', 'charlie', 'Delta']);
    const full = await list(key, '/v1/task-categories');
    expect(full.data.map((c: Json) => c.name)).toEqual([
      'Alpha',
      'bravo',
      'charlie',
      'Delta',
      'Ligação',
      'Встреча',
      '会议',
    ]);
    const expected = full.data.map((c: Json) => c.id);

    const { page: page1 } = await pageWithNext(key, '/v1/task-categories?limit=2');
    expect(page1.data.map((c: Json) => c.name)).toEqual(['Alpha', 'bravo']);
    expect(page1.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });

    for (const limit of [1, 2, 3, 7]) {
      expect(await allIds(key, `/v1/task-categories?limit=${limit}`), `limit=${limit}`).toEqual(expected);
    }
    const last = await list(key, '/v1/task-categories?limit=7');
    expect(last.meta.next_cursor).toBeNull();
  });

  it('rejects a bad limit, a garbage cursor and unknown parameters with 400', async () => {
    const { key, dealId } = await accountWithDeal();
    await tasksIn(key, dealId, ['A', 'B']);
    await expectLimitsRefused(key, '/v1/task-categories');
    for (const garbage of ['garbage!!', 'xyz', btoa('[1,2,3]')]) {
      await expectProblem(
        await call(`/v1/task-categories?cursor=${encodeURIComponent(garbage)}`, { key }),
        400,
        'invalid_cursor',
      );
    }
    for (const query of ['foo=1', 'name=A', 'deal_id=1', 'task_count=1']) {
      const problem = await expectProblem(
        await call(`/v1/task-categories?${query}`, { key }),
        400,
        'invalid_query',
      );
      expect(problem.errors[0].path).toBe(query.split('=')[0]);
    }
  });

  it('requires a valid API key', async () => {
    await expectProblem(await call('/v1/task-categories'), 401, 'unauthorized');
    await expectProblem(
      await call('/v1/task-categories', { key: `crm_${'A'.repeat(43)}` }),
      401,
      'unauthorized',
    );
  });
});

describe('task categories: tenant isolation', () => {
  it("lists only the caller's categories and counts only its tasks", async () => {
    const a = await accountWithDeal('A');
    const b = await accountWithDeal('B');
    const c = await newAccount('C');
    await tasksIn(b.key, b.dealId, ['Call', 'Call', 'Call', 'Secret']);
    await tasksIn(a.key, a.dealId, ['call']);

    expect((await list(a.key, '/v1/task-categories')).data).toEqual([
      { id: expect.any(Number), name: 'call', task_count: 1 },
    ]);
    expect(await counts(b.key)).toEqual([
      ['Call', 3],
      ['Secret', 1],
    ]);
    expect((await list(c.key, '/v1/task-categories')).data).toEqual([]);
    expect(await allIds(a.key, '/v1/task-categories?limit=1')).toHaveLength(1);

    const idsA = (await list(a.key, '/v1/task-categories')).data.map((x: Json) => x.id);
    const idsB = (await list(b.key, '/v1/task-categories')).data.map((x: Json) => x.id);
    expect(idsA.filter((id: number) => idsB.includes(id))).toEqual([]);
  });
});
