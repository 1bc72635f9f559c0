import { describe, expect, it } from 'vitest';
import { call, d1OfRow, type Json, json, newAccount } from '../helpers';
import { approve, codeGrant, connect, ORIGIN, rawList, register, send, started, token } from './helpers';

/** RFC 7009 revocation at the token endpoint, as `clientId`. */
const revoke = (value: string, clientId: string, hint?: string) =>
  send('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: value, client_id: clientId, ...(hint && { token_type_hint: hint }) }),
  });

/** The grant's key as the account's key list shows it (undefined once revoked). */
async function grantKey(accountKey: string): Promise<Json | undefined> {
  const keys = await json(await call('/v1/api-keys', { key: accountKey }));
  return keys.data.find((row: Json) => row.name === 'MCP: Test Assistant');
}

const revokedAt = async (id: number) =>
  (
    await d1OfRow('api_keys', id)
      .prepare('SELECT revoked_at FROM api_keys WHERE id = ?')
      .bind(id)
      .first<{ revoked_at: number | null }>()
  )?.revoked_at;

const connections = async (cookie: string) =>
  (await send('/panel/settings/connections', { headers: { Cookie: cookie } })).text();

describe('a grant ended by its client takes its API key with it', () => {
  for (const kind of ['refresh', 'access'] as const) {
    it(`the client revokes its ${kind} token: 401, no connection in the panel, its key revoked`, async () => {
      const account = await newAccount();
      const { access, refresh, clientId, cookie } = await connect(account.key, ['companies:read']);
      const key = await grantKey(account.key);
      expect(key).toBeDefined();
      expect(await connections(cookie)).toContain('Test Assistant');

      const res = await revoke(kind === 'refresh' ? refresh : access, clientId, `${kind}_token`);
      expect(res.status).toBe(200);
      expect((await rawList(access)).status).toBe(401);
      // The connection is over, not one token of it: the refresh token mints nothing more.
      const again = await token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect(await connections(cookie)).not.toContain('Test Assistant');
      expect(await grantKey(account.key)).toBeUndefined();
      expect(await revokedAt(key?.id)).toEqual(expect.any(Number));
    });
  }

  it('another client, or a forged token, ends nothing', async () => {
    const account = await newAccount();
    const { access, refresh, clientId, cookie } = await connect(account.key, ['companies:read']);
    const other = await register();
    expect((await revoke(refresh, other)).status).toBe(200);
    expect((await revoke(access, other)).status).toBe(200);
    const [userId, grantId] = refresh.split(':');
    expect((await revoke(`${userId}:${grantId}:forged`, clientId)).status).toBe(200);
    expect((await revoke(`${userId}:${grantId}`, clientId)).status).toBe(200);
    expect((await rawList(access)).status).toBe(200);
    expect(await grantKey(account.key)).toBeDefined();
    expect(await connections(cookie)).toContain('Test Assistant');
  });

  it("one connection's revocation leaves the account's other connection and keys alone", async () => {
    const account = await newAccount();
    const first = await connect(account.key, ['companies:read']);
    const s = await started(account.key);
    const code = await approve(s.path, s.cookie, ['companies:read']);
    const second = await token(codeGrant(code, s.clientId, s.verifier));
    expect(second.status).toBe(200);
    expect((await revoke(first.refresh, first.clientId)).status).toBe(200);
    expect((await rawList(first.access)).status).toBe(401);
    expect((await rawList(second.body.access_token)).status).toBe(200);
    const keys = await json(await call('/v1/api-keys', { key: account.key }));
    expect(keys.data.filter((row: Json) => row.name === 'MCP: Test Assistant')).toHaveLength(1);
    expect((await call('/v1/me', { key: account.key })).status).toBe(200);
  });

  it("the grant's key revoked on /v1: 401, the connection leaves the panel, its next refresh ends the grant", async () => {
    const account = await newAccount();
    const { access, refresh, clientId, cookie } = await connect(account.key, ['companies:read']);
    const key = await grantKey(account.key);
    const html = await connections(cookie);
    const action = /action="(\/panel\/settings\/connections\/[^"]+\/revoke)"/.exec(html)?.[1] ?? '';
    expect(action).not.toBe('');
    const deleted = await call(`/v1/api-keys/${key?.id}`, { method: 'DELETE', key: account.key });
    expect(deleted.status).toBe(204);
    expect((await rawList(access)).status).toBe(401);
    expect(await connections(cookie)).not.toContain('Test Assistant');
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
    expect(refreshed.body.error_description).toMatch(/revoked or has expired/);
    // The library ended the grant: the panel no longer finds it to revoke.
    const gone = await send(action, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: ORIGIN, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(gone.status).toBe(404);
  });
});
