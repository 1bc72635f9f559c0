import { describe, expect, it } from 'vitest';
import { keyWith, newAccount } from '../helpers';
import {
  authorizePath,
  connect,
  consentPage,
  oauthClient,
  pkce,
  RESOURCE,
  rawList,
  refreshGrant,
  register,
  send,
  signIn,
  token,
} from './helpers';

describe('OAuth 2.1 for /mcp', () => {
  it('DCR, consent with PKCE, token, tools, refresh, revoke, then 401', async () => {
    const account = await newAccount();
    const key = await keyWith(account.id, ['*:read', 'companies:insert']);
    const { access, refresh, clientId, body } = await connect(key, ['companies:read', 'companies:insert']);
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    const client = await oauthClient(access);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['create_record', 'get_record', 'get_record_history', 'list_companies']);
    const made = await client.callTool({
      name: 'create_record',
      arguments: { company: { name: 'Acme', cnpj: '11222333000181' } },
    });
    expect(made.isError).toBeFalsy();
    const list = await client.callTool({ name: 'list_companies', arguments: {} });
    expect((list.structuredContent as { data: { name: string }[] }).data.map((row) => row.name)).toEqual([
      'Acme',
    ]);
    await client.close();

    const refreshed = await refreshGrant(refresh, clientId);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const fresh = refreshed.body.access_token as string;
    expect((await rawList(fresh)).status).toBe(200);

    const revoked = await send('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.body.refresh_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await rawList(fresh);
    expect(after.status).toBe(401);
    expect(after.headers.get('WWW-Authenticate')).toContain(
      `resource_metadata="${RESOURCE.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('a token asked for fewer scopes than the grant sees and calls no more; the next refresh may ask for all', async () => {
    const account = await newAccount();
    const key = await keyWith(account.id, ['*:read', 'companies:insert']);
    const { refresh, clientId } = await connect(key, ['companies:read', 'companies:insert']);
    const refreshed = (scope?: string, refreshToken = refresh) =>
      token({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        resource: RESOURCE,
        ...(scope && { scope }),
      });
    const narrow = await refreshed('companies:read');
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    expect(narrow.body.scope).toBe('companies:read');
    const client = await oauthClient(narrow.body.access_token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['get_record', 'get_record_history', 'list_companies']);
    const refused = await client.callTool({
      name: 'create_record',
      arguments: { company: { name: 'Acme', cnpj: '11222333000181' } },
    });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'companies:insert',
    });
    expect((refused.content as { text: string }[])[0]?.text).toContain('companies:insert');
    await client.close();

    const full = await refreshed(undefined, narrow.body.refresh_token);
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    const again = await oauthClient(full.body.access_token);
    const made = await again.callTool({
      name: 'create_record',
      arguments: { company: { name: 'Acme', cnpj: '11222333000181' } },
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    // Nothing was written by the refused call: only the second one's company exists.
    const list = await again.callTool({ name: 'list_companies', arguments: {} });
    expect((list.structuredContent as { data: unknown[] }).data).toHaveLength(1);
    await again.close();
  });

  it('the consent page sends a person with no session to sign in, and back to it', async () => {
    const account = await newAccount();
    const clientId = await register();
    const path = authorizePath(clientId, { code_challenge: (await pkce()).challenge });
    const res = await send(path);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('Location') ?? '', 'https://crm.test');
    expect(to.pathname).toBe('/panel/sign-in');
    const next = to.searchParams.get('next') ?? '';
    expect(next).toBe(path);
    const form = await (await send(`${to.pathname}${to.search}`)).text();
    expect(form).toContain('name="next"');
    const { cookie, location } = await signIn(account.key, next);
    expect(location).toBe(path);
    const page = await consentPage(location, cookie);
    expect(page.html).toContain('Test Assistant');
    expect(page.html).toContain('client.example');
    // Each scope in words a configurer reads (pt-BR first), its code beside them.
    expect(page.html).toContain('Ver empresas <code>companies:read</code>');
    expect(page.html).toContain('Alterar negócios <code>deals:update</code>');
    expect(page.res.headers.get('Content-Security-Policy')).toContain(
      "form-action 'self' https://client.example",
    );
    expect(page.res.headers.get('X-Frame-Options')).toBe('DENY');
  });

  it('API keys keep working on /mcp and /v1 beside OAuth', async () => {
    const account = await newAccount();
    expect((await rawList(account.key)).status).toBe(200);
    const me = await send('/v1/me', { headers: { Authorization: `Bearer ${account.key}` } });
    expect(me.status).toBe(200);
  });
});
