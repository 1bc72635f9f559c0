import { describe, expect, it } from 'vitest';
import { call, json, keyWith, newAccount } from '../helpers';
import { connect, ORIGIN, rawList, send, signIn } from './helpers';

const post = (path: string, cookie: string) =>
  send(path, {
    method: 'POST',
    headers: { Cookie: cookie, Origin: ORIGIN, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: '',
  });

describe('OAuth connections in the panel settings', () => {
  it('lists a connection with its client and scopes, and revoking it ends its tokens and its key', async () => {
    const account = await newAccount();
    const { access, cookie } = await connect(account.key, ['companies:read', 'deals:read']);
    const keys = await json(await call('/v1/api-keys', { key: account.key }));
    const grantKey = keys.data.find((row: { name: string | null }) => row.name === 'MCP: Test Assistant');
    expect(grantKey.scopes).toEqual(['companies:read', 'deals:read']);
    expect(grantKey.expires_at).not.toBeNull();

    const settings = await (await send('/panel/settings', { headers: { Cookie: cookie } })).text();
    expect(settings).toContain('/panel/settings/connections');
    const list = await send('/panel/settings/connections', { headers: { Cookie: cookie } });
    const html = await list.text();
    expect(list.status).toBe(200);
    expect(html).toContain('Test Assistant');
    expect(html).toContain('client.example');
    expect(html).toContain('deals:read');
    const action = /action="(\/panel\/settings\/connections\/[^"]+\/revoke)"/.exec(html)?.[1] ?? '';
    expect(action).not.toBe('');

    expect((await rawList(access)).status).toBe(200);
    const revoked = await post(action, cookie);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('Location')).toBe('/panel/settings/connections?done=revoked');
    expect((await rawList(access)).status).toBe(401);
    const after = await json(await call('/v1/api-keys', { key: account.key }));
    expect(after.data.map((row: { id: number }) => row.id)).not.toContain(grantKey.id);
    const empty = await (await send('/panel/settings/connections', { headers: { Cookie: cookie } })).text();
    expect(empty).not.toContain('Test Assistant');
  });

  it("another account's session sees none of the connections and cannot revoke one", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const { access, cookie } = await connect(a.key, ['companies:read']);
    const html = await (await send('/panel/settings/connections', { headers: { Cookie: cookie } })).text();
    const action = /action="(\/panel\/settings\/connections\/[^"]+\/revoke)"/.exec(html)?.[1] ?? '';
    const other = await signIn(b.key);
    const theirs = await (
      await send('/panel/settings/connections', { headers: { Cookie: other.cookie } })
    ).text();
    expect(theirs).not.toContain('Test Assistant');
    expect((await post(action, other.cookie)).status).toBe(404);
    expect((await rawList(access)).status).toBe(200);
  });

  it('a narrower key of the account cannot end a wider connection', async () => {
    const account = await newAccount();
    const { access, cookie } = await connect(account.key, ['companies:read', 'companies:insert']);
    const html = await (await send('/panel/settings/connections', { headers: { Cookie: cookie } })).text();
    const action = /action="(\/panel\/settings\/connections\/[^"]+\/revoke)"/.exec(html)?.[1] ?? '';
    const narrow = await signIn(await keyWith(account.id, ['companies:read']));
    expect((await post(action, narrow.cookie)).status).toBe(403);
    expect((await rawList(access)).status).toBe(200);
  });
});
