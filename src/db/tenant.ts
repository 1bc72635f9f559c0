import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch';
import { unauthorized } from '../core/errors';
import type { Db } from './client';
import { live } from './live';
import { apiKeys, type TenantTable } from './schema';

/**
 * Whose API key a request acts with: the bearer key's SHA-256 on `/v1`, or a scalar subquery
 * yielding it from a panel session (src/panel/session.ts), so the panel runs the same queries.
 */
export type KeyRef = string | SQL<string>;

/**
 * The caller's account id as a scalar subquery. Queries scoped by it return nothing for an unknown
 * or revoked key, so data can never leak even before the key check's result is read.
 */
export const accountOf = (keyHash: KeyRef): SQL<number> =>
  sql<number>`(select ${apiKeys.accountId} from ${apiKeys} where ${apiKeys.keyHash} = ${keyHash} and ${apiKeys.revokedAt} is null)`;

type Items = readonly BatchItem<'sqlite'>[];

/**
 * Runs `queries` in one batch with the key lookup and returns the account id and their results.
 * A missing or revoked key is a 401.
 */
export async function scoped<T extends Items>(
  db: Db,
  keyHash: KeyRef,
  ...queries: T
): Promise<[number, ...BatchResponse<T>]> {
  const keyLookup = db
    .select({ accountId: apiKeys.accountId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  const [keys, ...results] = await db.batch([keyLookup, ...queries]);
  const accountId = keys[0]?.accountId;
  if (accountId === undefined) throw unauthorized();
  return [accountId, ...(results as BatchResponse<T>)];
}

/** WHERE for "row `id` of the caller's account", if live: a row in the trash is not there. */
export const ownRow = (table: TenantTable, keyHash: KeyRef, id: number): SQL | undefined =>
  and(eq(table.accountId, accountOf(keyHash)), eq(table.id, id), live(table));
