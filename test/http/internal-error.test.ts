import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  call,
  callWithDb,
  emptyMigrationDb,
  expectProblem,
  expectSecurityHeaders,
  newAccount,
  shardOfAccount,
} from '../helpers';

describe('500: anything unexpected', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers a problem body with the request id and no SQL, and logs the id without secrets', async () => {
    const { id, key } = await newAccount();
    // The key's shard answers once first: its migrations are checked once per isolate (a database
    // that never answered is a 503 shard_unavailable: test/db/shards.test.ts), then queried as is.
    expect((await call('/v1/me', { key })).status).toBe(200);
    // A real D1 without the schema: every query fails as a broken deploy's would. (The shared test
    // database stays whole: a table renamed there and back leaves its dependents' SQL rewritten.)
    const broken = await emptyMigrationDb();
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      logged.push(String(line));
    });

    const headers = { 'X-Request-Id': 'req-500' };
    const res = await callWithDb(broken, '/v1/users', { key, headers }, shardOfAccount(id));

    const body = await expectProblem(res, 500, 'internal_error');
    expectSecurityHeaders(res);
    expect(body.request_id).toBe('req-500');
    const text = JSON.stringify(body);
    for (const leak of ['select', 'users', 'SQLITE', 'at ', key]) expect(text).not.toContain(leak);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('req-500');
    expect(logged[0]).not.toContain(key);
  });
});
