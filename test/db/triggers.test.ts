import { applyD1Migrations, type D1Migration } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { emptyMigrationDb } from '../helpers';

type Declared = { triggers: Map<string, string>; searchTables: Set<string> };

const NAME = '[`"\\[]?(\\w+)[`"\\]]?';
const CREATE_TRIGGER = new RegExp(
  `CREATE\\s+(?:TEMP\\s+|TEMPORARY\\s+)?TRIGGER\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${NAME}[\\s\\S]*?\\bON\\s+${NAME}`,
  'gi',
);
const DROP_TRIGGER = new RegExp(`DROP\\s+TRIGGER\\s+(?:IF\\s+EXISTS\\s+)?${NAME}`, 'gi');
const CREATE_VIRTUAL = new RegExp(`CREATE\\s+VIRTUAL\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${NAME}`, 'gi');
const DROP_TABLE = new RegExp(`DROP\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?${NAME}`, 'gi');

/**
 * The triggers (name -> table) and FTS tables the migrations up to one declare, read from their SQL
 * in order. Only an explicit DROP takes one away: a migration that rebuilds a table (drizzle-kit's
 * create, copy, drop, rename) drops the table's triggers without a word, and must create them again.
 */
function declaredBy(migrations: readonly D1Migration[]): Declared {
  const declared: Declared = { triggers: new Map(), searchTables: new Set() };
  for (const { queries } of migrations) {
    for (const sql of queries) {
      for (const [, name = '', table = ''] of sql.matchAll(CREATE_TRIGGER))
        declared.triggers.set(name, table);
      for (const [, name = ''] of sql.matchAll(DROP_TRIGGER)) declared.triggers.delete(name);
      for (const [, name = ''] of sql.matchAll(CREATE_VIRTUAL)) declared.searchTables.add(name);
      for (const [, name = ''] of sql.matchAll(DROP_TABLE)) declared.searchTables.delete(name);
    }
  }
  return declared;
}

/** The triggers and virtual tables a database really has. */
async function present(db: D1Database): Promise<Declared> {
  const { results } = await db
    .prepare(
      "SELECT type, name, tbl_name FROM sqlite_master WHERE type = 'trigger' OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%')",
    )
    .all<{ type: string; name: string; tbl_name: string }>();
  return {
    triggers: new Map(results.filter((r) => r.type === 'trigger').map((r) => [r.name, r.tbl_name])),
    searchTables: new Set(results.filter((r) => r.type === 'table').map((r) => r.name)),
  };
}

const sorted = ({ triggers, searchTables }: Declared) => ({
  triggers: [...triggers].sort(([a], [b]) => a.localeCompare(b)),
  searchTables: [...searchTables].sort(),
});

describe('triggers and search tables', () => {
  it('every one the migrations declare exists, on its table, after each migration in turn', async () => {
    const db = await emptyMigrationDb();
    const migrations = env.TEST_MIGRATIONS;
    for (let applied = 1; applied <= migrations.length; applied++) {
      await applyD1Migrations(db, migrations.slice(0, applied));
      const where = migrations[applied - 1]?.name;
      expect(sorted(await present(db)), where).toEqual(sorted(declaredBy(migrations.slice(0, applied))));
    }
  });

  it('the test database has all of them, and the migrations declare the ones the code relies on', async () => {
    const declared = declaredBy(env.TEST_MIGRATIONS);
    expect(sorted(await present(env.DB))).toEqual(sorted(declared));
    // The reading above must keep finding them: search, category counts and created_at order.
    expect([...declared.searchTables].sort()).toEqual([
      'companies_search',
      'contacts_search',
      'inbound_event_text',
      'users_search',
    ]);
    for (const table of ['users', 'contacts', 'companies']) {
      for (const suffix of ['search_insert', 'search_update', 'search_delete', 'created_order_insert']) {
        expect(declared.triggers.get(`${table}_${suffix}`), `${table}_${suffix}`).toBe(table);
      }
    }
    expect(declared.triggers.get('task_categories_count_insert')).toBe('tasks');
    // The event storage usage and the webhook cap (drizzle/0011_event_storage.sql).
    for (const suffix of ['insert', 'update', 'delete']) {
      expect(declared.triggers.get(`inbound_events_storage_${suffix}`)).toBe('inbound_events');
    }
    expect(declared.triggers.get('inbound_webhooks_cap')).toBe('inbound_webhooks');
    // The event log's search index (drizzle/0015_event_search.sql), kept with every write of an event.
    for (const suffix of ['insert', 'update', 'delete']) {
      expect(declared.triggers.get(`inbound_event_text_${suffix}`)).toBe('inbound_events');
    }
  });

  it('finds the triggers a table rebuild drops without a word', async () => {
    const rebuild: D1Migration = {
      name: '9999_rebuild_tasks.sql',
      queries: [
        'PRAGMA defer_foreign_keys = on',
        'CREATE TABLE __new_tasks AS SELECT * FROM tasks',
        'DROP TABLE tasks',
        'ALTER TABLE __new_tasks RENAME TO tasks',
      ],
    };
    const db = await emptyMigrationDb();
    await applyD1Migrations(db, [...env.TEST_MIGRATIONS, rebuild]);
    const { triggers } = await present(db);
    const gone = [...declaredBy([...env.TEST_MIGRATIONS, rebuild]).triggers.keys()].filter(
      (name) => !triggers.has(name),
    );
    expect(gone.sort()).toEqual([
      'task_categories_count_delete',
      'task_categories_count_insert',
      'task_categories_count_update',
      'tasks_freeze_delete',
      'tasks_freeze_insert',
      'tasks_freeze_update',
      'tasks_live_deal',
    ]);
  });
});
