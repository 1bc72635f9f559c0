import { and, eq, Param, SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client';
import { companies, companyFollowers, taskOwners, tasks } from './schema';
import { shapes } from './shapes';

/** A set of users attached to a row: a company's followers, a task's owners. */
const links = {
  followers: {
    table: companyFollowers,
    parentKey: 'companyId',
    parentId: companyFollowers.companyId,
    parent: companies,
  },
  owners: { table: taskOwners, parentKey: 'taskId', parentId: taskOwners.taskId, parent: tasks },
} as const;

type Link = keyof typeof links;

/** A set of user ids as stored and returned: no duplicates, ascending. */
export const userIdSet = (ids: Iterable<number>): number[] => [...new Set(ids)].sort((a, b) => a - b);

/**
 * `userIdSet(ids)`, without the copies when `ids` is one already: SQLite reads a row's links off
 * their primary key, so they nearly always come in ascending order (a read decodes this per row).
 */
function ascendingIdSet(ids: number[]): number[] {
  for (let i = 1; i < ids.length; i++)
    if (!((ids[i - 1] as number) < (ids[i] as number))) return userIdSet(ids);
  return ids;
}

/**
 * The linked user ids of each row, ascending, as a column of the row's own statement: a list
 * of 100 rows costs no extra query.
 */
export function linkedUserIds(name: Link): SQL<number[]> {
  const { table, parentId, parent } = links[name];
  const mine = and(eq(table.accountId, parent.accountId), eq(parentId, parent.id));
  // Sorted here: the order of an aggregate's input is not guaranteed in SQL.
  const sorted = (value: string) => ascendingIdSet(JSON.parse(value) as number[]);
  return sql<number[]>`(select json_group_array(${table.userId}) from ${table} where ${mine})`.mapWith(
    sorted,
  );
}

/**
 * The rows linked to any of `userIds`: an owner or follower filter that matches ANY of them. A check
 * per row on the link table's primary key, so the list keeps walking its sort index and stops when
 * the page is full: its cost follows the owners' share of the rows, not the account's size (an
 * IN-list of every linked row would read and sort all of an owner's rows).
 */
export function linkedToAny(name: Link, userIds: number[]): SQL {
  const { table, parentId, parent } = links[name];
  return sql`exists (select 1 from ${table} where ${table.accountId} = ${parent.accountId} and ${parentId} = ${parent.id} and ${table.userId} in (select value from json_each(${JSON.stringify(userIds)})))`;
}

/**
 * Statements that make `userIds` the whole set linked to row `id` (an id, or SQL naming a row the
 * same batch just inserted). The ids go in as one JSON parameter, so 100 of them fit D1's limits.
 */
export function replaceLinks(
  db: Db,
  name: Link,
  accountId: number,
  id: number | SQL<number>,
  userIds: number[],
): BatchItem<'sqlite'>[] {
  const { table, parentKey, parentId } = links[name];
  // Prebuilt per shape (see `shapes`): the pieces below hold every value of the request.
  const mine = and(eq(table.accountId, accountId), eq(parentId, id));
  const statements: BatchItem<'sqlite'>[] = [
    shapes.statement(db, `unlink ${name}`, [mine], () => db.delete(table).where(mine)),
  ];
  if (userIds.length) {
    // Objects the statement holds as they are (Drizzle copies a selected field's SQL, not its
    // chunks), so a prebuilt shape finds each value where it goes.
    const account = new Param(accountId);
    const parent = id instanceof SQL ? id : new Param(id);
    const ids = new Param(JSON.stringify(userIdSet(userIds)));
    statements.push(
      shapes.statement(db, `link ${name}`, [account, parent, ids], () =>
        db.insert(table).select(
          db
            // Insert-from-select needs every column of the table, in its order.
            .select({
              accountId: sql<number>`${account}`.as('account_id'),
              [parentKey]: sql<number>`${parent}`.as(parentId.name),
              userId: sql<number>`value`.as('user_id'),
            })
            .from(sql`json_each(${ids})`),
        ),
      ),
    );
  }
  return statements;
}
