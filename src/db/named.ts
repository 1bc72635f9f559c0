import { Column, is, type SQL, sql } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';

/** A flat selection of a table's columns and SQL extras. */
export type FlatFields = Record<string, Column | SQL>;

/**
 * `fields`, each selected under its own key (`"owner_id" as "ownerId"`), each keeping its decoder.
 * D1 makes each row of such a statement with exactly the keys, in the order, that Drizzle's row
 * mapping would give it, so db/rows.ts hands D1's object on (decoding in place the few cells that
 * need it) where it copied every row into a second one. Columns go in as SQL, which Drizzle
 * renders unqualified in a one-table select, as it does the bare column.
 */
export function named(fields: FlatFields): SelectedFields {
  const selected: Record<string, SQL.Aliased> = {};
  for (const [key, field] of Object.entries(fields)) {
    selected[key] = (is(field, Column) ? sql`${field}`.mapWith(field) : field).as(key);
  }
  return selected;
}
