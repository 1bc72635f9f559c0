import type { GrantSummary } from '@cloudflare/workers-oauth-provider';
import { primaryDb } from '../db/client';
import { directoryEntry } from '../db/directory';
import { isShard, type ShardBindings } from '../db/shards';
import { endGrantKey } from './grant-keys';
import type { oauthApi } from './server';

type Api = ReturnType<typeof oauthApi>;

/** What a revocation request's token named before the library answered it. */
export type Revoking = { grant: GrantSummary; access: boolean };

/**
 * The grant a token names (the library's tokens are `<user>:<grant>:<secret>`), when it exists,
 * and whether the token is one of its live access tokens (else a refresh token, or not a token).
 * Read before the library answers: once it has ended the grant, its metadata (the key's id) is gone.
 */
export async function revoking(api: Api, token: string): Promise<Revoking | undefined> {
  const parts = token.split(':');
  const [userId, grantId] = parts;
  if (parts.length !== 3 || !userId || !grantId) return undefined;
  const { items } = await api.listUserGrants(userId, { limit: 1000 });
  const grant = items.find((each) => each.id === grantId);
  return grant && { grant, access: (await api.unwrapToken(token)) !== null };
}

/**
 * After the library answered a revocation (RFC 7009) for `before`: did it end anything? Its refresh
 * token ends the grant; its access token ends only that token, so the connection ends here with it
 * (RFC 7009 §2.1 allows it; a client revokes when it disconnects). Either way the grant's API key
 * (src/oauth/grant-keys.ts) is revoked first, then the grant if it is still there: the key would
 * otherwise stay live in the account's list, counting against its cap, until it expired. A token
 * that is not this client's, or a forged one, changed nothing in the library: nothing ends here.
 */
export async function endRevoked(
  api: Api,
  env: ShardBindings,
  token: string,
  before: Revoking,
): Promise<void> {
  const after = await revoking(api, token);
  const ended = !after || (before.access && !after.access);
  if (!ended) return;
  const { grant } = before;
  const keyId = (grant.metadata as { keyId?: unknown } | undefined)?.keyId;
  const accountId = Number(grant.userId);
  if (typeof keyId === 'number' && Number.isSafeInteger(accountId)) {
    // The grant names its account, whose shard the directory (on shard 0) knows: a revocation
    // carries no key of its own to name it, and is rare enough for that one more round trip.
    const entry = await directoryEntry(primaryDb(env, 0), accountId);
    if (entry && isShard(env, entry.shard))
      await endGrantKey(primaryDb(env, entry.shard), accountId, keyId, Date.now());
  }
  if (after) await api.revokeGrant(grant.id, grant.userId);
}
