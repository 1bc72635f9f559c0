import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, accountWithDeal, call, create, emptyMigrationDb, json } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

/** Each category's stored task_count beside a fresh count of its tasks. */
async function counts(db: D1Database, accountId: number) {
  const { results } = await db
    .prepare(
      'select name, task_count as stored, (select count(*) from tasks t where t.account_id = c.account_id and t.category_id = c.id) as counted from task_categories c where account_id = ? order by name',
    )
    .bind(accountId)
    .all<{ name: string; stored: number; counted: number }>();
  return results;
}

describe('task_count, kept by triggers on tasks', () => {
  it('follows creates, category changes and deletes, and the list shows it', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    const task = await create(key, '/v1/tasks', { deal_id: dealId, name: 'A', category: 'Ligação' });
    await create(key, '/v1/tasks', { deal_id: dealId, name: 'B', category: 'ligação' });
    await create(key, '/v1/tasks', { deal_id: dealId, name: 'C', category: 'E-mail' });
    const moved = await call(`/v1/tasks/${task.id}`, { method: 'PUT', key, body: { category: 'E-mail' } });
    expect(moved.status).toBe(200);
    await call(`/v1/tasks/${task.id}`, { method: 'PUT', key, body: { name: 'A2' } });
    const list = (await json(await call('/v1/task-categories', { key }))).data;
    expect(list.map((c: { name: string; task_count: number }) => [c.name, c.task_count])).toEqual([
      ['E-mail', 2],
      ['Ligação', 1],
    ]);
    await env.DB.prepare('delete from task_owners where task_id = ?').bind(task.id).run();
    await env.DB.prepare('delete from tasks where id = ?').bind(task.id).run();
    const after = await counts(env.DB, accountId);
    expect(after.map((c) => c.stored)).toEqual(after.map((c) => c.counted));
    expect(after.map((c) => c.stored)).toEqual([1, 1]);
  });

  it('the migration counts the tasks already there', async () => {
    const db = await emptyMigrationDb();
    const at = env.TEST_MIGRATIONS.findIndex((m) => m.name.includes('category_counts'));
    const before = env.TEST_MIGRATIONS.slice(0, at);
    await applyD1Migrations(db, before);
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values (1, 'A', 0)"),
      db.prepare(
        "insert into deals (id, account_id, name, name_norm, created_at, updated_at) values (1, 1, 'D', 'd', 0, 0)",
      ),
      db.prepare(
        "insert into task_categories (id, account_id, name, name_norm, created_at) values (1, 1, 'X', 'x', 0), (2, 1, 'Y', 'y', 0)",
      ),
      db.prepare(
        "insert into tasks (account_id, name, deal_id, category_id, created_at, updated_at) values (1, 'a', 1, 1, 0, 0), (1, 'b', 1, 1, 0, 0), (1, 'c', 1, 2, 0, 0)",
      ),
    ]);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    expect((await counts(db, 1)).map((c) => [c.name, c.stored, c.counted])).toEqual([
      ['X', 2, 2],
      ['Y', 1, 1],
    ]);
  });
});
