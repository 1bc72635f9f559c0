import { env } from 'cloudflare:workers';
import { isTable } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { freezeTriggerSql, MOVING_TABLES } from '../../src/core/moving-tables';
import * as schema from '../../src/db/schema';

// The one list of the account's tables (src/core/moving-tables.ts) against the schema and the
// freeze triggers the migration made from it.

const tables = Object.values(schema).filter((v) => isTable(v)) as SQLiteTable[];
/** Tables with an account column that are no account's data: shard-global, or the move's own. */
const NOT_MOVED = [
  'account_shards',
  'account_moves',
  'account_freezes',
  'held_events',
  'credential_forwards',
];

describe('the moving tables', () => {
  it('are every table holding an account column, and every table hanging off one', () => {
    const withAccount = tables
      .map((t) => getTableConfig(t))
      .filter((c) => c.columns.some((col) => col.name === 'account_id') || c.name === 'accounts')
      .map((c) => c.name)
      .filter((name) => !NOT_MOVED.includes(name));
    const listed = MOVING_TABLES.map((t) => t.name);
    expect(listed.filter((name) => !MOVING_TABLES.find((t) => t.name === name)?.via).sort()).toEqual(
      withAccount.sort(),
    );
    // A table without it: import_chunks, by its import.
    expect(MOVING_TABLES.filter((t) => t.via).map((t) => t.name)).toEqual(['import_chunks']);
    // Parents before children: every foreign key points at a table earlier in the list.
    for (const table of tables) {
      const config = getTableConfig(table);
      const position = listed.indexOf(config.name);
      if (position < 0) continue;
      for (const fk of config.foreignKeys) {
        const parent = getTableConfig(fk.reference().foreignTable).name;
        expect(listed.indexOf(parent), `${config.name} -> ${parent}`).toBeLessThan(position);
      }
    }
  });

  it('each have the freeze triggers the one list makes, on every shard', async () => {
    const expected = freezeTriggerSql().map((sql) => sql.replace(/;$/, ''));
    const rows = await env.DB_2?.prepare(
      "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_freeze\\_%' ESCAPE '\\' ORDER BY name",
    ).all<{ sql: string }>();
    expect(rows?.results.map((r) => r.sql).sort()).toEqual(expected.sort());
    expect(expected).toHaveLength(MOVING_TABLES.length * 3);
  });
});
