import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  allIds,
  call,
  create,
  expectProblem,
  type Json,
  list,
  newUser,
} from '../../helpers';
import { get, listIds, post, put } from './support';

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
