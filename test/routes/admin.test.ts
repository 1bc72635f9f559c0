import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import {
  adminHeaders,
  BASE,
  call,
  countOnEveryShard,
  d1OfRow,
  expectProblem,
  expectReadOnly,
  json,
  newAccount,
} from '../helpers';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const createAccount = (body: unknown, headers: Record<string, string> = adminHeaders()) =>
  call('/admin/accounts', { method: 'POST', body, headers });

const KEY_FIELDS = ['created_at', 'expires_at', 'id', 'key', 'last_used_at', 'name', 'scopes'];

const NEEDS_TOKEN = 'The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.';

async function expectUnauthorized(res: Response, detail = NEEDS_TOKEN): Promise<void> {
  expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
  expect((await expectProblem(res, 401, 'unauthorized')).detail).toBe(detail);
}

describe('POST /admin/accounts', () => {
  it('creates an account and its first API key', async () => {
    const before = Date.now();
    const res = await createAccount({ name: '  Acme Ltda  ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(['data']);
    expect(Object.keys(body.data).sort()).toEqual(['account', 'api_key']);
    const { account, api_key } = body.data;
    expect(Object.keys(account).sort()).toEqual(['created_at', 'id', 'name', 'shard', 'state']);
    expect(Object.keys(api_key).sort()).toEqual(KEY_FIELDS);
    // Made without scopes: full access, unnamed, never expiring.
    expect(api_key).toMatchObject({ name: null, scopes: null, expires_at: null, last_used_at: null });
    expect(account).toMatchObject({
      id: expect.any(Number),
      name: 'Acme Ltda',
      created_at: expect.any(String),
    });
    expect(account.id).toBeGreaterThan(0);
    expect(account.created_at).toMatch(ISO);
    expect(Date.parse(account.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(api_key.id).toBeGreaterThan(0);
    expect(api_key.key).toMatch(/^crm_(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/);
    expect(api_key.created_at).toMatch(ISO);

    // The key belongs to the new account and works at once.
    const row = await d1OfRow('api_keys', api_key.id)
      .prepare('SELECT account_id, revoked_at FROM api_keys WHERE id = ?')
      .bind(api_key.id)
      .first();
    expect(row).toEqual({ account_id: account.id, revoked_at: null });
    expect((await call('/v1/users', { key: api_key.key })).status).toBe(200);
  });

  it('gives each account its own id', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    expect(a.id).not.toBe(b.id);
    expect(a.keyId).not.toBe(b.keyId);
  });

  it('answers 401 without the admin token or with a wrong one', async () => {
    const { key } = await newAccount();
    await expectUnauthorized(await createAccount({ name: 'X' }, {}));
    await expectUnauthorized(await createAccount({ name: 'X' }, { Authorization: 'Bearer wrong-token' }));
    await expectUnauthorized(
      await createAccount({ name: 'X' }, { Authorization: `Bearer ${env.ADMIN_TOKEN}x` }),
    );
    await expectUnauthorized(
      await createAccount({ name: 'X' }, { Authorization: `Basic ${btoa(`admin:${env.ADMIN_TOKEN}`)}` }),
    );
    // A tenant API key is no admin token, and the 401 says so, also for a key cut short.
    for (const sent of [key, key.slice(0, 20)]) {
      await expectUnauthorized(
        await createAccount({ name: 'X' }, { Authorization: `Bearer ${sent}` }),
        'This is an account API key (crm_…); /admin takes the ADMIN_TOKEN: Authorization: Bearer <ADMIN_TOKEN>.',
      );
    }
    const count = await countOnEveryShard("SELECT count(*) AS n FROM accounts WHERE name = 'X'");
    expect(count).toBe(0);
  });

  it('answers 401 on every admin route without the token', async () => {
    const { id, keyId } = await newAccount();
    await expectUnauthorized(await call(`/admin/accounts/${id}/api-keys`, { method: 'POST' }));
    await expectUnauthorized(await call(`/admin/api-keys/${keyId}`, { method: 'DELETE' }));
    const row = await d1OfRow('api_keys', keyId)
      .prepare('SELECT revoked_at FROM api_keys WHERE id = ?')
      .bind(keyId)
      .first();
    expect(row).toEqual({ revoked_at: null });
  });

  it('answers 422 when the name is missing or empty', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }]) {
      const problem = await expectProblem(await createAccount(body), 422, 'validation_failed');
      expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' })]));
    }
    const missing = await expectProblem(await createAccount({}), 422);
    expect(missing.errors).toContainEqual(expect.objectContaining({ path: 'name', code: 'required' }));
    await expectProblem(await createAccount({ name: 5 }), 422, 'validation_failed');
  });

  it('answers 422 for an unknown field', async () => {
    const problem = await expectProblem(
      await createAccount({ name: 'Acme', plan: 'pro' }),
      422,
      'validation_failed',
    );
    expect(problem.errors).toContainEqual(expect.objectContaining({ path: 'plan', code: 'unknown_field' }));
  });

  it('answers 422 read_only for the fields the API sets, like every resource', async () => {
    await expectReadOnly(
      await createAccount({ name: 'Acme', id: 7, created_at: '2001-01-01T00:00:00.000Z' }),
      ['id', 'created_at'],
    );
  });

  it('guards its body like every JSON route', async () => {
    await expectProblem(await createAccount('{bad'), 400, 'malformed_json');
    await expectProblem(await createAccount('[]'), 400, 'body_not_object');
    await expectProblem(
      await call('/admin/accounts', {
        method: 'POST',
        body: '{"name":"X"}',
        headers: { ...adminHeaders(), 'Content-Type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
  });
});

describe('POST /admin/accounts/{id}/api-keys', () => {
  it('issues another key for the account', async () => {
    const { id, keyId } = await newAccount();
    const res = await call(`/admin/accounts/${id}/api-keys`, { method: 'POST', headers: adminHeaders() });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(Object.keys(data).sort()).toEqual(KEY_FIELDS);
    expect(data).toMatchObject({ name: null, scopes: null, expires_at: null });
    expect(data.id).not.toBe(keyId);
    expect(data.key).toMatch(/^crm_(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/);
    expect(data.created_at).toMatch(ISO);
    const row = await d1OfRow('api_keys', data.id)
      .prepare('SELECT account_id FROM api_keys WHERE id = ?')
      .bind(data.id)
      .first();
    expect(row).toEqual({ account_id: id });
    expect((await call('/v1/users', { key: data.key })).status).toBe(200);
  });

  it('answers 404 for an unknown account', async () => {
    await newAccount();
    const res = await call('/admin/accounts/999999/api-keys', { method: 'POST', headers: adminHeaders() });
    await expectProblem(res, 404, 'not_found');
    const count = await countOnEveryShard('SELECT count(*) AS n FROM api_keys WHERE account_id = 999999');
    expect(count).toBe(0);
  });

  it('answers 404 for an id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-1', '1.5']) {
      const res = await call(`/admin/accounts/${id}/api-keys`, { method: 'POST', headers: adminHeaders() });
      await expectProblem(res, 404, 'not_found');
    }
  });
});

describe('DELETE /admin/api-keys/{id}', () => {
  it('revokes a key: 204, and the key answers 401 from then on', async () => {
    const { key, keyId } = await newAccount();
    const res = await call(`/admin/api-keys/${keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await call('/v1/users', { key })).status).toBe(401);
  });

  it('answers 204 again for a key already revoked, keeping the first revocation time', async () => {
    const { keyId } = await newAccount();
    const revoke = () => call(`/admin/api-keys/${keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect((await revoke()).status).toBe(204);
    const revokedAt = async () =>
      d1OfRow('api_keys', keyId)
        .prepare('SELECT revoked_at FROM api_keys WHERE id = ?')
        .bind(keyId)
        .first<number>('revoked_at');
    const first = await revokedAt();
    expect(typeof first).toBe('number');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await revoke()).status).toBe(204);
    expect(await revokedAt()).toBe(first);
  });

  it('answers 404 for an unknown key', async () => {
    await newAccount();
    const res = await call('/admin/api-keys/999999', { method: 'DELETE', headers: adminHeaders() });
    await expectProblem(res, 404, 'not_found');
  });

  it('revokes only the key named', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    await call(`/admin/api-keys/${a.keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect((await call('/v1/users', { key: a.key })).status).toBe(401);
    expect((await call('/v1/users', { key: b.key })).status).toBe(200);
  });
});

describe('without ADMIN_TOKEN', () => {
  async function fetchWith(
    adminToken: string | undefined,
    path: string,
    init: RequestInit,
  ): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}${path}`, init),
      { ...env, ADMIN_TOKEN: adminToken },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  }

  it('answers 404 on every admin route, with or without a token', async () => {
    const { id, keyId, key } = await newAccount();
    const routes: [string, string, string | undefined][] = [
      ['POST', '/admin/accounts', '{"name":"Ghost"}'],
      ['POST', `/admin/accounts/${id}/api-keys`, undefined],
      ['DELETE', `/admin/api-keys/${keyId}`, undefined],
      ['GET', '/admin/no-such-route', undefined],
    ];
    for (const adminToken of [undefined, '']) {
      for (const auth of [undefined, `Bearer ${env.ADMIN_TOKEN}`, `Bearer ${adminToken ?? ''}`]) {
        for (const [method, path, body] of routes) {
          const headers: Record<string, string> = { 'Content-Type': 'application/json' };
          if (auth) headers.Authorization = auth;
          const res = await fetchWith(adminToken, path, { method, headers, body });
          const problem = await expectProblem(res, 404, 'not_found');
          // How to turn it on, and nothing of any token.
          expect(problem.detail).toBe(
            'The admin API is off: set the ADMIN_TOKEN secret to turn it on (locally in .dev.vars, see .dev.vars.example; in production with `wrangler secret put ADMIN_TOKEN`).',
          );
        }
      }
    }
    // Nothing happened: no account made, no key issued or revoked.
    const ghosts = await countOnEveryShard("SELECT count(*) AS n FROM accounts WHERE name = 'Ghost'");
    expect(ghosts).toBe(0);
    const keys = await countOnEveryShard('SELECT count(*) AS n FROM api_keys WHERE account_id = ?', id);
    expect(keys).toBe(1);
    expect((await call('/v1/users', { key })).status).toBe(200);
  });

  it('still answers a method the path lacks 405, from the public route table', async () => {
    const res = await fetchWith(undefined, '/admin/accounts', { method: 'DELETE' });
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('Allow')).toBe('GET, HEAD, POST');
  });

  it('leaves the rest of the API working', async () => {
    const { key } = await newAccount();
    const res = await fetchWith(undefined, '/v1/users', { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const health = await fetchWith(undefined, '/health', {});
    expect(health.status).toBe(200);
  });
});
