import { describe, expect, it } from 'vitest';
import { accountWithDeal, call, json, newUser, qs, roundTrips } from '../../helpers';
import { insertCategory, insertOwners, insertTask, post, put } from './support';

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
    await insertOwners(accountId, owners);

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
