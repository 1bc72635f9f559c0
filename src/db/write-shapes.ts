import { Column, getTableColumns, getTableName, Param, SQL } from 'drizzle-orm';
import type { SQLiteInsertValue, SQLiteTable, SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
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
 * the shape (see `sourced`: the same text and the same encoded parameter as Drizzle's); a column
 * left undefined takes its default, as in Drizzle's insert.
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
  const { values, sources } = sourced(table, row as Record<string, unknown>);
  return shapes.statement(db, `insert ${getTableName(table)} ${ending}`, sources, () =>
    finish(db.insert(table).values(values as SQLiteInsertValue<T>) as Insert<T>),
  );
}

/** Each table's columns with their keys, in its order: tables are module constants. */
const tableColumns = new WeakMap<SQLiteTable, [string, Column][]>();

function columnsOf(table: SQLiteTable): [string, Column][] {
  let columns = tableColumns.get(table);
  if (columns === undefined) {
    columns = Object.entries(getTableColumns(table));
    tableColumns.set(table, columns);
  }
  return columns;
}

/**
 * The columns of a row as sources, in the table's order (the order Drizzle writes them in): a
 * plain value as the parameter Drizzle makes of it, in SQL of its own (which Drizzle keeps as it
 * is, where it would copy a bare parameter), SQL or a column as it is; undefined for a column not
 * given (its absence is part of the shape).
 */
function sourced(table: SQLiteTable, row: Record<string, unknown>) {
  const values: Record<string, SQL | Column> = {};
  const sources: (SQL | Column | undefined)[] = [];
  for (const [key, column] of columnsOf(table)) {
    const value = row[key];
    if (value === undefined) {
      sources.push(undefined);
      continue;
    }
    const source =
      value instanceof SQL || value instanceof Column ? value : new SQL([new Param(value, column)]);
    values[key] = source;
    sources.push(source);
  }
  return { values, sources };
}

/**
 * `db.update(table).set(set).where(where)`, prebuilt when its shape is known: which columns it
 * sets, the text of each SQL value and of `where` (its values are parameters).
 */
export function updateRow<T extends SQLiteTable>(
  db: Db,
  table: T,
  set: SQLiteUpdateSetSource<T>,
  where: SQL | undefined,
) {
  const { values, sources } = sourced(table, set as Record<string, unknown>);
  return shapes.statement(db, `update ${getTableName(table)}`, [...sources, where], () =>
    db
      .update(table)
      .set(values as SQLiteUpdateSetSource<T>)
      .where(where),
  );
}
