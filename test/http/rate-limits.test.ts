import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { clientPrefix, policies, RATE_LIMIT_PERIOD_S } from '../../src/http/rate-limit';
import wranglerToml from '../../wrangler.toml?raw';
import {
  adminHeaders,
  call,
  callWithEnv,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
  roundTrips,
} from '../helpers';

// The test config's low limiters: 3 requests per key and minute, the real binding of the runtime.
const LOW_LIMIT = 3;
const low = { API_RATE_LIMITER: env.LOW_API_RATE_LIMITER, HOOK_RATE_LIMITER: env.LOW_HOOK_RATE_LIMITER };

// The runtime, and so each limiter's counts, outlives this file (vitest runs files one after another
// in one runtime): every address here is one no other test has counted.
const byte = () => crypto.getRandomValues(new Uint8Array(1))[0] ?? 0;
const word = () => ((byte() << 8) | byte()).toString(16);
const newIpv4 = () => `10.${byte()}.${byte()}.${byte()}`;
const newPrefix64 = () => `2001:db8:${word()}:${word()}`;

/**
 * Sends until the limiter answers 429 and returns the answers before it and the 429. Windows are
 * fixed minutes: the first LOW_LIMIT always pass, and a test that crosses one minute's end gets at
 * most LOW_LIMIT more, so the 429 comes within 2 * LOW_LIMIT + 1 requests.
 */
async function untilLimited(
  send: () => Promise<Response>,
): Promise<{ passed: Response[]; limited: Response }> {
  const passed: Response[] = [];
  for (let i = 0; i <= 2 * LOW_LIMIT; i++) {
    const res = await send();
    if (res.status === 429) {
      expect(passed.length).toBeGreaterThanOrEqual(LOW_LIMIT);
      return { passed, limited: res };
    }
    passed.push(res);
  }
  throw new Error(`no 429 after ${2 * LOW_LIMIT + 1} requests`);
}

/**
 * A 429 `rate_limited` problem with Retry-After: the window, decided before any D1 round trip; its
 * `RateLimit` (draft-ietf-httpapi-ratelimit-headers) says nothing is left of `policy` for that long.
 */
async function expectLimited(res: Response, policy: 'key' | 'client' | 'webhook'): Promise<void> {
  await expectProblem(res, 429, 'rate_limited');
  expect(res.headers.get('Retry-After')).toBe(String(RATE_LIMIT_PERIOD_S));
  expect(res.headers.get('RateLimit')).toBe(`"${policy}";r=0;t=${RATE_LIMIT_PERIOD_S}`);
  expect(roundTrips(res)).toBe(0);
}

/** What every `/v1` answer but a preflight says of the limits it counts against. */
const API_POLICY_HEADER = '"key";q=1000;w=60, "client";q=6000;w=60';

describe('/v1 rate limit, per API key', () => {
  it('answers 429 with Retry-After once a key is over its limit, and writes nothing then', async () => {
    const { id, key } = await newAccount();
    const post = (n: number) =>
      callWithEnv(low, '/v1/users', { method: 'POST', key, body: { name: 'U', email: `u${n}@example.com` } });
    let n = 0;
    const { passed, limited } = await untilLimited(() => post(n++));
    for (const res of passed) expect(res.status).toBe(201);
    await expectLimited(limited, 'key');
    expect((await list(key, '/v1/users?limit=100')).data).toHaveLength(passed.length);

    // Another key of the same account has its own count.
    const issued = await call(`/admin/accounts/${id}/api-keys`, { method: 'POST', headers: adminHeaders() });
    const other = (await json(issued)).data.key;
    expect((await callWithEnv(low, '/v1/users', { key: other })).status).toBe(200);
  });

  it('counts any request of the key, reads and errors alike', async () => {
    const { key } = await newAccount();
    const { passed, limited } = await untilLimited(() => callWithEnv(low, '/v1/deals/999', { key }));
    for (const res of passed) await expectProblem(res, 404, 'not_found');
    await expectLimited(limited, 'key');
  });

  it('names its limits in RateLimit-Policy on every answer, 429s and refusals included, so a client can pace itself', async () => {
    const { key } = await newAccount();
    const answers = [
      await call('/v1/users', { key }),
      await call('/v1/users', { key: 'crm_short' }),
      await call('/v1/deals/999', { key }),
      await call('/v1/users', { method: 'PATCH', key }),
      await call('/v1/nowhere', { key }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 401, 404, 405, 404]);
    const { limited } = await untilLimited(() => callWithEnv(low, '/v1/users', { key }));
    for (const res of [...answers, limited]) {
      expect(res.headers.get('RateLimit-Policy'), String(res.status)).toBe(API_POLICY_HEADER);
    }
    // Not on ingest, which a sender does not pace by these, nor on the panel.
    expect(
      (await call('/hooks/whk_x', { method: 'POST', body: {} })).headers.get('RateLimit-Policy'),
    ).toBeNull();
    expect((await call('/health')).headers.get('RateLimit-Policy')).toBeNull();
  });

  it('does not count a request without a well-formed key: that is a 401 first', async () => {
    for (let i = 0; i <= 2 * LOW_LIMIT; i++) {
      await expectProblem(await callWithEnv(low, '/v1/users', { key: 'crm_short' }), 401, 'unauthorized');
    }
  });

  it('lets RATE_LIMITS=off (local load runs) through', async () => {
    const { key } = await newAccount();
    for (let i = 0; i <= 2 * LOW_LIMIT; i++) {
      expect((await callWithEnv({ ...low, RATE_LIMITS: 'off' }, '/v1/users', { key })).status).toBe(200);
    }
  });
});

describe('ingest rate limit, per webhook', () => {
  it('answers 429 with Retry-After once a webhook is over its limit, and stores nothing then', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const other = await newWebhook(key);
    const post = (path: string) =>
      callWithEnv(low, path, { method: 'POST', body: { n: 1, __fault: 'send' } });
    const { passed, limited } = await untilLimited(() => post(hook.path));
    for (const res of passed) expect(res.status).toBe(204);
    await expectLimited(limited, 'webhook');
    const events = await list(key, `/v1/inbound-webhooks/${hook.id}/events?limit=100`);
    expect(events.data).toHaveLength(passed.length);

    expect((await post(other.path)).status).toBe(204);
  });

  it('limits an unknown token before looking it up', async () => {
    const unknown = `/hooks/whk_${'x'.repeat(43)}`;
    const { passed, limited } = await untilLimited(() =>
      callWithEnv(low, unknown, { method: 'POST', body: { n: 1 } }),
    );
    for (const res of passed) expect(res.status).toBe(404);
    await expectLimited(limited, 'webhook');
  });
});

describe('rate limit per client address, before any key or token is looked up', () => {
  const lowClient = { CLIENT_RATE_LIMITER: env.LOW_CLIENT_RATE_LIMITER };
  const madeUp = () =>
    `${crypto.randomUUID().replaceAll('-', '')}${crypto.randomUUID().replaceAll('-', '')}`.slice(0, 43);
  const from = (ip: string) => ({ 'CF-Connecting-IP': ip });

  it('stops a flood of made-up API keys, each of which would cost a D1 round trip', async () => {
    const address = newIpv4();
    const { passed, limited } = await untilLimited(() =>
      callWithEnv(lowClient, '/v1/users', { key: `crm_${madeUp()}`, headers: from(address) }),
    );
    for (const res of passed) {
      await expectProblem(res, 401, 'unauthorized');
      expect(roundTrips(res)).toBe(1);
    }
    await expectLimited(limited, 'client');
    // Another address has its own count.
    const elsewhere = await callWithEnv(lowClient, '/v1/users', {
      key: `crm_${madeUp()}`,
      headers: from(newIpv4()),
    });
    await expectProblem(elsewhere, 401, 'unauthorized');
  });

  it('stops a flood of made-up webhook tokens, and counts an IPv6 client by its /64', async () => {
    let n = 0;
    const prefix = newPrefix64();
    const { passed, limited } = await untilLimited(() =>
      callWithEnv(lowClient, `/hooks/whk_${madeUp()}`, {
        method: 'POST',
        body: { n: 1 },
        headers: from(`${prefix}:0:0:0:${(n++).toString(16)}`),
      }),
    );
    for (const res of passed) expect(res.status).toBe(404);
    await expectLimited(limited, 'client');
  });
});

describe('the client of an address', () => {
  it.each([
    ['2001:db8::1', '2001:db8:0:0'],
    ['2001:db8:0:0::2', '2001:db8:0:0'],
    ['2001:0db8:0000:0000:0000:0000:0000:0003', '2001:db8:0:0'],
    ['2001:DB8::ABCD', '2001:db8:0:0'],
    ['2001:db8::1%eth0', '2001:db8:0:0'],
    ['[2001:db8::1]', '2001:db8:0:0'],
    ['2001:db8:0:1::1', '2001:db8:0:1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2'],
    ['2001:db8:1:2:3::', '2001:db8:1:2'],
    ['::2001:db8:1:2:3', '0:0:0:2001'],
    ['::1', '0:0:0:0'],
    ['::', '0:0:0:0'],
    ['fe80::1%25en0', 'fe80:0:0:0'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['0:0:0:0:0:ffff:102:304', '1.2.3.4'],
    ['203.0.113.7', '203.0.113.7'],
    // Not addresses: taken as sent, so they never share a count with a real one.
    ['2001:db8::1::2', '2001:db8::1::2'],
    ['2001:db8:1:2:3:4:5:6:7', '2001:db8:1:2:3:4:5:6:7'],
    ['2001:db8:1.2.3.4::', '2001:db8:1.2.3.4::'],
    ['::ffff:1.2.3.256', '::ffff:1.2.3.256'],
    ['gggg::1', 'gggg::1'],
    ['', ''],
  ])('%s counts as %s', (address, client) => {
    expect(clientPrefix(address)).toBe(client);
  });

  it('gives every written form of one /64 one count', async () => {
    const lowClient = { CLIENT_RATE_LIMITER: env.LOW_CLIENT_RATE_LIMITER };
    const [c, d] = [word(), word()];
    const forms = [
      `2001:db8:${c}:${d}::1`,
      `2001:db8:${c}:${d}:0::2`,
      `2001:0DB8:${c.padStart(4, '0').toUpperCase()}:${d}:0:0:0:3`,
      `2001:db8:${c}:${d}::4%eth0`,
    ];
    let n = 0;
    const { limited } = await untilLimited(() =>
      callWithEnv(lowClient, '/v1/users', {
        key: 'crm_short',
        headers: { 'CF-Connecting-IP': forms[n++ % 4] ?? '' },
      }),
    );
    await expectLimited(limited, 'client');
    // The next /64 has its own count.
    const next = await callWithEnv(lowClient, '/v1/users', {
      key: 'crm_short',
      headers: {
        'CF-Connecting-IP': `2001:db8:${c}:${((Number.parseInt(d, 16) + 1) & 0xffff).toString(16)}::1`,
      },
    });
    await expectProblem(next, 401, 'unauthorized');
  });
});

describe('configuration', () => {
  const limiter = (name: string) => {
    const block = new RegExp(
      `\\[\\[ratelimits\\]\\]\\nname = "${name}"[^\\n]*\\nnamespace_id = "\\d+"\\nsimple = \\{ limit = (\\d+), period = (\\d+) \\}`,
    ).exec(wranglerToml);
    return { limit: Number(block?.[1]), period: Number(block?.[2]) };
  };

  it('wrangler.toml declares both limiters with the window the 429 announces, and never turns them off', () => {
    expect(limiter('API_RATE_LIMITER')).toEqual({ limit: 1000, period: RATE_LIMIT_PERIOD_S });
    expect(limiter('HOOK_RATE_LIMITER')).toEqual({ limit: 600, period: RATE_LIMIT_PERIOD_S });
    // RateLimit-Policy states each limit: the binding cannot say it, so the two are held equal.
    for (const [name, { quota }] of Object.entries(policies)) {
      expect(limiter(name), name).toEqual({ limit: quota, period: RATE_LIMIT_PERIOD_S });
    }
    expect(wranglerToml).not.toMatch(/RATE_LIMITS/);
  });

  it('documents 429 with Retry-After on every /v1 operation and on ingest, not on /admin', async () => {
    const doc = await json(await call('/openapi.json'));
    let limited = 0;
    for (const [path, item] of Object.entries<Record<string, Json>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const documented = op.responses['429'];
        if (path.startsWith('/v1/') || path === '/hooks/{token}') {
          expect(documented, where).toBeDefined();
          expect(documented.headers['Retry-After'], where).toBeDefined();
          expect(documented.content['application/problem+json'].schema.$ref, where).toBe(
            '#/components/schemas/Problem',
          );
          limited++;
        } else expect(documented, where).toBeUndefined();
      }
    }
    expect(limited).toBeGreaterThan(20);
  });
});
