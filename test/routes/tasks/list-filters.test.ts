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
  qs,
} from '../../helpers';
import { addOwners, get, listIds, put } from './support';

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

  it.each(['yes', '1', '0', 'TRUE', 'fALSE', '', 'true,false', 'null'])(
    'rejects is_completed=%s with 400 invalid_query',
    async (is_completed) => {
      const { key } = await accountWithDeal();
      await expectProblem(await call(`/v1/tasks?${qs({ is_completed })}`, { key }), 400, 'invalid_query');
    },
  );

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
