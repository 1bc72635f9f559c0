import { exports } from 'cloudflare:workers';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import type { Json } from '../helpers';

/** OAuth is served over https (or http on loopback): the tests' origin for it. */
export const ORIGIN = 'https://crm.test';
export const RESOURCE = `${ORIGIN}/mcp`;
export const REDIRECT = 'https://client.example/callback';

/** A request to the Worker as a client or a browser sends it, redirects not followed. */
export const send = (path: string, init: RequestInit = {}) =>
  exports.default.fetch(
    new Request(path.startsWith('http') ? path : `${ORIGIN}${path}`, { redirect: 'manual', ...init }),
  );

export const form = (fields: Record<string, string | string[]>) => {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const each of Array.isArray(value) ? value : [value]) body.append(name, each);
  }
  return body;
};

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A PKCE pair: a random verifier and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  return { verifier, challenge: base64url(digest) };
}

/** Dynamic client registration (RFC 7591) of a public client. */
export async function register(
  redirectUris: string[] = [REDIRECT],
  name = 'Test Assistant',
): Promise<string> {
  const res = await send('/oauth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body: Json = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.client_id;
}

/** The authorization endpoint's URL for `clientId` with `params` (PKCE S256 unless overridden). */
export function authorizePath(clientId: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st4te',
    resource: RESOURCE,
    code_challenge_method: 'S256',
  });
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) query.delete(name);
    else query.set(name, value);
  }
  return `/panel/oauth/authorize?${query}`;
}

/** Signs in to the panel at the https origin with `key`: the session cookie's `name=value`. */
export async function signIn(key: string, next?: string): Promise<{ cookie: string; location: string }> {
  const res = await send('/panel/sign-in', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN },
    body: form({ api_key: key, ...(next ? { next } : {}) }),
  });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '';
  expect(cookie).toMatch(/^__Host-crm_session=/);
  return { cookie, location: res.headers.get('Location') ?? '' };
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .filter((pair) => !/=$/.test(pair));

/** The consent page for `path`: its HTML, its one-time handle and the cookies a browser would now hold. */
export async function consentPage(path: string, cookie: string, status = 200) {
  const res = await send(path, { headers: { Cookie: cookie } });
  const html = await res.text();
  expect(res.status, html.slice(0, 400)).toBe(status);
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { res, html, handle, cookie: [cookie, ...cookiesOf(res)].join('; ') };
}

/** Posts the consent form as the browser would. */
export const decide = (path: string, cookie: string, fields: Record<string, string | string[]>) =>
  send(path, {
    method: 'POST',
    headers: { Cookie: cookie, Origin: ORIGIN, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form(fields),
  });

/** Approves `path` with `scopes` and returns the authorization code the client receives. */
export async function approve(path: string, cookie: string, scopes: string[]): Promise<string> {
  const page = await consentPage(path, cookie);
  const res = await decide(path, page.cookie, { handle: page.handle, decision: 'approve', scope: scopes });
  expect(res.status, await res.clone().text()).toBe(303);
  const location = new URL(res.headers.get('Location') ?? '');
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe('st4te');
  return location.searchParams.get('code') ?? '';
}

/** A token endpoint request (RFC 6749 form). */
export async function token(fields: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await send('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form(fields),
  });
  return { status: res.status, body: await res.json() };
}

/** A refresh of a connection's tokens for this server's `/mcp` (RFC 8707 resource), as a client asks it. */
export const refreshGrant = (refresh: string, clientId: string) =>
  token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId, resource: RESOURCE });

/** The code grant's fields for `code`, as a client sends them; `overrides` changes or drops one. */
export const codeGrant = (
  code: string,
  clientId: string,
  verifier: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> => {
  const fields: Record<string, string | undefined> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
};

/** A registered client, a signed-in person, and a PKCE pair with its authorization path. */
export async function started(key: string) {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const { cookie } = await signIn(key);
  return { clientId, verifier, cookie, path: authorizePath(clientId, { code_challenge: challenge }) };
}

/** The whole dance for `key`: a registered client, consent for `scopes`, and its tokens. */
export async function connect(key: string, scopes: string[]) {
  const { clientId, verifier, cookie, path } = await started(key);
  const code = await approve(path, cookie, scopes);
  const { status, body } = await token(codeGrant(code, clientId, verifier));
  expect(status, JSON.stringify(body)).toBe(200);
  return {
    clientId,
    cookie,
    access: body.access_token as string,
    refresh: body.refresh_token as string,
    body,
  };
}

/** The SDK's client over the Worker's fetch, as the bearer `token`. */
export async function oauthClient(accessToken: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(RESOURCE), {
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC tools/list on /mcp as `accessToken` (2025-11-25 framing). */
export const rawList = (accessToken: string) =>
  send('/mcp', {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${accessToken}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
