import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch';
import { unauthorized } from '../core/errors';
import type { Db } from './client';
import { KeyGrant } from './key-grant';
import { listening } from './listening';
import { live } from './live';
import { filled, lazyPieces } from './prerendered';
import { apiKeys, type TenantTable } from './schema';
import { shapes } from './shapes';

/**
 * Whose API key a request acts with: the bearer key's SHA-256 on `/v1`, or a scalar subquery
 * yielding it from a panel session (src/panel/session.ts), so the panel runs the same queries; as
 * a `KeyGrant`, only while the key may do the request's operation.
 */
export type KeyRef = string | SQL<string> | KeyGrant;

/**
 * The caller's account id as a scalar subquery. Queries scoped by it return nothing for an unknown
 * or revoked key, so data can never leak even before the key check's result is read.
 */
export const accountOf = (keyHash: KeyRef): SQL<number> =>
  keyHash instanceof KeyGrant ? keyHash.account() : filled(accountPieces(), keyHash);

/**
 * `accountOf`'s subquery for a key without a grant, with its key as the hole: its text is rendered
 * once (see `prerendered`). A grant's is its own (`KeyGrant.account`): one lookup of the key, not
 * one for the grant's key inside another for its account.
 */
export const accountQuery = (keyHash: KeyRef) =>
  sql<number>`(select ${apiKeys.accountId} from ${apiKeys} where ${apiKeys.keyHash} = ${keyHash} and ${apiKeys.revokedAt} is null)`;

const accountPieces = lazyPieces(accountQuery, 1);

type Items = readonly BatchItem<'sqlite'>[];

/** What every key lookup reads of the key (`KeyState`). */
const keyColumns = {
  accountId: apiKeys.accountId,
  expiresAt: apiKeys.expiresAt,
  scopes: apiKeys.scopes,
  lastUsedAt: apiKeys.lastUsedAt,
};

/**
 * Runs `queries` in one batch with the key lookup and returns the account id and their results.
 * A missing or revoked key is a 401; with a `KeyGrant`, so is an expired key, and a key without
 * the scope is a 403 (its queries, scoped by the grant, did nothing).
 */
export async function scoped<T extends Items>(
  db: Db,
  keyHash: KeyRef,
  ...queries: T
): Promise<[number, ...BatchResponse<T>]> {
  const grant = keyHash instanceof KeyGrant ? keyHash : undefined;
  const byKey = eq(apiKeys.keyHash, grant ? grant.key : keyHash);
  // Only a write asks whether the account has an endpoint taking deliveries (its fan-out ask
  // depends on it, outbound/after-write.ts); a read's lookup reads the key alone.
  const writes = grant?.writes === true;
  const keyLookup = shapes.statement(db, writes ? 'key-write' : 'key', [byKey], () =>
    db
      .select(writes ? { ...keyColumns, listening } : keyColumns)
      .from(apiKeys)
      .where(and(byKey, isNull(apiKeys.revokedAt))),
  );
  const touch = grant?.batched(db) ?? [];
  const [keys, ...results] = await db.batch([keyLookup, ...queries, ...touch]);
  const key = keys[0];
  if (key === undefined) throw unauthorized();
  grant?.check(key);
  grant?.afterRead(db, key);
  return [key.accountId, ...(results.slice(0, queries.length) as BatchResponse<T>)];
}

/** WHERE for "row `id` of the caller's account", if live: a row in the trash is not there. */
export const ownRow = (table: TenantTable, keyHash: KeyRef, id: number): SQL | undefined =>
  and(eq(table.accountId, accountOf(keyHash)), eq(table.id, id), live(table));
