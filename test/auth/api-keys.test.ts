import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { allShards, shardOf } from '../../src/db/shards';
import {
  adminHeaders,
  call,
  create,
  d1OfRow,
  expectProblem,
  type Json,
  json,
  newAccount,
  requiredQuery,
} from '../helpers';
import { snapshot } from '../properties/checks';

// The shard after `crm_s<k>_` unless shard 0, then 256 random bits (src/core/sharded-secret.ts).
const KEY_FORMAT = /^crm_(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/;
const random = (key: string) => key.slice(-43);
/** A query's rows on every shard. */
const everywhere = async <T>(query: string) =>
  (await Promise.all(allShards(env).map((n) => shardOf(env, n).prepare(query).all<T>()))).flatMap(
    (r) => r.results,
  );

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Asserts a 401 problem that tells the client to use a bearer token. */
async function expectUnauthorized(res: Response): Promise<void> {
  expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
  await expectProblem(res, 401, 'unauthorized');
}

async function issueKey(accountId: number): Promise<{ id: number; key: string; created_at: string }> {
  const res = await call(`/admin/accounts/${accountId}/api-keys`, {
    method: 'POST',
    headers: adminHeaders(),
  });
  expect(res.status).toBe(201);
  return (await json(res)).data;
}

async function revoke(keyId: number): Promise<void> {
  const res = await call(`/admin/api-keys/${keyId}`, { method: 'DELETE', headers: adminHeaders() });
  expect(res.status).toBe(204);
}

/**
 * A valid body for each create: a well-formed key is looked up in the batch that writes, after the
 * body is validated, so a body that is not valid would be a 422 first.
 */
const CREATES: Record<string, Json> = {
  'post /v1/users': { name: 'Ana', email: 'ana@example.com' },
  'post /v1/companies': { name: 'Acme', cnpj: '11.222.333/0001-81' },
  'post /v1/contacts': { name: 'Bruno' },
  'post /v1/deals': { name: 'Onix' },
  'post /v1/tasks': { deal_id: 1, name: 'Call', category: 'Ligação' },
  'post /v1/inbound-webhooks': { name: 'Site' },
  'post /v1/webhook-endpoints': { url: 'https://hooks.example.com/x', event_types: ['*'] },
  'post /v1/webhook-endpoints/{id}/recover': { since: '2026-01-01T00:00:00Z' },
  ...Object.fromEntries(
    ['users', 'companies', 'contacts', 'deals', 'tasks'].map((r) => [
      `post /v1/${r}/batch`,
      { items: [{ op: 'create', data: {} }] },
    ]),
  ),
};

describe('/v1 authentication', () => {
  it('answers 401 without an Authorization header', async () => {
    await newAccount();
    await expectUnauthorized(await call('/v1/users'));
  });

  it('answers 401 for a non-Bearer scheme', async () => {
    const { key } = await newAccount();
    await expectUnauthorized(await call('/v1/users', { headers: { Authorization: 'Basic xyz' } }));
    // Even a valid key under another scheme is refused.
    await expectUnauthorized(await call('/v1/users', { headers: { Authorization: `Basic ${key}` } }));
  });

  it('answers 401 for Bearer with a malformed key', async () => {
    const { key } = await newAccount();
    for (const token of ['', 'xyz', 'crm_short', `${key}x`, key.slice(0, -1), `CRM_${key.slice(4)}`]) {
      const res = await call('/v1/users', { headers: { Authorization: `Bearer ${token}` } });
      await expectUnauthorized(res);
    }
    await expectUnauthorized(await call('/v1/users', { headers: { Authorization: 'Bearer' } }));
  });

  it('answers 401 for a well-formed key that was never issued', async () => {
    await newAccount();
    const unknown = `crm_${'A'.repeat(43)}`;
    expect(unknown).toMatch(KEY_FORMAT);
    await expectUnauthorized(await call('/v1/users', { key: unknown }));
    await expectUnauthorized(await call('/v1/users/1', { key: unknown }));
    await expectUnauthorized(
      await call('/v1/users', { method: 'POST', key: unknown, body: { name: 'X', email: 'x@example.com' } }),
    );
  });

  it('answers 401 for a revoked key, on reads and writes', async () => {
    const { key, keyId } = await newAccount();
    expect((await call('/v1/users', { key })).status).toBe(200);
    await revoke(keyId);
    await expectUnauthorized(await call('/v1/users', { key }));
    await expectUnauthorized(
      await call('/v1/users', { method: 'POST', key, body: { name: 'X', email: 'x@example.com' } }),
    );
  });

  it('answers 401 on every /v1 operation without a key, with a malformed one (before reading the body), or with one never issued', async () => {
    await newAccount();
    // Every account's rows: a refused write has no account of its own to land in.
    const all = (await everywhere<{ id: number }>('SELECT id FROM accounts')).map((row) => row.id);
    const before = await snapshot(all);
    const doc = await json(await call('/openapi.json'));
    let tried = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const method of ['get', 'post', 'put', 'delete', 'patch'].filter((m) => item[m])) {
        const url = path.replace(/\{[^}]+\}/g, '1') + requiredQuery(item[method]);
        for (const authorization of [null, 'Bearer crm_short', `Bearer crm_${'A'.repeat(43)}`]) {
          // An import takes a CSV file, not JSON: the body it is sent as.
          const csv = path === '/v1/imports' && method === 'post';
          const res = await call(url, {
            method: method.toUpperCase(),
            headers: {
              ...(authorization ? { Authorization: authorization } : {}),
              ...(csv ? { 'Content-Type': 'text/csv' } : {}),
            },
            body: csv
              ? 'name\r\nAcme\r\n'
              : method === 'post' || method === 'put'
                ? (CREATES[`${method} ${path}`] ?? {})
                : undefined,
          });
          expect(res.status, `${method.toUpperCase()} ${url} ${authorization}`).toBe(401);
          await expectUnauthorized(res);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(3 * 40);
    expect(await snapshot(all)).toEqual(before);
  });

  it('accepts the scheme name in any case', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/users', { headers: { Authorization: `bearer ${key}` } });
    expect(res.status).toBe(200);
  });
});

describe('API keys', () => {
  it('a second key sees the same account, and revoking one leaves the other working', async () => {
    const first = await newAccount();
    const second = await issueKey(first.id);
    expect(second.key).toMatch(KEY_FORMAT);
    expect(second.key).not.toBe(first.key);
    expect(second.id).not.toBe(first.keyId);
    expect(Number.isNaN(Date.parse(second.created_at))).toBe(false);

    const user = await create(first.key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const seen = await call(`/v1/users/${user.id}`, { key: second.key });
    expect(seen.status).toBe(200);
    expect((await json(seen)).data).toEqual(user);
    const list = await json(await call('/v1/users', { key: second.key }));
    expect(list.data.map((u: { id: number }) => u.id)).toEqual([user.id]);

    await revoke(first.keyId);
    await expectUnauthorized(await call('/v1/users', { key: first.key }));
    const still = await call(`/v1/users/${user.id}`, { key: second.key });
    expect(still.status).toBe(200);
    // And the other key can still write.
    await create(second.key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
  });

  it("a key never sees another account's data", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const user = await create(a.key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await expectProblem(await call(`/v1/users/${user.id}`, { key: b.key }), 404, 'not_found');
    const list = await json(await call('/v1/users', { key: b.key }));
    expect(list.data).toEqual([]);
  });

  it('keys start with crm_ and are long and random', async () => {
    const accounts = await Promise.all([newAccount('One'), newAccount('Two'), newAccount('Three')]);
    for (const { key } of accounts) {
      expect(key.startsWith('crm_')).toBe(true);
      expect(key).toMatch(KEY_FORMAT);
      // 43 base64url characters are 256 bits; a random key has many distinct characters.
      expect(new Set(random(key)).size).toBeGreaterThan(15);
    }
    const keys = accounts.map((a) => a.key);
    expect(new Set(keys).size).toBe(3);
    // Not merely different: no shared prefix after crm_, as a counter or timestamp would give.
    expect(new Set(keys.map((k) => random(k).slice(0, 8))).size).toBe(3);
  });

  it('a key issued later is just as random and distinct', async () => {
    const { id, key } = await newAccount();
    const extra = await issueKey(id);
    expect(extra.key).toMatch(KEY_FORMAT);
    expect(extra.key).not.toBe(key);
    expect(random(extra.key).slice(0, 8)).not.toBe(random(key).slice(0, 8));
  });

  it('stores only the SHA-256 hash of a key, never the key itself', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');

    const results = await everywhere<{ key_hash: string }>('SELECT key_hash FROM api_keys');
    expect(results.length).toBeGreaterThanOrEqual(2);
    for (const { key } of [a, b]) {
      for (const row of results) {
        expect(row.key_hash).not.toBe(key);
        expect(row.key_hash).not.toContain(random(key));
      }
    }

    // No column of any key row holds the plaintext either.
    for (const row of await everywhere<Record<string, unknown>>('SELECT * FROM api_keys')) {
      const text = JSON.stringify(row);
      expect(text).not.toContain(random(a.key));
      expect(text).not.toContain(random(b.key));
    }

    for (const { id, key, keyId } of [a, b]) {
      const row = await d1OfRow('api_keys', keyId)
        .prepare('SELECT key_hash, account_id FROM api_keys WHERE id = ?')
        .bind(keyId)
        .first<{ key_hash: string; account_id: number }>();
      expect(row).toEqual({ key_hash: await sha256Hex(key), account_id: id });
      expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('stores a later-issued key only as its SHA-256 hash too', async () => {
    const { id } = await newAccount();
    const extra = await issueKey(id);
    const row = await d1OfRow('api_keys', extra.id)
      .prepare('SELECT * FROM api_keys WHERE id = ?')
      .bind(extra.id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({ key_hash: await sha256Hex(extra.key), account_id: id, revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(random(extra.key));
  });
});
