import type { GrantSummary } from '@cloudflare/workers-oauth-provider';
import { DomainError } from '../../core/errors';
import { KeyGrant } from '../../db/key-grant';
import { listKeys, ownKey, revokeKey } from '../../model/api-keys';
import { oauthApi, oauthOrigin } from '../../oauth/server';
import { oauthText } from '../oauth-text';
import { type C, pageOf, toSignIn } from '../page';
import { sessionHash, sessionKey } from '../session';
import { messagePage } from '../views/layout';
import { type Connection, connectionsPage } from '../views/oauth';

// The account's OAuth connections (grants) in the settings: each one an assistant's access, which
// any of the account's keys that could have granted it may end.

/** What the panel stored with a grant when it was approved (src/panel/pages/oauth.ts). */
type Stored = { client?: unknown; redirectHost?: unknown; keyId?: unknown };

const connectionOf = (grant: GrantSummary): Connection => {
  const stored = (grant.metadata ?? {}) as Stored;
  return {
    id: grant.id,
    scope: grant.scope,
    createdAt: grant.createdAt,
    ...(grant.expiresAt !== undefined && { expiresAt: grant.expiresAt }),
    client: typeof stored.client === 'string' ? stored.client : grant.clientId,
    redirectHost: typeof stored.redirectHost === 'string' ? stored.redirectHost : '',
  };
};

/** The session's key and the account's grants, or the answer that ends here. */
async function accountGrants(c: C) {
  const origin = oauthOrigin(c.env, new URL(c.req.url));
  const hash = await sessionHash(c);
  if (!hash) return toSignIn(c);
  const now = Date.now();
  const key = new KeyGrant(sessionKey(hash, now), null, now);
  c.set('panelKey', key);
  let accountId: number;
  try {
    accountId = (await ownKey(c.get('db'), key)).accountId;
  } catch (caught) {
    const code = caught instanceof DomainError ? caught.code : undefined;
    if (code === 'unauthorized' || code === 'api_key_expired') return toSignIn(c);
    throw caught;
  }
  if (!origin) return { key, userId: String(accountId), grants: [] as GrantSummary[], api: undefined };
  const api = oauthApi(c.env, origin);
  const { items } = await api.listUserGrants(String(accountId), { limit: 1000 });
  return { key, userId: String(accountId), grants: items, api };
}

export async function connectionsList(c: C): Promise<Response> {
  const found = await accountGrants(c);
  if (found instanceof Response) return found;
  const p = pageOf(c, true);
  // A grant whose key was revoked (DELETE /v1/api-keys/{id}) or expired acts no more: not listed
  // as a connection; the library ends it at its client's next refresh (src/oauth/server.ts).
  const now = Date.now();
  const live = new Set(
    (found.grants.length ? await listKeys(c.get('db'), found.key) : [])
      .filter((key) => key.expiresAt === null || key.expiresAt > now)
      .map((key) => key.id),
  );
  const rows = found.grants
    .filter((grant) => live.has((grant.metadata as Stored | undefined)?.keyId as number))
    .map(connectionOf)
    .sort((a, b) => b.createdAt - a.createdAt);
  return c.html(connectionsPage(p, oauthText[p.lang], rows, c.req.query('done') === 'revoked'));
}

/**
 * Ends a connection: its key first (as `DELETE /v1/api-keys/{id}` would, by a key whose scopes
 * cover it: else a 403 page and nothing changes), then the grant and its tokens.
 */
export async function revokeConnection(c: C): Promise<Response> {
  const found = await accountGrants(c);
  if (found instanceof Response) return found;
  const p = pageOf(c, true);
  const grant = found.grants.find((each) => each.id === c.req.param('grant'));
  if (!grant || !found.api) return c.html(messagePage(p, p.t.notFound, p.t.notFound), 404);
  const keyId = (grant.metadata as Stored | undefined)?.keyId;
  try {
    if (typeof keyId === 'number') await revokeKey(c.get('db'), found.key, keyId, Date.now());
  } catch (caught) {
    if (!(caught instanceof DomainError && caught.code === 'insufficient_scope')) throw caught;
    return c.html(messagePage(p, p.t.noScope, caught.message), 403);
  }
  await found.api.revokeGrant(grant.id, found.userId);
  return c.redirect('/panel/settings/connections?done=revoked', 303);
}
