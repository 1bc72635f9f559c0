import { eq } from 'drizzle-orm';
import { newApiKey, sha256Hex } from '../auth/secrets';
import type { Scope } from '../core/scopes';
import type { Db } from '../db/client';
import { guardedWrite } from '../db/errors';
import { apiKeys } from '../db/schema';
import { type KeyRef, scoped } from '../db/tenant';
import { assertCovered, newKeyRow } from '../model/api-keys';

/**
 * An OAuth grant acts through an API key of its own, made when the person approves: the account's,
 * holding exactly the approved scopes, named for the client, expiring with the grant (or with the
 * approving key, if sooner). `/mcp` then calls `/v1` with it as with any key, so scopes, tenancy,
 * rate limits and revocation are the keys' own. Its secret is never shown: it lives only inside
 * the grant, which the library stores encrypted with the grant's tokens (only their hashes kept).
 */
export type GrantKey = { id: number; secret: string; accountId: number };

/** Two round trips, as `POST /v1/api-keys`: the approving key (its scopes and expiry), then the insert. */
export async function createGrantKey(
  db: Db,
  approver: KeyRef,
  grant: { name: string; scopes: Scope[]; expiresAt: number },
  now: number,
): Promise<GrantKey> {
  const [accountId, approvers] = await scoped(
    db,
    approver,
    db
      .select({ scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, approver)),
  );
  const own = approvers[0];
  if (!own) throw new Error('the approving key vanished within its own batch');
  assertCovered(own.scopes, grant.scopes);
  const secret = newApiKey();
  const expiresAt = own.expiresAt === null ? grant.expiresAt : Math.min(own.expiresAt, grant.expiresAt);
  const body = { name: grant.name, scopes: grant.scopes };
  const [row] = await guardedWrite(
    db
      .insert(apiKeys)
      .values(newKeyRow({ accountId, hash: await sha256Hex(secret), body, expiresAt }, now))
      .returning({ id: apiKeys.id }),
    apiKeys,
  );
  if (!row) throw new Error('api key insert returned no row');
  return { id: row.id, secret, accountId };
}
