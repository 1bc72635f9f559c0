import { and, eq, gt, isNull, or } from 'drizzle-orm';
import { newApiKey, sha256Hex } from '../auth/secrets';
import type { Scope } from '../core/scopes';
import type { Db } from '../db/client';
import { apiKeys } from '../db/schema';
import type { KeyRef } from '../db/tenant';
import { createKey } from '../model/api-keys';

/**
 * An OAuth grant acts through an API key of its own, made when the person approves: the account's,
 * holding exactly the approved scopes, named for the client, expiring with the grant (or with the
 * approving key, if sooner). `/mcp` then calls `/v1` with it as with any key, so scopes, tenancy,
 * rate limits and revocation are the keys' own. Its secret is never shown: it lives only inside
 * the grant, which the library stores encrypted with the grant's tokens (only their hashes kept).
 */
export type GrantKey = { id: number; secret: string; accountId: number };

/**
 * Two round trips, as `POST /v1/api-keys` (it is that write, `createKey`): the approving key (its
 * scopes and expiry), then the insert. It expires with the grant, or with the approving key if sooner.
 */
export async function createGrantKey(
  db: Db,
  approver: KeyRef,
  grant: { name: string; scopes: Scope[]; expiresAt: number },
  now: number,
): Promise<GrantKey> {
  const secret = newApiKey(db.shard);
  const body = { name: grant.name, scopes: grant.scopes };
  const row = await createKey(db, approver, await sha256Hex(secret), body, now, (own) =>
    own === null ? grant.expiresAt : Math.min(own, grant.expiresAt),
  );
  return { id: row.id, secret, accountId: row.accountId };
}

/**
 * Revokes the key of a grant its client ended (src/oauth/revocation.ts): no key of the account's
 * acts, so none is asked to cover it; the grant (written by the library from the approval) names
 * the account and the key. One round trip; a key already revoked keeps its first time.
 */
export async function endGrantKey(db: Db, accountId: number, keyId: number, now: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
}

/**
 * Whether the grant's key (by its secret, from the grant's props) still acts: not revoked (from
 * `DELETE /v1/api-keys/{id}` or the panel) and not expired. One round trip.
 */
export async function grantKeyLive(db: Db, secret: string, now: number): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.keyHash, await sha256Hex(secret)),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
      ),
    );
  return rows.length > 0;
}
