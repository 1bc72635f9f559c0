import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../src/auth/secrets';
import worker from '../../src/index';
import {
  accountsOnShard,
  call,
  create,
  expectProblem,
  type Json,
  json,
  keyWith,
  newAccount,
  newWebhook,
  roundTrips,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const HOUR = 3_600_000;
const company = { name: 'Auto Lima', cnpj: '11.222.333/0001-81' };

type KeyRow = { status: number | null; committed: number; created_at: number };

const keyRow = (accountId: number, key: string) =>
  env.DB.prepare(
    'SELECT status, committed, created_at FROM idempotency_keys WHERE account_id = ? AND key = ?',
  )
    .bind(accountId, key)
    .first<KeyRow>();

/**
 * Waits until the first request's response is stored: it is written after the response is sent,
 * so a retry right away may still get the 409 of a request in flight.
 */
async function stored(accountId: number, key: string): Promise<KeyRow> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const row = await keyRow(accountId, key);
    if (row?.status != null) return row;
    await scheduler.wait(10);
  }
  throw new Error(`the response for ${key} was never stored`);
}

async function count(table: string, accountId: number): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * The test's real D1, whose `n`th batch of a request first waits for `hold` (if given), then runs
 * for real, then (with `fail`) reports an error as if the answer were lost on the way back.
 */
function d1WithBatch(n: number, { hold, fail }: { hold?: Promise<void>; fail?: boolean }): D1Database {
  let batches = 0;
  const withSession = (constraint: string) => {
    const session = env.DB.withSession(constraint);
    return {
      prepare: (query: string) => session.prepare(query),
      getBookmark: () => session.getBookmark(),
      batch: async (statements: D1PreparedStatement[]) => {
        batches += 1;
        if (batches === n && hold) await hold;
        const results = await session.batch(statements);
        if (batches === n && fail) throw new Error('D1_ERROR: Network connection lost.');
        return results;
      },
    };
  };
  return { withSession } as unknown as D1Database;
}

/** A keyed POST through the Worker with `db` as its D1; resolves once its stored answer is written. */
async function postWithDb(db: D1Database, key: string, path: string, body: unknown, idempotencyKey: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://crm.test${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': idempotencyKey,
      },
      body: JSON.stringify(body),
    }),
    { ...env, DB: db },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const post = (key: string, path: string, body: unknown, idempotencyKey?: string) =>
  call(path, {
    method: 'POST',
    key,
    body,
    headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
  });

/**
 * Sets a key's row as if a POST of `company` to /v1/companies had started `ageMs` ago and got only
 * as far as `state`.
 */
async function plantKey(
  accountId: number,
  apiKey: string,
  key: string,
  ageMs: number,
  state: { committed: boolean },
) {
  const hash = await sha256Hex(`${await sha256Hex(apiKey)}\nPOST /v1/companies\n${JSON.stringify(company)}`);
  await env.DB.prepare(
    'INSERT INTO idempotency_keys (account_id, key, request_hash, created_at, committed) VALUES (?, ?, ?, ?, ?)',
  )
    .bind(accountId, key, hash, Date.now() - ageMs, state.committed ? 1 : 0)
    .run();
}

describe('Idempotency-Key on /v1 POSTs', () => {
  it('replays the first response, status, body and Location, and creates nothing more', async () => {
    const { id, key } = await newAccount();
    const first = await post(key, '/v1/companies', company, 'create-auto-lima');
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const firstBody = await first.text();
    await stored(id, 'create-auto-lima');

    const retry = await post(key, '/v1/companies', company, 'create-auto-lima');

    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retry.headers.get('Content-Type')).toBe(first.headers.get('Content-Type'));
    expect(retry.headers.get('Location')).toBe(first.headers.get('Location'));
    expect(await retry.text()).toBe(firstBody);
    expect(retry.headers.get('X-Request-Id')).toBeTruthy();
    expect(await count('companies', id)).toBe(1);
  });

  it('treats a body with other whitespace as the same request', async () => {
    const { id, key } = await newAccount();
    expect((await post(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' }, 'k')).status).toBe(201);
    await stored(id, 'k');
    const retry = await post(key, '/v1/users', '{ "name": "Ana",\n  "email": "ana@example.com" }', 'k');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await count('users', id)).toBe(1);
  });

  it('is a 422 for the same key with another body or another path, which run nothing', async () => {
    const { id, key } = await newAccount();
    expect((await post(key, '/v1/companies', company, 'k1')).status).toBe(201);
    await stored(id, 'k1');

    const otherBody = await post(key, '/v1/companies', { ...company, name: 'Auto Lima II' }, 'k1');
    await expectProblem(otherBody, 422, 'idempotency_key_reused');
    const otherPath = await post(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' }, 'k1');
    await expectProblem(otherPath, 422, 'idempotency_key_reused');

    expect(await count('companies', id)).toBe(1);
    expect(await count('users', id)).toBe(0);
  });

  it('is a 409 while a request with the key is still running, and runs nothing', async () => {
    const { id, key } = await newAccount();
    await plantKey(id, key, 'running', 1_000, { committed: false });
    await expectProblem(await post(key, '/v1/companies', company, 'running'), 409, 'idempotency_key_in_use');
    expect(await count('companies', id)).toBe(0);
  });

  it('runs again a request abandoned before it wrote anything, but never one that wrote', async () => {
    const { id, key } = await newAccount();
    await plantKey(id, key, 'abandoned', 2 * 60_000, { committed: false });
    await plantKey(id, key, 'wrote', 2 * 60_000, { committed: true });

    expect((await post(key, '/v1/companies', company, 'abandoned')).status).toBe(201);
    const again = { ...company, cnpj: '11.444.777/0001-61' };
    await expectProblem(await post(key, '/v1/companies', again, 'wrote'), 422, 'idempotency_key_reused');
    await expectProblem(await post(key, '/v1/companies', company, 'wrote'), 409, 'idempotency_key_in_use');
    expect(await count('companies', id)).toBe(1);
  });

  it('forgets a key after 24 hours: the request runs again', async () => {
    const { id, key } = await newAccount();
    await plantKey(id, key, 'old', 24 * HOUR + 1_000, { committed: true });
    expect((await post(key, '/v1/companies', company, 'old')).status).toBe(201);
    expect(await count('companies', id)).toBe(1);
  });

  it('stores a refusal made after the request reached the database, and replays it', async () => {
    const { id, key } = await newAccount();
    const body = { ...company, owner_id: 999_999 };
    const first = await post(key, '/v1/companies', body, 'bad-owner');
    const problem = await expectProblem(first, 422, 'validation_failed');
    await stored(id, 'bad-owner');

    const retry = await post(key, '/v1/companies', body, 'bad-owner');
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    const replayed = await expectProblem(retry, 422, 'validation_failed');
    expect(replayed).toEqual(problem);
  });

  it('stores nothing for a body the schema refuses, so the corrected request can use the key', async () => {
    const { id, key } = await newAccount();
    await expectProblem(await post(key, '/v1/companies', { name: 'No CNPJ' }, 'fix-me'), 422);
    expect(await keyRow(id, 'fix-me')).toBeNull();
    expect((await post(key, '/v1/companies', company, 'fix-me')).status).toBe(201);
  });

  it('keys belong to one account: another account may use the same key', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    expect((await post(a.key, '/v1/companies', company, 'shared')).status).toBe(201);
    await stored(a.id, 'shared');
    const res = await post(b.key, '/v1/companies', company, 'shared');
    expect(res.status).toBe(201);
    expect(res.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await count('companies', b.id)).toBe(1);
  });

  it('replays a stored answer to the key that made it only: another key of the account gets a 422 and never the answer', async () => {
    const account = await newAccount();
    const narrow = await keyWith(account.id, ['webhooks:insert']);
    const body = { name: 'Site' };
    const first = await post(account.key, '/v1/inbound-webhooks', body, 'hook-1');
    expect(first.status).toBe(201);
    const url = (await json(first)).data.url;
    expect(url).toMatch(/\/hooks\/whk_/);
    await stored(account.id, 'hook-1');

    // Same path, body and Idempotency-Key, from another key of the same account: the first answer
    // holds the webhook's URL (a write credential), which this key never saw.
    const other = await post(narrow, '/v1/inbound-webhooks', body, 'hook-1');
    const problem = await expectProblem(other, 422, 'idempotency_key_reused');
    expect(problem.detail).toMatch(/another API key/);
    expect(other.headers.get('Idempotent-Replayed')).toBeNull();
    expect(JSON.stringify(problem)).not.toContain('whk_');
    expect(await count('inbound_webhooks', account.id)).toBe(1);

    // The key that made it still gets its answer.
    const retry = await post(account.key, '/v1/inbound-webhooks', body, 'hook-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await json(retry)).data.url).toBe(url);
  });

  it('keeps nothing for an unknown API key', async () => {
    const res = await post(`crm_${'x'.repeat(43)}`, '/v1/companies', company, 'nobody');
    await expectProblem(res, 401, 'unauthorized');
    const row = await env.DB.prepare(
      "SELECT count(*) AS n FROM idempotency_keys WHERE key = 'nobody'",
    ).first<{
      n: number;
    }>();
    expect(row?.n).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['a control character', 'a\tb'],
  ])('is a 400 for a key that is %s', async (_, bad) => {
    const { id, key } = await newAccount();
    await expectProblem(await post(key, '/v1/companies', company, bad), 400, 'invalid_idempotency_key');
    expect(await count('companies', id)).toBe(0);
  });

  it('replays a rotation: the retry shows the same new URL and the token turns once', async () => {
    const { id, key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Site', fields: [{ key: 'nome', type: 'string' }] });
    const rotate = () => post(key, `/v1/inbound-webhooks/${hook.id}/rotate-token`, undefined, 'rotate-1');

    const first = await rotate();
    expect(first.status).toBe(200);
    const { data: rotated } = await json(first);
    await stored(id, 'rotate-1');
    const retry = await rotate();

    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await json(retry)).data.url).toBe(rotated.url);
    const now: Json = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(now.data.url).toBe(rotated.url);
    expect(rotated.url).not.toBe(hook.url);
    expect((await stored(id, 'rotate-1')).committed).toBe(1);
  });

  it('marks the key committed in the same batch as the write', async () => {
    const { id, key } = await newAccount();
    expect((await post(key, '/v1/companies', company, 'c')).status).toBe(201);
    expect((await stored(id, 'c')).committed).toBe(1);

    await expectProblem(await post(key, '/v1/companies', company, 'taken-cnpj'), 409, 'conflict');
    expect((await stored(id, 'taken-cnpj')).committed).toBe(0);
  });

  it('releases the key when the request failed on our side before it wrote, so a retry runs it', async () => {
    const { id, key } = await newAccount();
    await env.DB.exec(
      "CREATE TRIGGER fail_boom BEFORE INSERT ON deals WHEN NEW.name = 'Boom' BEGIN SELECT RAISE(ABORT, 'boom'); END",
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expectProblem(await post(key, '/v1/deals', { name: 'Boom' }, 'boom'), 500, 'internal_error');
      expect(logged).toHaveBeenCalledOnce();
      for (let attempt = 0; attempt < 200 && (await keyRow(id, 'boom')); attempt++) await scheduler.wait(10);
      expect(await keyRow(id, 'boom')).toBeNull();
    } finally {
      logged.mockRestore();
      await env.DB.exec('DROP TRIGGER fail_boom');
    }
    expect((await post(key, '/v1/deals', { name: 'Boom' }, 'boom')).status).toBe(201);
  });

  it('never releases a key whose write landed though its answer was lost: the 500 is replayed', async () => {
    const { id, key } = await newAccount();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const lost = await postWithDb(
        d1WithBatch(2, { fail: true }),
        key,
        '/v1/deals',
        { name: 'Once' },
        'lost',
      );
      await expectProblem(lost, 500, 'internal_error');
    } finally {
      logged.mockRestore();
    }
    expect(await keyRow(id, 'lost')).toMatchObject({ committed: 1, status: 500 });

    const retry = await post(key, '/v1/deals', { name: 'Once' }, 'lost');
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    await expectProblem(retry, 500, 'internal_error');
    expect(await count('deals', id)).toBe(1);
  });

  it('a request that stalled past the abandonment window and lost its key to a retry writes nothing', async () => {
    const { id, key } = await newAccount();
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stalled = postWithDb(d1WithBatch(2, { hold }), key, '/v1/deals', { name: 'Once' }, 'stalled');
    for (let attempt = 0; attempt < 200 && !(await keyRow(id, 'stalled')); attempt++)
      await scheduler.wait(10);
    await env.DB.prepare(
      "UPDATE idempotency_keys SET created_at = created_at - 120000 WHERE key = 'stalled'",
    ).run();

    const retry = await post(key, '/v1/deals', { name: 'Once' }, 'stalled');
    expect(retry.status).toBe(201);
    await stored(id, 'stalled');
    release();
    const late = await stalled;

    expect(late.status).toBe(201);
    expect(late.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await count('deals', id)).toBe(1);
  });

  it('holds a keyed POST to the 1 MiB limit even on a route that takes no body', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Site', fields: [{ key: 'nome', type: 'string' }] });
    const res = await call(`/v1/inbound-webhooks/${hook.id}/rotate-token`, {
      method: 'POST',
      key,
      body: 'x'.repeat(1024 * 1024 + 1),
      headers: { 'Idempotency-Key': 'big' },
    });
    await expectProblem(res, 413, 'body_too_large');
  });

  it('costs no extra round trip before the response: 2 for the request, 2 for a replay', async () => {
    const { id, key } = await newAccount();
    expect(roundTrips(await post(key, '/v1/companies', company, 'rt'))).toBe(2);
    await stored(id, 'rt');
    expect(roundTrips(await post(key, '/v1/companies', company, 'rt'))).toBe(2);
  });

  it('is ignored on other methods', async () => {
    const { id, key } = await newAccount();
    const created = await create(key, '/v1/companies', company);
    const headers = { 'Idempotency-Key': 'put-1' };
    expect((await call(`/v1/companies/${created.id}`, { key, headers })).status).toBe(200);
    const put = await call(`/v1/companies/${created.id}`, {
      method: 'PUT',
      key,
      body: { name: 'B' },
      headers,
    });
    expect(put.status).toBe(200);
    expect(await keyRow(id, 'put-1')).toBeNull();
  });

  it('is documented on every /v1 POST in OpenAPI', async () => {
    const doc: Json = await json(await call('/openapi.json'));
    // Creating an API key refuses the header: its answer holds a secret that is never stored to replay.
    const posts = Object.entries(doc.paths as Record<string, Json>).filter(
      ([path, item]) => path.startsWith('/v1/') && item.post && path !== '/v1/api-keys',
    );
    expect(posts.length).toBeGreaterThanOrEqual(8);
    for (const [path, item] of posts) {
      const names = (item.post.parameters ?? []).map((p: Json) => p.name);
      expect(names, path).toContain('Idempotency-Key');
      expect(Object.keys(item.post.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
  });
});

describe('cron: expired keys', () => {
  it('deletes keys past 24 hours and keeps the others', async () => {
    const { id, key } = await newAccount();
    await plantKey(id, key, 'expired', 24 * HOUR + 1_000, { committed: true });
    await plantKey(id, key, 'fresh', HOUR, { committed: true });
    await worker.scheduled(createScheduledController({ cron: '*/5 * * * *' }), env);
    expect(await keyRow(id, 'expired')).toBeNull();
    expect(await keyRow(id, 'fresh')).not.toBeNull();
  });
});
