import { getTableColumns, getTableName, Param, SQL, sql } from 'drizzle-orm';
import type { SQLiteInsertValue, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';
import { shapes } from './shapes';

// The write path's statements built once per shape (see `shapes`): an insert's text depends only
// on which columns it is given and the text of each SQL value (a subquery, a timestamp), never on
// the values themselves, which are parameters. A prebuilt statement has only what a batch asks of
// it (`_prepare`): these go into `db.batch`, never awaited alone.

/** A number per module constant (a table's extras, a link's columns), for the name of a shape. */
const constantIds = new WeakMap<object, number>();
let constantCount = 0;

export function constantId(constant: object | undefined): number {
  if (!constant) return 0;
  let id = constantIds.get(constant);
  if (id === undefined) {
    id = ++constantCount;
    constantIds.set(constant, id);
  }
  return id;
}

/**
 * `db.insert(table).values(row)`, prebuilt when its shape is known. Each given value is a source of
 * the shape: a plain value as the parameter Drizzle makes of it (`new Param(value, column)`, the
 * same text and the same encoded parameter), SQL as it is; a column left undefined takes its
 * default, as in Drizzle's insert, and its absence is part of the shape.
 */
export function insertRow<T extends SQLiteTable>(db: Db, table: T, row: SQLiteInsertValue<T>) {
  return insertShaped(db, table, row, '', (insert) => insert);
}

type Insert<T extends SQLiteTable> = ReturnType<ReturnType<Db['insert']>['values']> & { _: { table: T } };

/**
 * `insertRow` with the rest of the statement (ON CONFLICT, RETURNING) added by `finish`, a code
 * constant named by `ending` (part of the shape's name).
 */
export function insertShaped<T extends SQLiteTable, B extends { getSQL(): SQL }>(
  db: Db,
  table: T,
  row: SQLiteInsertValue<T>,
  ending: string,
  finish: (insert: Insert<T>) => B,
): B {
  const given = row as Record<string, unknown>;
  const values: Record<string, SQL> = {};
  const sources: (SQL | undefined)[] = [];
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = given[key];
    if (value === undefined) {
      sources.push(undefined);
      continue;
    }
    const source = value instanceof SQL ? value : sql`${new Param(value, column)}`;
    values[key] = source;
    sources.push(source);
  }
  return shapes.statement(db, `insert ${getTableName(table)} ${ending}`, sources, () =>
    finish(db.insert(table).values(values as SQLiteInsertValue<T>) as Insert<T>),
  );
}
