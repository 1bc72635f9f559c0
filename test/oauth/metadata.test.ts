import { describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers';
import { ORIGIN, RESOURCE, send } from './helpers';

const METADATA = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;

describe('OAuth discovery', () => {
  it('serves RFC 9728 metadata for /mcp at both addresses', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await send(path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ORIGIN],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('serves RFC 8414 metadata: PKCE S256 only, DCR and CIMD, the panel as authorization endpoint', async () => {
    const res = await send('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const body: Record<string, unknown> = await res.json();
    expect(body).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/panel/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    expect(body.scopes_supported).toContain('companies:read');
    expect(body.scopes_supported).not.toContain('api_keys:insert');
    expect(body.grant_types_supported).not.toContain('implicit');
  });

  it('a 401 from /mcp names the metadata, with no token, a bad API key or a bad OAuth token', async () => {
    const cases: (string | undefined)[] = [undefined, `crm_${'x'.repeat(43)}`, 'not-a-token'];
    for (const bearer of cases) {
      const res = await send('/mcp', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status, bearer).toBe(401);
      expect(res.headers.get('WWW-Authenticate'), bearer).toMatch(
        new RegExp(`^Bearer.*resource_metadata="${METADATA.replace(/[./]/g, '\\$&')}"`),
      );
      if (bearer !== 'not-a-token') await expectProblem(res, 401);
    }
  });

  it('plain http on a public host has no OAuth: the library would refuse such a resource', async () => {
    const res = await send('http://crm.test/.well-known/oauth-authorization-server');
    await expectProblem(res, 404, 'not_found');
  });
});
