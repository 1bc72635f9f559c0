import { eq, Param, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { type FieldError, invalid } from '../core/errors';
import type { Refs, RefTarget } from '../core/refs';
import { said } from '../core/said';
import type { Db } from './client';
import { accounts, companies, contacts, deals, users } from './schema';
import { shapes } from './shapes';

const targets = { user: users, company: companies, contact: contacts, deal: deals } satisfies Record<
  RefTarget,
  SQLiteTable
>;

type Present = [path: string, [RefTarget, number | number[]]];

const present = (refs: Refs) =>
  Object.entries(refs).filter(
    (entry): entry is Present => typeof entry[1][1] === 'number' || Array.isArray(entry[1][1]),
  );

/**
 * True when `id` is a live row of the account; for a list, the JSON array of its ids that are not.
 * A row in the trash cannot be referenced: it is the same 422 as a missing one. `id` is the
 * parameter of the id, or of the list as one JSON array.
 */
function check(account: SQL<number> | Param, target: RefTarget, many: boolean, id: Param): SQL {
  const table = targets[target];
  if (!many) {
    return sql`exists(select 1 from ${table} where account_id = ${account} and id = ${id} and deleted_at is null)`;
  }
  // One JSON parameter for the whole list keeps the statement within D1's 100 parameters.
  return sql`(select json_group_array(j.value) from json_each(${id}) j where not exists(select 1 from ${table} where account_id = ${account} and id = j.value and deleted_at is null))`;
}

/**
 * One statement that tells, for every referenced id, whether it is a row of the account. It joins
 * the request's first batch, so checking references costs no extra round trip.
 *
 * Prebuilt per shape (see `shapes`): the request's values are the account (its subquery, or its id)
 * and each id's parameter, objects the statement holds as they are (a selected field's SQL is
 * copied by Drizzle, its chunks are not); the paths, targets and kinds name the rest.
 */
export function refsQuery(db: Db, accountId: SQL<number> | number, refs: Refs) {
  const given = present(refs);
  const account = typeof accountId === 'number' ? new Param(accountId) : accountId;
  const ids = given.map(([, [, id]]) => new Param(typeof id === 'number' ? id : JSON.stringify(id)));
  const shape = `refs ${given.map(([path, [target, id]]) => `${path}:${target}:${typeof id}`).join(' ')}`;
  return shapes.statement(db, shape, [account, ...ids], () => {
    const checks = Object.fromEntries(
      // Each column gets its own name: D1 returns rows as objects keyed by column name, and two
      // checks of the same table and kind have the same text, so unnamed they would collide.
      given.map(([path, [target, id]], i) => [
        path,
        check(account, target, typeof id !== 'number', ids[i] as Param).as(`ref_${i}`),
      ]),
    );
    // Selected from the account's own row so the statement is a query builder: Drizzle cannot
    // batch a raw SQL statement that has parameters.
    return db
      .select({ _: sql<number>`1`, ...checks })
      .from(accounts)
      .where(eq(accounts.id, account));
  });
}

const missing = (path: string, target: RefTarget, id: number): FieldError => ({
  path,
  ...said('not_found', { record: target, id }),
});

/** 422 naming every reference that is not a row of the account (other accounts' rows included). */
export function assertRefs(rows: Record<string, unknown>[], refs: Refs): void {
  const row = rows[0] ?? {};
  const errors = present(refs).flatMap(([path, [target, id]]): FieldError[] => {
    if (typeof id === 'number') return row[path] ? [] : [missing(path, target, id)];
    const absent = new Set(JSON.parse(String(row[path] ?? '[]')) as number[]);
    return id.flatMap((each, index) => (absent.has(each) ? [missing(`${path}.${index}`, target, each)] : []));
  });
  if (errors.length) throw invalid(errors);
}
