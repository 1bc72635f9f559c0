import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { call, expectProblem, expectSecurityHeaders, newAccount } from '../helpers';

describe('500: anything unexpected', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answers a problem body with the request id and no SQL, and logs the id without secrets', async () => {
    const { key } = await newAccount();
    // The database outlives this file (the next files of this worker use it): the table comes back.
    await env.DB.exec('ALTER TABLE users RENAME TO users_gone');
    onTestFinished(() => env.DB.exec('ALTER TABLE users_gone RENAME TO users').then(() => undefined));
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      logged.push(String(line));
    });

    const res = await call('/v1/users', { key, headers: { 'X-Request-Id': 'req-500' } });

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
