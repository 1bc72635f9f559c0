import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  create,
  expectProblem,
  expectReadOnly,
  ISO_MS,
  idsOf,
  json,
  list,
  ms,
} from '../../helpers';
import { get, post, put, taskWithEveryField } from './support';

describe('tasks: completion', () => {
  it('completes, completes again (keeping completed_at) and reopens, changing nothing else', async () => {
    const { key, task } = await taskWithEveryField('State');
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
