import { and, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';
import type { TrashTable } from './schema';

/** The values of a JSON array parameter, as a subquery: one bound parameter for any number of them. */
const each = (values: readonly unknown[]): SQL =>
  sql`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * One statement: the account's rows of `table` whose id is one of `ids` or whose key column holds
 * one of its values, oldest first; live ones only with `liveOnly`. Every list is one JSON parameter,
 * so a batch of any size reads each table in one statement, within D1's 100 parameters.
 */
export function rowsByKeys(
  db: Db,
  account: SQL<number>,
  table: TrashTable,
  ids: readonly number[],
  keys: readonly [AnySQLiteColumn, readonly string[]][],
  liveOnly: boolean,
) {
  const t: TrashTable = table;
  const wanted = [
    ids.length ? inArray(t.id, each(ids)) : undefined,
    ...keys.filter(([, values]) => values.length).map(([column, values]) => inArray(column, each(values))),
  ].filter((condition) => condition !== undefined);
  // Nothing wanted reads nothing (`or()` of nothing would be no condition at all).
  const any = wanted.length ? or(...wanted) : sql`0`;
  return db
    .select()
    .from(t)
    .where(and(sql`${t.accountId} = ${account}`, liveOnly ? isNull(t.deletedAt) : undefined, any))
    .orderBy(t.id);
}
