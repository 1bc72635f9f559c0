import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import {
  API_POLICY,
  adminHeaders,
  BASE,
  call,
  callWithEnv,
  create,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';

/**
 * Every header of the API's answers, name and value, pinned: a header more, less or changed on any
 * kind of answer fails here (for any change to how answers are built, such as one from a prebuilt
 * set of headers, which a handler's own `Location` must survive).
 */
const SECURITY = {
  'cache-control': 'no-store',
  'content-security-policy': API_POLICY,
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

const ID = 'answer-headers-test';
const timing = (trips: number) =>
  expect.stringMatching(new RegExp(`^d1;dur=\\d+\\.\\d;desc="${trips} round trips?", total;dur=\\d+\\.\\d$`));
const BOOKMARK = expect.stringMatching(/^[0-9a-f-]{20,}$/);

/** The limits a `/v1` request counts against (src/http/rate-limit.ts), on every answer but a preflight. */
const RATE_POLICY = { 'ratelimit-policy': '"key";q=1000;w=60, "client";q=6000;w=60' };

/** What every `/v1` answer carries, given its D1 round trips and whether it has a bookmark. */
const api = (trips: number, bookmark = true) => ({
  ...SECURITY,
  ...RATE_POLICY,
  'server-timing': timing(trips),
  'x-request-id': ID,
  ...(bookmark ? { 'x-d1-bookmark': BOOKMARK } : {}),
});
const JSON_TYPE = { 'content-type': 'application/json' };
const PROBLEM_TYPE = { 'content-type': 'application/problem+json' };

const headersOf = (res: Response) => Object.fromEntries(res.headers);
const send = (path: string, key: string, options: { method?: string; body?: unknown } = {}) =>
  call(path, { ...options, key, headers: { 'X-Request-Id': ID } });

describe('the headers of the API answers', () => {
  it('are exactly these on a list, a get, a create, an update and a delete', async () => {
    const { key } = await newAccount();
    const created = await send('/v1/companies', key, {
      method: 'POST',
      body: { name: 'Acme Ltda', cnpj: withCheckDigits('112223330001') },
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: number } };
    const { id } = data;
    expect(headersOf(created)).toEqual({
      ...api(2),
      ...JSON_TYPE,
      location: `${BASE}/v1/companies/${id}`,
    });
    await create(key, '/v1/companies', { name: 'Beta Ltda', cnpj: withCheckDigits('112223330002') });

    const page = await send('/v1/companies?limit=1', key);
    expect(page.status).toBe(200);
    const { meta } = (await page.json()) as { meta: { next_cursor: string } };
    expect(headersOf(page)).toEqual({
      ...api(1),
      ...JSON_TYPE,
      link: `<${BASE}/v1/companies?limit=1&cursor=${meta.next_cursor}>; rel="next"`,
    });
    const last = await send('/v1/companies?limit=5', key);
    expect(headersOf(last)).toEqual({ ...api(1), ...JSON_TYPE });

    const got = await send(`/v1/companies/${id}`, key);
    expect(got.status).toBe(200);
    expect(headersOf(got)).toEqual({ ...api(1), ...JSON_TYPE });

    const updated = await send(`/v1/companies/${id}`, key, { method: 'PUT', body: { name: 'Acme SA' } });
    expect(updated.status).toBe(200);
    expect(headersOf(updated)).toEqual({ ...api(2), ...JSON_TYPE });

    const contact = await create(key, '/v1/contacts', { name: 'Ana' });
    const removed = await send(`/v1/contacts/${contact.id}`, key, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(headersOf(removed)).toEqual(api(1));
  });

  it('are exactly these on a 404, a 422 and a 405', async () => {
    const { key } = await newAccount();
    const missing = await send('/v1/companies/999999', key);
    expect(missing.status).toBe(404);
    expect(headersOf(missing)).toEqual({ ...api(1), ...PROBLEM_TYPE });

    const invalid = await send('/v1/companies', key, { method: 'POST', body: { name: '' } });
    expect(invalid.status).toBe(422);
    expect(headersOf(invalid)).toEqual({ ...api(0, false), ...PROBLEM_TYPE });

    const refused = await send('/v1/companies', key, { method: 'PATCH', body: {} });
    expect(refused.status).toBe(405);
    expect(headersOf(refused)).toEqual({ ...api(0, false), ...PROBLEM_TYPE, allow: 'GET, HEAD, POST' });
  });

  it('are exactly these on a preflight and on an answer to a listed origin', async () => {
    const { key } = await newAccount();
    const origin = 'https://app.example.com';
    const cors = { CORS_ORIGINS: origin };
    const preflight = await callWithEnv(cors, '/v1/companies', {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'X-Request-Id': ID },
    });
    expect(preflight.status).toBe(204);
    const exposed =
      'Location,Link,X-Request-Id,X-D1-Bookmark,Server-Timing,Retry-After,RateLimit,RateLimit-Policy,Idempotent-Replayed';
    const { 'ratelimit-policy': _counted, ...uncounted } = api(0, false);
    expect(headersOf(preflight)).toEqual({
      ...uncounted,
      'access-control-allow-headers': 'Authorization,Content-Type,Idempotency-Key,X-Request-Id,X-D1-Bookmark',
      'access-control-allow-methods': 'GET,POST,PUT,DELETE',
      'access-control-allow-origin': origin,
      'access-control-expose-headers': exposed,
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    });

    const listed = await callWithEnv(cors, '/v1/companies', {
      key,
      headers: { Origin: origin, 'X-Request-Id': ID },
    });
    expect(listed.status).toBe(200);
    expect(headersOf(listed)).toEqual({
      ...api(1),
      ...JSON_TYPE,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': exposed,
      vary: 'Origin',
    });
  });
});

/** What a page a browser renders carries besides the API's set: the HTML-only headers. */
const HTML_ONLY = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const HTML_NAMES = Object.keys(HTML_ONLY);

describe('the headers outside /v1', () => {
  it('are the API set, and no HTML-only header, on /health, /openapi.json, /hooks and /admin', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'n', type: 'number' }] });
    const answers = [
      await call('/health', { headers: { 'X-Request-Id': ID } }),
      await call('/health?probe=1', { headers: { 'X-Request-Id': ID } }),
      await call('/openapi.json', { headers: { 'X-Request-Id': ID } }),
      await postEvent(hook.path, { n: 1 }),
      await postEvent('/hooks/whk_unknown', { n: 1 }),
      await call('/admin/accounts', { method: 'POST', body: {}, headers: adminHeaders() }),
    ];
    for (const res of answers) {
      const headers = headersOf(res);
      expect(headers, res.url).toMatchObject(SECURITY);
      for (const name of HTML_NAMES) expect(headers, `${res.url} ${name}`).not.toHaveProperty(name);
    }
    expect(headersOf(answers[0] as Response)).toEqual({
      ...SECURITY,
      ...JSON_TYPE,
      'server-timing': timing(0),
      'x-request-id': ID,
    });
  });

  it("add the HTML-only ones on the panel's pages and /docs, and only there", async () => {
    for (const path of ['/panel/sign-in', '/docs']) {
      const res = await call(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('Content-Type'), path).toMatch(/^text\/html/);
      expect(headersOf(res), path).toMatchObject({
        ...HTML_ONLY,
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
      });
    }
    const style = await call('/panel/static/panel.css');
    expect(style.status).toBe(200);
    expect(style.headers.get('Cache-Control')).toBe('public, max-age=3600');
    for (const name of HTML_NAMES) expect(headersOf(style), name).not.toHaveProperty(name);
  });
});
