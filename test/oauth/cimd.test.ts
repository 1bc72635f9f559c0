import { describe, expect, it } from 'vitest';
import { publicHost } from '../../src/core/public-host';
import { fetchableClientId } from '../../src/oauth/cimd';
import { newAccount } from '../helpers';
import {
  approve,
  authorizePath,
  oauthClient,
  pkce,
  REDIRECT,
  RESOURCE,
  send,
  signIn,
  token,
} from './helpers';

// The metadata document vitest.config.ts's outbound service serves, as a client's site would.
const CLIENT = 'https://cimd.example/oauth/client.json';

const outboundLog = async (): Promise<string[]> => (await fetch('https://cimd.example/outbound-log')).json();

describe('client ID metadata documents', () => {
  it('a client known only by its URL connects: its name and domain on the consent page, then tools', async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.key);
    const { verifier, challenge } = await pkce();
    const path = authorizePath(CLIENT, { code_challenge: challenge });
    const page = await send(path, { headers: { Cookie: cookie } });
    const html = await page.text();
    expect(page.status, html.slice(0, 300)).toBe(200);
    expect(html).toContain('CIMD Assistant');
    expect(html).toContain('cimd.example');
    expect(html).toContain('client.example');
    const code = await approve(path, cookie, ['companies:read']);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: CLIENT,
      code_verifier: verifier,
      resource: RESOURCE,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const client = await oauthClient(res.body.access_token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'list_companies',
      'get_record',
      'get_record_history',
    ]);
    await client.close();
  });

  it('a client URL on a private, loopback or internal host, another scheme or a port is never fetched', async () => {
    const account = await newAccount();
    const { cookie } = await signIn(account.key);
    const { challenge } = await pkce();
    const refused = [
      'https://127.0.0.1/c.json',
      'https://10.1.2.3/c.json',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/c.json',
      'https://localhost/c.json',
      'https://metadata.internal/c.json',
      'http://cimd.example/oauth/client.json',
      'https://cimd.example:8443/oauth/client.json',
      'https://user:pw@cimd.example/oauth/client.json',
      'https://2130706433/c.json',
    ];
    for (const clientId of refused) {
      const res = await send(authorizePath(clientId, { code_challenge: challenge }), {
        headers: { Cookie: cookie },
      });
      expect(res.status, clientId).toBe(400);
      expect(res.headers.get('Location'), clientId).toBeNull();
      const tokenRes = await token({
        grant_type: 'authorization_code',
        code: 'x',
        client_id: clientId,
        code_verifier: 'v'.repeat(43),
      });
      expect(tokenRes.status, clientId).toBe(401);
      expect(tokenRes.body.error).toBe('invalid_client');
    }
    const asked = await outboundLog();
    for (const clientId of refused) expect(asked, clientId).not.toContain(clientId);
  });

  it('the host rule, piece by piece', () => {
    expect(publicHost('cimd.example')).toBe(true);
    expect(publicHost('8.8.8.8')).toBe(true);
    for (const host of [
      '192.168.0.1',
      '172.16.5.4',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      'intranet',
      'printer.local',
      'x.localhost',
    ]) {
      expect(publicHost(host), host).toBe(false);
    }
    expect(fetchableClientId('https://cimd.example/c.json')).toBe(true);
    expect(fetchableClientId(`https://cimd.example/${'a'.repeat(2000)}`)).toBe(false);
    expect(fetchableClientId('not a url')).toBe(false);
  });
});
