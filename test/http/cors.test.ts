import { describe, expect, it } from 'vitest';
import { call, callWithEnv, expectProblem, expectSecurityHeaders, newAccount, roundTrips } from '../helpers';

const APP = 'https://app.example.com';
const configured = { CORS_ORIGINS: ` ${APP}, https://admin.example.com ` };
const CORS_HEADERS = [
  'Access-Control-Allow-Origin',
  'Access-Control-Allow-Methods',
  'Access-Control-Allow-Headers',
  'Access-Control-Allow-Credentials',
  'Access-Control-Expose-Headers',
  'Access-Control-Max-Age',
];

const preflight = (origin: string, env: { CORS_ORIGINS?: string } = configured, path = '/v1/users') =>
  callWithEnv(env, path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
    },
  });

const list = (header: string | null) => (header ?? '').split(',').map((h) => h.trim().toLowerCase());

function expectNoCors(res: Response): void {
  for (const name of CORS_HEADERS) expect(res.headers.get(name), name).toBeNull();
}

describe('CORS preflight on /v1', () => {
  it('answers an allowed origin 204 with its methods, headers and max age, without a key or D1', async () => {
    for (const path of ['/v1/users', '/v1/inbound-webhooks/1/events/2/replay', '/v1/no-such-route']) {
      const res = await preflight(APP, configured, path);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe(APP);
      expect(list(res.headers.get('Access-Control-Allow-Methods'))).toEqual(['get', 'post', 'put', 'delete']);
      expect(list(res.headers.get('Access-Control-Allow-Headers'))).toEqual([
        'authorization',
        'content-type',
        'idempotency-key',
        'x-request-id',
        'x-d1-bookmark',
      ]);
      expect(res.headers.get('Access-Control-Max-Age')).toBe('600');
      expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
      expect(list(res.headers.get('Vary'))).toContain('origin');
      expect(roundTrips(res)).toBe(0);
      expectSecurityHeaders(res);
    }
    expect((await preflight('https://admin.example.com')).headers.get('Access-Control-Allow-Origin')).toBe(
      'https://admin.example.com',
    );
  });

  it('gives any other origin no CORS headers: not a near miss, not another scheme or port, not null', async () => {
    for (const origin of [
      'https://evil.example.com',
      'https://app.example.com.evil.com',
      'http://app.example.com',
      'https://app.example.com:8443',
      'https://APP.example.com',
      'null',
      '*',
    ]) {
      const res = await preflight(origin);
      expect(res.status, origin).toBe(204);
      expectNoCors(res);
      expect(list(res.headers.get('Vary'))).toContain('origin');
      expect(roundTrips(res)).toBe(0);
    }
  });

  it('ignores entries that are not origins: null, *, a path, capitals', async () => {
    const env = { CORS_ORIGINS: `null, *, ${APP}/, HTTPS://APP.EXAMPLE.COM, https://admin.example.com` };
    for (const origin of ['null', '*', `${APP}/`, 'HTTPS://APP.EXAMPLE.COM', APP]) {
      expectNoCors(await preflight(origin, env));
    }
    const admin = await preflight('https://admin.example.com', env);
    expect(admin.headers.get('Access-Control-Allow-Origin')).toBe('https://admin.example.com');
  });

  it('allows no origin at all when CORS_ORIGINS is empty, as in wrangler.toml', async () => {
    for (const env of [{}, { CORS_ORIGINS: '' }, { CORS_ORIGINS: ' , ' }]) {
      const res = await preflight(APP, env);
      expect(res.status).toBe(204);
      expectNoCors(res);
      expect(res.headers.get('Vary')).toBeNull();
    }
  });
});

describe('CORS on /v1 requests', () => {
  it('lets an allowed origin read the answer and the headers it needs, errors included', async () => {
    const { key } = await newAccount();
    const send = (path: string, options: { key?: string; method?: string; body?: unknown } = {}) =>
      callWithEnv(configured, path, { ...options, headers: { Origin: APP } });
    const answers = [
      await send('/v1/users', { key }),
      await send('/v1/users', { key, method: 'POST', body: { name: 'A', email: 'a@example.com' } }),
      await send('/v1/users'),
      await send('/v1/users/999', { key }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 201, 401, 404]);
    for (const res of answers) {
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe(APP);
      expect(list(res.headers.get('Access-Control-Expose-Headers'))).toEqual([
        'location',
        'link',
        'x-request-id',
        'x-d1-bookmark',
        'server-timing',
        'retry-after',
        'ratelimit',
        'ratelimit-policy',
        'idempotent-replayed',
      ]);
      expect(list(res.headers.get('Vary'))).toContain('origin');
    }
    await expectProblem(answers[2] as Response, 401, 'unauthorized');
  });

  it('serves another origin as before, with no CORS headers: the browser then hides the answer', async () => {
    const { key } = await newAccount();
    const res = await callWithEnv(configured, '/v1/users', {
      key,
      headers: { Origin: 'https://evil.example.com' },
    });
    expect(res.status).toBe(200);
    expectNoCors(res);
    const unset = await call('/v1/users', { key, headers: { Origin: APP } });
    expect(unset.status).toBe(200);
    expectNoCors(unset);
  });

  it('is only for /v1: other paths get no CORS headers, and OPTIONS elsewhere is no preflight', async () => {
    expectNoCors(await callWithEnv(configured, '/health', { headers: { Origin: APP } }));
    expectNoCors(await callWithEnv(configured, '/openapi.json', { headers: { Origin: APP } }));
    const admin = await preflight(APP, configured, '/admin/accounts');
    expectNoCors(admin);
    expect(admin.status).not.toBe(204);
  });
});
