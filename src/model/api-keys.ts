import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { ApiKeyCreateBody } from '../contracts/api-keys';
import { iso, isoOrNull } from '../contracts/common';
import { insufficientScope, invalid, MAX_LIVE_KEYS, notFound } from '../core/errors';
import { covers, type Scope } from '../core/scopes';
import type { Db } from '../db/client';
import { guardedWrite } from '../db/errors';
import { apiKeys } from '../db/schema';
import { accountOf, type KeyRef, scoped } from '../db/tenant';

type KeyRow = typeof apiKeys.$inferSelect;

/** A key as the API shows it: never its hash or secret. */
export const presentKey = (row: KeyRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as Scope[] | null,
  expires_at: isoOrNull(row.expiresAt),
  last_used_at: isoOrNull(row.lastUsedAt),
  created_at: iso(row.createdAt),
});

const liveKeysOf = (key: KeyRef) => and(eq(apiKeys.accountId, accountOf(key)), isNull(apiKeys.revokedAt));

/** The account's live keys, newest first: at most MAX_LIVE_KEYS, so one page. */
export async function listKeys(db: Db, key: KeyRef): Promise<KeyRow[]> {
  const [, rows] = await scoped(
    db,
    key,
    db.select().from(apiKeys).where(liveKeysOf(key)).orderBy(desc(apiKeys.id)).limit(MAX_LIVE_KEYS),
  );
  return rows;
}

export async function getKey(db: Db, key: KeyRef, id: number): Promise<KeyRow> {
  const [, rows] = await scoped(
    db,
    key,
    db
      .select()
      .from(apiKeys)
      .where(and(liveKeysOf(key), eq(apiKeys.id, id))),
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}

/** The key the request is made with. */
export async function ownKey(db: Db, key: KeyRef): Promise<KeyRow> {
  const [, rows] = await scoped(db, key, db.select().from(apiKeys).where(eq(apiKeys.keyHash, key)));
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}

/**
 * Revokes the account's key `id` (again is fine): it answers 401 from the next request on. A key
 * may revoke itself, or a key whose scopes its own cover: a narrow key cannot lock the owner out by
 * revoking a wider one. Two round trips: both keys' scopes with the key lookup, then the update.
 */
export async function revokeKey(db: Db, key: KeyRef, id: number, now: number): Promise<void> {
  const [, mine, targets] = await scoped(
    db,
    key,
    db.select({ id: apiKeys.id, scopes: apiKeys.scopes }).from(apiKeys).where(eq(apiKeys.keyHash, key)),
    db
      .select({ scopes: apiKeys.scopes })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountOf(key)), eq(apiKeys.id, id))),
  );
  const [own, target] = [mine[0], targets[0]];
  if (!own || !target) throw notFound();
  const missing = own.id === id ? undefined : uncovered(own.scopes, target.scopes as Scope[] | null);
  if (missing) {
    throw insufficientScope(
      missing,
      `This API key cannot revoke a key wider than itself: key ${id} holds ${missing}, which this one does not. Revoke it with a key that holds all of its scopes (a full-access key covers every key).`,
    );
  }
  await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})` })
    .where(and(eq(apiKeys.accountId, accountOf(key)), eq(apiKeys.id, id)));
}

/**
 * The expiry a new key gets: the body's, which must be in the future and, when the creating key
 * expires, no later than it (absent: the creator's own), so no key outlives what made it.
 */
export function expiryOf(
  body: Pick<ApiKeyCreateBody, 'expires_at'>,
  creatorExpiresAt: number | null,
  now: number,
): number | null {
  const wanted = body.expires_at ?? null;
  const problem = (message: string) => invalid([{ path: 'expires_at', code: 'invalid', message }]);
  if (wanted !== null && wanted <= now) throw problem('expires_at must be in the future.');
  if (creatorExpiresAt === null) return wanted;
  if (wanted === null) return creatorExpiresAt;
  if (wanted > creatorExpiresAt) {
    throw problem(`expires_at must not be after the creating key's own expiry, ${iso(creatorExpiresAt)}.`);
  }
  return wanted;
}

/** The first of `wanted` (null: full access, `*:*`) that `held` does not cover, if any. */
const uncovered = (held: readonly string[] | null, wanted: readonly Scope[] | null): Scope | undefined =>
  (wanted ?? (['*:*'] as const)).find((scope) => !covers(held, [scope]));

/** The 403 of a key that asks for a scope it does not hold itself (null: full access). */
export function assertCovered(held: readonly string[] | null, wanted: readonly Scope[] | null): void {
  const scope = uncovered(held, wanted);
  if (scope) {
    const asked = wanted === null ? 'full access (no `scopes`)' : scope;
    throw insufficientScope(
      scope,
      `This API key cannot grant ${asked}: a key can only grant what it holds itself, and it does not hold ${scope}. Ask for fewer scopes, or create the key with a key that holds them (a full-access key holds every scope; GET /v1/me lists this key's).`,
    );
  }
}

export type NewKey = {
  accountId: number;
  hash: string;
  body: Pick<ApiKeyCreateBody, 'scopes' | 'name'>;
  expiresAt: number | null;
};

/** The row of a new key (its secret's hash only). */
export const newKeyRow = ({ accountId, hash, body, expiresAt }: NewKey, now: number) => ({
  accountId,
  keyHash: hash,
  createdAt: now,
  name: body.name ?? null,
  scopes: body.scopes ?? null,
  expiresAt,
});

/**
 * Two round trips, like every write: the creating key (its scopes and expiry), then the insert,
 * which the trigger `api_keys_cap` refuses (409) once the account holds MAX_LIVE_KEYS live keys:
 * checked inside the insert, so concurrent creates cannot pass it together.
 */
export async function createKey(
  db: Db,
  key: KeyRef,
  hash: string,
  body: ApiKeyCreateBody,
  now: number,
  // The new key's expiry from the creating key's: the body's `expires_at` within it, by default.
  expiry: (creatorExpiresAt: number | null) => number | null = (creatorExpiresAt) =>
    expiryOf(body, creatorExpiresAt, now),
) {
  const [accountId, creators] = await scoped(
    db,
    key,
    db
      .select({ scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, key)),
  );
  const creator = creators[0];
  if (!creator) throw notFound();
  assertCovered(creator.scopes, body.scopes ?? null);
  const expiresAt = expiry(creator.expiresAt);
  const [row] = await guardedWrite(
    db.insert(apiKeys).values(newKeyRow({ accountId, hash, body, expiresAt }, now)).returning(),
    apiKeys,
  );
  if (!row) throw new Error('api key insert returned no row');
  return row;
}
