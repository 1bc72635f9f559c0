import { gt, gte, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Bound, Op } from '../core/filters';

const compare = { gte, lte, gt, lt };

/**
 * The SQL of whichever of `field`'s four comparison filters the query has. A list walks the index of
 * its sort (`keyset`) and stops when the page is full. A range on any other column is only checked
 * along that walk (unary `+` keeps it off its own index): otherwise the planner may collect the
 * whole range and sort it, a cost that grows with the account.
 */
export function rangeConditions<P extends string>(
  column: AnySQLiteColumn,
  query: Partial<Record<`${P}__${Op}`, Bound | undefined>>,
  field: P,
  sortColumn: AnySQLiteColumn,
): SQL[] {
  const ops = ['gte', 'lte', 'gt', 'lt'] as const;
  const compared = column === sortColumn ? sql`${column}` : sql`+${column}`;
  return ops.flatMap((op) => {
    const bound = query[`${field}__${op}`];
    return bound ? [compare[op](compared, bound.ms)] : [];
  });
}

/**
 * `column IN (ids)` with the whole list bound as ONE JSON parameter: D1 allows 100 parameters per
 * statement, and a list may hold 100 ids beside the other filters.
 */
export const inIds = (column: AnySQLiteColumn, ids: number[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
