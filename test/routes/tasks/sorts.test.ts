import { describe, expect, it } from 'vitest';
import { accountWithDeal, allIds, create, idsOf, list, newAccount, qs } from '../../helpers';
import { insertCategory, insertTask, listIds, put } from './support';

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
