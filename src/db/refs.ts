import { eq, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { invalid } from '../http/problem';
import type { Db } from './client';
import { accounts, companies, contacts, deals, users } from './schema';

const targets = { user: users, company: companies, contact: contacts, deal: deals } satisfies Record<
  string,
  SQLiteTable
>;

/** A body field that names another row of the account: `{ owner_id: ['user', 7] }`. */
export type Refs = Record<string, [keyof typeof targets, number | null | undefined]>;

const present = (refs: Refs) =>
  Object.entries(refs).filter(
    (entry): entry is [string, [keyof typeof targets, number]] => typeof entry[1][1] === 'number',
  );

/**
 * One statement that tells, for every referenced id, whether it is a row of the account. It joins
 * the request's first batch, so checking references costs no extra round trip.
 */
export function refsQuery(db: Db, account: SQL<number> | number, refs: Refs) {
  const checks = Object.fromEntries(
    present(refs).map(([path, [target, id]]) => [
      path,
      sql<number>`exists(select 1 from ${targets[target]} where account_id = ${account} and id = ${id})`,
    ]),
  );
  // Selected from the account's own row so the statement is a query builder: Drizzle cannot batch
  // a raw SQL statement that has parameters.
  return db
    .select({ _: sql<number>`1`, ...checks })
    .from(accounts)
    .where(eq(accounts.id, account));
}

/** 422 naming every reference that is not a row of the account (other accounts' rows included). */
export function assertRefs(rows: Record<string, number>[], refs: Refs): void {
  const row = rows[0] ?? {};
  const missing = present(refs).filter(([path]) => !row[path]);
  if (missing.length) {
    throw invalid(
      missing.map(([path, [target, id]]) => ({
        path,
        code: 'not_found',
        message: `No ${target} ${id} in this account.`,
      })),
    );
  }
}
