import { describe, expect, it } from 'vitest';
import { accountWithDeal, create, ISO_MS, type Json, json, list } from '../../helpers';
import { get, put } from './support';

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
