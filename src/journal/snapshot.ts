import { Column, getTableColumns, is, type SQL, sql } from 'drizzle-orm';
import { decoderOf } from '../db/drizzle-internals';
import type { Extras } from '../db/own';
import type { TrashTable } from '../db/schema';

/** What a journaled resource is made of: its table, the extras its read adds, the columns no presenter reads. */
export type SnapshotSpec = {
  // The journaled tables are exactly those with a trash.
  table: TrashTable;
  extras?: Extras | undefined;
  unread?: readonly string[] | undefined;
};

// Never part of a snapshot: the tenant, and the version (the entry carries its own).
const left = ['accountId', 'version'];

/** The row's property -> its SQL, as a read of `GET` selects it (columns less unread, extras). */
function fields(spec: SnapshotSpec): [string, SQL | Column][] {
  const unread = [...left, ...(spec.unread ?? [])];
  const columns = Object.entries(getTableColumns(spec.table)).filter(([key]) => !unread.includes(key));
  return [...columns, ...Object.entries(spec.extras ?? {})];
}

/**
 * The row of `spec.table` in the statement's FROM as one JSON object of its driver values keyed by
 * property (a JSON column as its text), computed in SQL: what the entry keeps as `data`/`previous`.
 * The keys are the code's property names, written as literals.
 */
export function snapshotSql(spec: SnapshotSpec): SQL<string> {
  const pairs = fields(spec).map(([key, value]) => {
    if (!/^[A-Za-z]+$/.test(key)) throw new Error(`not a property: ${key}`);
    return sql`${sql.raw(`'${key}'`)}, ${value}`;
  });
  return sql<string>`json_object(${sql.join(pairs, sql`, `)})`;
}

/**
 * The row a snapshot was made of, decoded as Drizzle decodes the read's row (each column's and
 * extra's own mapping), for the resource's presenter. A JSON value that SQLite nested instead of
 * quoting goes back to its text first, as the driver would hand it.
 */
export function snapshotRow(spec: SnapshotSpec, snapshot: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, field] of fields(spec)) {
    if (!Object.hasOwn(snapshot, key)) continue;
    const value = snapshot[key];
    if (value === null) {
      row[key] = null;
      continue;
    }
    const decoder = is(field, Column) ? field : decoderOf(field);
    const driver = typeof value === 'object' ? JSON.stringify(value) : value;
    row[key] = decoder ? decoder.mapFromDriverValue(driver) : driver;
  }
  return row;
}
