import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { apiKeyShard } from '../../src/auth/secrets';
import worker from '../../src/index';
import {
  adminHeaders,
  BASE,
  bindingOf,
  call,
  d1Of,
  d1OfRow,
  expectProblem,
  type Json,
  json,
  newAccount,
  recordingD1,
  roundTrips,
} from '../helpers';

const MINUTE = 60_000;

async function adminKey(accountId: number, body: Json): Promise<Json> {
  const res = await call(`/admin/accounts/${accountId}/api-keys`, {
    method: 'POST',
    headers: adminHeaders(),
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json(res)).data;
}

const createKey = (key: string, body: Json, headers: Record<string, string> = {}) =>
  call('/v1/api-keys', { method: 'POST', key, body, headers });

const keyRow = (id: number) =>
  d1OfRow('api_keys', id)
    .prepare('SELECT * FROM api_keys WHERE id = ?')
    .bind(id)
    .first<Record<string, unknown>>();

/** `n` more live keys of the account, written straight to D1. */
async function fillKeys(accountId: number, n: number): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    await d1Of(accountId)
      .prepare('INSERT INTO api_keys (account_id, key_hash, created_at) VALUES (?, ?, ?)')
      .bind(accountId, `filler-${accountId}-${i}`, now)
      .run();
  }
}

const liveKeys = async (accountId: number) =>
  (
    await d1Of(accountId)
      .prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL')
      .bind(accountId)
      .first<{ n: number }>()
  )?.n;

/** A request through the Worker whose `waitUntil` work is awaited too (the last-used write of a read). */
async function settled(db: D1Database, path: string, key: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { headers: { Authorization: `Bearer ${key}` } }),
    // `db` stands for the shard the key names.
    { ...env, [bindingOf(apiKeyShard(key) ?? 0)]: db },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe('/v1/api-keys: an account manages its own keys', () => {
  it('creates (secret shown once, with Location), lists and reads without the secret, and revokes', async () => {
    const { key } = await newAccount();
    const res = await createKey(key, { name: 'Reporting', scopes: ['*:read'] });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(data).toMatchObject({
      name: 'Reporting',
      scopes: ['*:read'],
      expires_at: null,
      last_used_at: null,
    });
    expect(data.key).toMatch(/^crm_(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('Location')).toBe(`${BASE}/v1/api-keys/${data.id}`);
    // Only its hash is stored.
    expect(JSON.stringify(await keyRow(data.id))).not.toContain(data.key);

    const listed = (await json(await call('/v1/api-keys', { key }))).data;
    expect(listed.map((k: Json) => k.id)).toContain(data.id);
    expect(JSON.stringify(listed)).not.toContain(data.key);
    const one = await json(await call(`/v1/api-keys/${data.id}`, { key }));
    expect(one.data).not.toHaveProperty('key');
    expect(one.data).toMatchObject({ id: data.id, name: 'Reporting', scopes: ['*:read'] });

    // The new key reads, and cannot write.
    expect((await call('/v1/companies', { key: data.key })).status).toBe(200);
    const write = await call('/v1/users', {
      method: 'POST',
      key: data.key,
      body: { name: 'A', email: 'a@x.com' },
    });
    expect((await expectProblem(write, 403, 'insufficient_scope')).required_scope).toBe('users:insert');

    expect((await call(`/v1/api-keys/${data.id}`, { method: 'DELETE', key })).status).toBe(204);
    await expectProblem(await call('/v1/companies', { key: data.key }), 401, 'unauthorized');
    expect((await call(`/v1/api-keys/${data.id}`, { key })).status).toBe(404);
  });

  it('a key of another account is a 404 to read or revoke', async () => {
    const mine = await newAccount();
    const theirs = await newAccount('Other');
    const { id } = (await json(await createKey(mine.key, { name: 'Mine' }))).data;
    expect((await call(`/v1/api-keys/${id}`, { key: theirs.key })).status).toBe(404);
    expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE', key: theirs.key })).status).toBe(404);
    expect((await keyRow(id))?.revoked_at).toBeNull();
  });

  it('a key revokes only a key its scopes cover (itself always): never a wider one', async () => {
    const account = await newAccount();
    const deleter = await adminKey(account.id, { name: 'Deleter', scopes: ['api_keys:delete'] });
    const reader = await adminKey(account.id, { name: 'Reader', scopes: ['*:read'] });
    // The owner's full-access key and a key with scopes it lacks stay live: a 403 naming why.
    for (const target of [account.keyId, reader.id]) {
      const res = await call(`/v1/api-keys/${target}`, { method: 'DELETE', key: deleter.key });
      const problem = await expectProblem(res, 403, 'insufficient_scope');
      expect(problem.detail).toContain('cannot revoke a key wider than itself');
      expect(problem.required_scope).toBe(target === account.keyId ? '*:*' : '*:read');
      expect(roundTrips(res)).toBeLessThanOrEqual(2);
      expect((await keyRow(target))?.revoked_at).toBeNull();
    }
    expect((await call('/v1/companies', { key: account.key })).status).toBe(200);
    // A key no wider than itself, and itself, it may revoke.
    const peer = await adminKey(account.id, { name: 'Peer', scopes: ['api_keys:delete'] });
    const res = await call(`/v1/api-keys/${peer.id}`, { method: 'DELETE', key: deleter.key });
    expect(res.status).toBe(204);
    expect(roundTrips(res)).toBeLessThanOrEqual(2);
    expect((await call(`/v1/api-keys/${deleter.id}`, { method: 'DELETE', key: deleter.key })).status).toBe(
      204,
    );
    expect((await keyRow(deleter.id))?.revoked_at).not.toBeNull();
    // The full-access key covers every key.
    expect((await call(`/v1/api-keys/${reader.id}`, { method: 'DELETE', key: account.key })).status).toBe(
      204,
    );
  });

  it('a key never creates a key with more than its own scopes, today or once a resource is added', async () => {
    const account = await newAccount();
    const parent = (await adminKey(account.id, { name: 'P', scopes: ['api_keys:insert', 'companies:read'] }))
      .key;
    const before = await liveKeys(account.id);
    for (const [scopes, required] of [
      [['companies:update'], 'companies:update'],
      [['*:read'], '*:read'],
      [['companies:*'], 'companies:*'],
      [undefined, '*:*'],
    ] as const) {
      const res = await createKey(parent, { name: 'Child', ...(scopes && { scopes }) });
      expect((await expectProblem(res, 403, 'insufficient_scope')).required_scope, String(scopes)).toBe(
        required,
      );
    }
    expect(await liveKeys(account.id)).toBe(before);
    expect((await createKey(parent, { name: 'Child', scopes: ['companies:read'] })).status).toBe(201);

    // Every resource's read, one by one, is not `*:read`, which would also read a resource added
    // later; it makes a key of the same reads, and only `*:read` (or `*:*`) makes a `*:read` key.
    const reads = ['users', 'companies', 'contacts', 'deals', 'tasks', 'webhooks', 'api_keys'].map(
      (r) => `${r}:read`,
    );
    const wide = (await adminKey(account.id, { name: 'W', scopes: [...reads, 'api_keys:insert'] })).key;
    const wildcard = await createKey(wide, { name: 'R', scopes: ['*:read'] });
    expect((await expectProblem(wildcard, 403, 'insufficient_scope')).required_scope).toBe('*:read');
    expect((await createKey(wide, { name: 'R', scopes: reads })).status).toBe(201);
    const readAll = (await adminKey(account.id, { name: 'RA', scopes: ['*:read', 'api_keys:insert'] })).key;
    expect((await createKey(readAll, { name: 'R', scopes: ['*:read'] })).status).toBe(201);

    // Without api_keys:insert, no key at all.
    const reader = (await adminKey(account.id, { name: 'Reader', scopes: ['*:read'] })).key;
    const refused = await createKey(reader, { name: 'R', scopes: ['companies:read'] });
    expect((await expectProblem(refused, 403, 'insufficient_scope')).required_scope).toBe('api_keys:insert');
  });

  it('refuses an empty or unknown scope list and an expiry in the past', async () => {
    const { key } = await newAccount();
    for (const scopes of [[], ['companies:read', 'companies:archive'], ['leads:read']]) {
      const body = await expectProblem(await createKey(key, { name: 'X', scopes }), 422, 'validation_failed');
      expect(body.errors[0].path, JSON.stringify(scopes)).toMatch(/^scopes/);
    }
    const past = await createKey(key, { name: 'X', expires_at: '2020-01-01T00:00:00Z' });
    expect((await expectProblem(past, 422, 'validation_failed')).errors[0].path).toBe('expires_at');
  });

  it('an expired key is a 401 that says so; a key it made expires no later than it', async () => {
    const account = await newAccount();
    const expiresAt = new Date(Date.now() + 3_600_000);
    const parent = await adminKey(account.id, { name: 'P', expires_at: expiresAt.toISOString() });
    expect(parent.expires_at).toBe(expiresAt.toISOString());
    const child = (await json(await createKey(parent.key, { name: 'C' }))).data;
    expect(child.expires_at).toBe(expiresAt.toISOString());
    const later = new Date(expiresAt.getTime() + MINUTE).toISOString();
    const tooLate = await createKey(parent.key, { name: 'C2', expires_at: later });
    expect((await expectProblem(tooLate, 422, 'validation_failed')).errors[0].path).toBe('expires_at');

    await d1OfRow('api_keys', parent.id)
      .prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?')
      .bind(Date.now() - 1000, parent.id)
      .run();
    for (const [method, path] of [
      ['GET', '/v1/users'],
      ['POST', '/v1/users'],
    ]) {
      const res = await call(path as string, {
        method,
        key: parent.key,
        body: method === 'POST' ? { name: 'A', email: 'a@x.com' } : undefined,
      });
      const problem = await expectProblem(res, 401, 'api_key_expired');
      expect(problem.detail).toMatch(/expired at \d{4}-/);
    }
    expect(await liveKeys(account.id)).toBe(3);
    const users = await d1Of(account.id)
      .prepare('SELECT count(*) AS n FROM users WHERE account_id = ?')
      .bind(account.id)
      .first();
    expect(users?.n).toBe(0);
  });

  it('POST /v1/api-keys refuses an Idempotency-Key: the secret is never stored to replay', async () => {
    const account = await newAccount();
    const before = await liveKeys(account.id);
    const res = await createKey(account.key, { name: 'X' }, { 'Idempotency-Key': 'k1' });
    await expectProblem(res, 400, 'invalid_idempotency_key');
    expect(await liveKeys(account.id)).toBe(before);
    const stored = await d1Of(account.id)
      .prepare('SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?')
      .bind(account.id)
      .first();
    expect(stored?.n).toBe(0);
  });

  it('a request refused for its scope stores nothing under its Idempotency-Key', async () => {
    const account = await newAccount();
    const reader = (await adminKey(account.id, { name: 'R', scopes: ['*:read'] })).key;
    const headers = { 'Idempotency-Key': 'once' };
    const body = { name: 'A', email: 'a@x.com' };
    await expectProblem(
      await call('/v1/users', { method: 'POST', key: reader, body, headers }),
      403,
      'insufficient_scope',
    );
    const stored = await d1Of(account.id)
      .prepare('SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?')
      .bind(account.id)
      .first();
    expect(stored?.n).toBe(0);
  });

  it('an account holds at most 100 live keys', async () => {
    const account = await newAccount();
    await fillKeys(account.id, 99);
    await expectProblem(await createKey(account.key, { name: 'X' }), 409, 'conflict');
  });

  it('40 concurrent creates leave at most 100 live keys: the cap holds in the database', async () => {
    const account = await newAccount();
    await fillKeys(account.id, 69);
    // 70 live keys: room for 30 more, asked for by 40 at once.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createKey(account.key, { name: `Burst ${i}` })),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(30);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    for (const res of answers.filter((r) => r.status === 409)) {
      const problem = await expectProblem(res, 409, 'conflict');
      expect(problem.detail).toMatch(/at most 100 live API keys/);
    }
    expect(await liveKeys(account.id)).toBe(100);
    // The operator's route meets the same cap, with the same answer.
    const admin = await call(`/admin/accounts/${account.id}/api-keys`, {
      method: 'POST',
      headers: adminHeaders(),
      body: { name: 'One more' },
    });
    await expectProblem(admin, 409, 'conflict');
    expect(await liveKeys(account.id)).toBe(100);
  });
});

describe('GET /v1/me', () => {
  it('tells any key its account, scopes and expiry', async () => {
    const account = await newAccount();
    const made = await adminKey(account.id, { name: 'Bot', scopes: ['deals:read', 'tasks:*'] });
    const res = await call('/v1/me', { key: made.key });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toEqual({
      account_id: account.id,
      api_key: {
        id: made.id,
        name: 'Bot',
        scopes: ['deals:read', 'tasks:*'],
        expires_at: null,
        // Its first use: a read records it after answering.
        last_used_at: null,
        created_at: made.created_at,
      },
    });
    expect(roundTrips(res)).toBe(1);
  });
});

describe('last used, to the minute', () => {
  it('a write sets it in its own batch: writes stay at 2 round trips', async () => {
    const account = await newAccount();
    const res = await call('/v1/users', {
      method: 'POST',
      key: account.key,
      body: { name: 'A', email: 'a@x.com' },
    });
    expect(res.status).toBe(201);
    expect(roundTrips(res)).toBeLessThanOrEqual(2);
    const used = (await keyRow(account.keyId))?.last_used_at as number;
    expect(used % MINUTE).toBe(0);
    expect(Date.now() - used).toBeLessThan(2 * MINUTE);
  });

  it('a read stays 1 round trip and sets it after its answer, once a minute', async () => {
    const account = await newAccount();
    const old = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
    const d1 = d1Of(account.id);
    await d1.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').bind(old, account.keyId).run();
    const first = recordingD1(d1);
    const res = await settled(first.db, '/v1/users', account.key);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(first.statements.filter((s) => /^update "api_keys"/i.test(s.sql))).toHaveLength(1);
    const used = (await keyRow(account.keyId))?.last_used_at as number;
    expect(used).toBeGreaterThan(old);
    expect(used % MINUTE).toBe(0);

    // Again within the minute: no write at all.
    const again = recordingD1(d1);
    await settled(again.db, '/v1/users', account.key);
    expect(again.statements.filter((s) => /^update "api_keys"/i.test(s.sql))).toHaveLength(0);
  });

  it('a refused request does not count as a use', async () => {
    const account = await newAccount();
    const made = await adminKey(account.id, { name: 'R', scopes: ['deals:read'] });
    const res = await settled(d1Of(account.id), '/v1/users', made.key);
    expect(res.status).toBe(403);
    expect((await keyRow(made.id))?.last_used_at).toBeNull();
  });
});
