import { and, asc, desc, getTableColumns, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';

/** A sort key's value as a cursor carries it. */
export type SortValue = string | number | null;

/** How a page is read: built by `keysetPlan` from the sort and the last row of the previous page. */
export type PagePlan = {
  sortColumn: AnySQLiteColumn;
  descending: boolean;
  /** The WHERE of each walk that makes up the page; several are merged in page order. */
  walks: (SQL | undefined)[];
  /** The ORDER BY, built anew for each use: Drizzle rewrites the one of a compound query in place. */
  orderBy: () => SQL[];
  /** Fetch one row more than the page so the last page is known without a count query. */
  fetch: number;
};

/** The column of `table` that the row property `key` is, and its id; a mismatch is a bug. */
export function sortColumn(table: SQLiteTable, key: string | undefined) {
  const columns = getTableColumns(table);
  const column = key === undefined ? undefined : columns[key];
  const id = columns.id;
  if (!column || !id) throw new Error(`cannot sort by ${key}: the sorts map and the table disagree`);
  return { column, id };
}

/**
 * Keyset pagination over (sort key, id): no OFFSET, stable under concurrent inserts. The walks
 * that make up a page of `limit` rows of `table` by `key` (a row property), past `after` (the sort
 * value and id of the previous page's last row). Rows whose sort key is null come last in both
 * directions.
 */
export function keysetPlan(
  table: SQLiteTable,
  key: string,
  descending: boolean,
  limit: number,
  after?: [value: SortValue, id: number],
): PagePlan {
  const { column, id } = sortColumn(table, key);
  const direction = descending ? desc : asc;
  const beyond = descending ? sql`<` : sql`>`;
  // A nullable key is walked in two parts, the rows that have a value and then those without, each
  // in the order of an (account, key, id) index: merged with nulls last, they need no sort of the
  // account's rows, and the page stops reading once it is full. A cursor in the null part only
  // walks that part.
  let walks: (SQL | undefined)[];
  if (!after) walks = column.notNull ? [undefined] : [isNotNull(column), isNull(column)];
  else {
    const [value, lastId] = after;
    const past = sql`(${column}, ${id}) ${beyond} (${value}, ${lastId})`;
    if (column.notNull) walks = [past];
    else if (value === null) walks = [and(isNull(column), sql`${id} ${beyond} ${lastId}`)];
    else walks = [and(isNotNull(column), past), isNull(column)];
  }
  return {
    sortColumn: column,
    descending,
    walks,
    orderBy: () =>
      column.notNull
        ? [direction(column), direction(id)]
        : [sql`${column} ${sql.raw(descending ? 'desc' : 'asc')} nulls last`, direction(id)],
    fetch: limit + 1,
  };
}
