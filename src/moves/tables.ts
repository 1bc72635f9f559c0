import { isTable } from 'drizzle-orm';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { MOVING_TABLES, type MovingTable } from '../core/moving-tables';
import * as schema from '../db/schema';

/** A table of the move's list with its columns, in the schema's order. */
export type MoveTable = MovingTable & { readonly columns: readonly string[] };

const byName = new Map<string, SQLiteTable>();
for (const value of Object.values(schema)) {
  if (isTable(value)) {
    const table = value as SQLiteTable;
    byName.set(getTableConfig(table).name, table);
  }
}

function withColumns(table: MovingTable): MoveTable {
  const drizzle = byName.get(table.name);
  if (!drizzle) throw new Error(`moving table ${table.name} is not in the schema`);
  const { columns } = getTableConfig(drizzle);
  return { ...table, columns: columns.map((c) => c.name) };
}

/** The move's tables in copy order (parents first). */
export const MOVE_TABLES: readonly MoveTable[] = MOVING_TABLES.map(withColumns);

/**
 * The tables a verify walks: every one in order, then the counters again (`derived`): copying
 * tasks and events moves the counts their triggers keep, so those rows are compared and written last.
 */
export const VERIFY_ORDER: readonly number[] = [
  ...MOVE_TABLES.map((_, i) => i),
  ...MOVE_TABLES.flatMap((t, i) => (t.derived ? [i] : [])),
];

/**
 * The order the old copy is deleted in: its sessions and API keys first (from then on an old key
 * misses on the old shard and is forwarded: src/moves/forwards.ts), then children before parents.
 */
const first = ['panel_sessions', 'api_keys'];
export const CLEAN_ORDER: readonly number[] = [
  ...first.map((name) => MOVE_TABLES.findIndex((t) => t.name === name)),
  ...MOVE_TABLES.map((_, i) => i)
    .reverse()
    .filter((i) => !first.includes((MOVE_TABLES[i] as MoveTable).name)),
];

export const moveTable = (i: number): MoveTable => {
  const table = MOVE_TABLES[i];
  if (!table) throw new Error(`no moving table ${i}`);
  return table;
};
