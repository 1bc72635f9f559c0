import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import {
  adminHeaders,
  BASE,
  call,
  create,
  expectProblem,
  expectReadOnly,
  type Json,
  json,
  newAccount,
  newWebhook,
  roundTrips,
  writable,
} from '../helpers';
import { documentedList, lists } from '../lists';

/** A problem body with every RFC 9457 member and this API's code. */
async function problem(res: Response, status: number, code: string): Promise<Json> {
  const body = await expectProblem(res, status, code);
  expect(body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(body.type.length).toBeGreaterThan(0);
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at /);
  return body;
}

/** A request whose body has no Content-Type at all (a string body would get text/plain). */
const rawPost = (path: string, key: string, body: string) =>
  exports.default.fetch(
    new Request(`${BASE}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: new TextEncoder().encode(body),
    }),
  );

describe('X-Request-Id', () => {
  it('echoes a request id the client sent', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/users', { key, headers: { 'X-Request-Id': 'abc-123' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Request-Id')).toBe('abc-123');
    const health = await call('/health', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(health.headers.get('X-Request-Id')).toBe('abc-123');
  });

  it('generates a fresh one when absent', async () => {
    const a = await call('/health');
    const b = await call('/health');
    const idA = a.headers.get('X-Request-Id');
    const idB = b.headers.get('X-Request-Id');
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(idB).toMatch(/^[0-9a-f-]{36}$/);
    expect(idA).not.toBe(idB);
  });

  it('replaces one that is not sane', async () => {
    const long = 'x'.repeat(200);
    const res = await call('/health', { headers: { 'X-Request-Id': long } });
    const id = res.headers.get('X-Request-Id');
    expect(id).toBeTruthy();
    expect(id).not.toBe(long);
  });

  it('is on error responses too, and matches the problem body', async () => {
    const unauthorized = await call('/v1/users', { headers: { 'X-Request-Id': 'req-401' } });
    expect(unauthorized.headers.get('X-Request-Id')).toBe('req-401');
    expect((await problem(unauthorized, 401, 'unauthorized')).request_id).toBe('req-401');

    const missing = await call('/nope', { headers: { 'X-Request-Id': 'req-404' } });
    expect(missing.headers.get('X-Request-Id')).toBe('req-404');
    expect((await problem(missing, 404, 'not_found')).request_id).toBe('req-404');

    const { key } = await newAccount();
    const bad = await call('/v1/users', { method: 'POST', key, body: '{bad' });
    const id = bad.headers.get('X-Request-Id');
    expect(id).toBeTruthy();
    expect((await problem(bad, 400, 'malformed_json')).request_id).toBe(id);
  });
});

describe('Server-Timing', () => {
  it('reads a user or a list in exactly one round trip, auth included', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const one = await call(`/v1/users/${user.id}`, { key });
    expect(one.status).toBe(200);
    expect(roundTrips(one)).toBe(1);
    const list = await call('/v1/users', { key });
    expect(list.status).toBe(200);
    expect(roundTrips(list)).toBe(1);
    const filtered = await call('/v1/users?name__contains=an&sort=name&limit=1', { key });
    expect(filtered.status).toBe(200);
    expect(roundTrips(filtered)).toBe(1);
  });

  it('writes in at most two round trips', async () => {
    const { key } = await newAccount();
    const post = await call('/v1/users', {
      method: 'POST',
      key,
      body: { name: 'Ana', email: 'ana@example.com' },
    });
    expect(post.status).toBe(201);
    const postTrips = roundTrips(post);
    expect(postTrips).toBeGreaterThanOrEqual(1);
    expect(postTrips).toBeLessThanOrEqual(2);
    const { data } = await json(post);
    const put = await call(`/v1/users/${data.id}`, { method: 'PUT', key, body: { name: 'Ana S' } });
    expect(put.status).toBe(200);
    const putTrips = roundTrips(put);
    expect(putTrips).toBeGreaterThanOrEqual(1);
    expect(putTrips).toBeLessThanOrEqual(2);
  });

  it('is on every /v1 response, errors included', async () => {
    const { key } = await newAccount();
    const answers: [Response, number][] = [
      [await call('/v1/users'), 401],
      [await call('/v1/users', { key: `crm_${'A'.repeat(43)}` }), 401],
      [await call('/v1/users/999999', { key }), 404],
      [await call('/v1/nope', { key }), 404],
      [await call('/v1/users?nme=x', { key }), 400],
      [await call('/v1/users', { method: 'POST', key, body: '{bad' }), 400],
    ];
    for (const [res, status] of answers) {
      expect(res.status).toBe(status);
      roundTrips(res);
    }
    // Rejected before any query: a missing key costs nothing.
    expect(roundTrips(answers[0]?.[0] as Response)).toBe(0);
  });

  it('GET /health answers without auth and without touching D1', async () => {
    const res = await call('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({ status: 'ok' });
    expect(roundTrips(res)).toBe(0);
    expect(res.headers.get('Server-Timing')).toContain('desc="0 round trips"');
  });
});

describe('400 Bad Request', () => {
  it('malformed JSON is malformed_json', async () => {
    const { key } = await newAccount();
    await problem(await call('/v1/users', { method: 'POST', key, body: '{bad' }), 400, 'malformed_json');
    await problem(await call('/v1/users', { method: 'POST', key, body: '' }), 400, 'malformed_json');
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await problem(
      await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: '{"name":' }),
      400,
      'malformed_json',
    );
  });

  it('a body that is not a JSON object is body_not_object', async () => {
    const { key } = await newAccount();
    for (const body of [
      '[]',
      '[{"name":"Ana","email":"ana@example.com"}]',
      '"a string"',
      'null',
      '42',
      'true',
    ]) {
      await problem(await call('/v1/users', { method: 'POST', key, body }), 400, 'body_not_object');
    }
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await problem(
      await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: 'null' }),
      400,
      'body_not_object',
    );
  });

  it('an unknown query parameter is invalid_query naming it', async () => {
    const { key } = await newAccount();
    const body = await problem(await call('/v1/users?nme=x', { key }), 400, 'invalid_query');
    expect(body.errors[0].path).toBe('nme');
    expect(body.errors[0].code).toBe('unknown_field');
  });

  it.each(lists.map((each) => each.path))(
    "%s: a parameter it does not document is invalid_query naming it: other lists' filters, its rows' fields under any operator, made-up names",
    async (listPath) => {
      const { key } = await newAccount();
      const doc = await json(await call('/openapi.json'));
      const everyParam = lists.flatMap((each) => documentedList(doc, each.path).params);
      let tried = 0;
      const { params, fields } = documentedList(doc, listPath);
      const guesses = new Set([
        ...everyParam,
        ...Object.keys(fields).flatMap((field) =>
          ['', '__contains', '__gte', '__lt', '__startswith'].map((op) => `${field}${op}`),
        ),
        ...['foo', 'account_id', 'category_id', 'completed', 'q', 'search'],
      ]);
      const path = listPath.replace(/\{[^}]+\}/g, '1');
      for (const name of [...guesses].filter((guess) => !params.includes(guess))) {
        const body = await problem(await call(`${path}?${name}=x`, { key }), 400, 'invalid_query');
        expect(body.errors, `${path}?${name}`).toEqual([
          { path: name, code: 'unknown_field', message: expect.any(String) },
        ]);
        tried++;
      }
      expect(tried).toBeGreaterThan(40);
    },
  );

  it('a query parameter without a name is invalid_query on every list, not ignored', async () => {
    const { key } = await newAccount();
    const doc = await json(await call('/openapi.json'));
    const lists = Object.entries<Json>(doc.paths)
      .filter(([, item]) => item.get?.parameters?.some((p: Json) => p.in === 'query'))
      .map(([path]) => path.replace(/\{[^}]+\}/g, '1'));
    expect(lists).toEqual(
      expect.arrayContaining(['/v1/deals', '/v1/task-categories', '/v1/inbound-webhooks/1/events']),
    );
    for (const path of lists) {
      for (const query of ['?=open', '?=', '?limit=5&=open', '?=open&limit=5']) {
        // The admin API's lists take the admin token.
        const auth = path.startsWith('/admin/') ? { headers: adminHeaders() } : { key };
        const body = await problem(await call(`${path}${query}`, auth), 400, 'invalid_query');
        expect(body.errors, `${path}${query}`).toEqual([
          { path: '', code: 'unknown_field', message: expect.any(String) },
        ]);
      }
    }
    // A stray `&` or a trailing `?` names no parameter at all.
    expect((await call('/v1/deals?&limit=5&', { key })).status).toBe(200);
    expect((await call('/v1/deals?', { key })).status).toBe(200);
  });

  it('a bad value of a known query parameter is invalid_query too', async () => {
    const { key } = await newAccount();
    const body = await problem(await call('/v1/users?limit=0', { key }), 400, 'invalid_query');
    expect(body.errors[0].path).toBe('limit');
    await problem(await call('/v1/users?sort=email', { key }), 400, 'invalid_query');
  });

  it('a query parameter given twice is invalid_query naming it, on every parameter of every list', async () => {
    const { key } = await newAccount();
    const doc = await json(await call('/openapi.json'));
    let tried = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      if (!path.startsWith('/v1/') || !item.get) continue;
      const url = path.replace(/\{[^}]+\}/g, '1');
      for (const { name } of item.get.parameters.filter((p: Json) => p.in === 'query')) {
        // Twice the same value, which the parameter would take once: the repeat alone is wrong.
        const value = name === 'limit' ? '5' : name === 'cursor' ? 'x' : 'ab';
        const res = await call(`${url}?${name}=${value}&limit=5&${name}=${value}`, { key });
        const body = await problem(res, 400, 'invalid_query');
        const where = `${path}?${name}`;
        expect(body.detail, where).toBe(`The query string gives ${name} more than once; see errors.`);
        expect(body.errors[0], where).toEqual({
          path: name,
          code: 'repeated',
          message: `Given ${name === 'limit' ? 3 : 2} times; give it once (a parameter that takes several values takes them comma-separated, e.g. owner_id=3,7).`,
        });
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(40);
    // An unknown parameter given twice is just unknown; the other errors stay beside the repeat.
    const unknown = await problem(await call('/v1/users?nme=x&nme=y', { key }), 400, 'invalid_query');
    expect(unknown.errors).toEqual([expect.objectContaining({ path: 'nme', code: 'unknown_field' })]);
    const both = await problem(
      await call('/v1/deals?owner_id=1&owner_id=2&limit=0', { key }),
      400,
      'invalid_query',
    );
    expect(both.errors.map((e: Json) => [e.path, e.code])).toEqual([
      ['owner_id', 'repeated'],
      ['limit', 'too_small'],
    ]);
    // Once, comma-separated, is how a list is given.
    expect((await call('/v1/deals?owner_id=1,2', { key })).status).toBe(200);
  });

  it('a date-time without an offset is refused with how to add one, in every date filter and in due_date', async () => {
    const { key } = await newAccount();
    // The one list under an id with date filters is a webhook's event log: the account's webhook.
    const hook = await newWebhook(key);
    const doc = await json(await call('/openapi.json'));
    let tried = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      if (!item.get) continue;
      const url = path.replace(/\{[^}]+\}/g, String(hook.id));
      for (const { name } of (item.get.parameters ?? []).filter((p: Json) =>
        /__(gte|lte|gt|lt)$/.test(p.name),
      )) {
        for (const value of ['2026-11-22T17:30', '2026-11-22T17:30:00', '2026-11-22T17:30:00.123']) {
          const res = await call(`${url}?${name}=${value}`, { key });
          const body = await problem(res, 400, 'invalid_query');
          expect(body.errors, `${path}?${name}=${value}`).toEqual([
            {
              path: name,
              code: 'invalid',
              message: `"${value}" has no offset, so it is no instant: add Z or ±hh:mm (${value}Z, ${value}-03:00).`,
            },
          ]);
          // Either fix the message offers is taken.
          expect((await call(`${url}?${name}=${value}Z`, { key })).status).toBe(200);
          expect((await call(`${url}?${name}=${encodeURIComponent(`${value}-03:00`)}`, { key })).status).toBe(
            200,
          );
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThanOrEqual(3 * 20);
    // Anything else keeps the general message.
    const other = await problem(
      await call('/v1/users?created_at__gte=tomorrow', { key }),
      400,
      'invalid_query',
    );
    expect(other.errors[0].message).toBe('Expected an ISO 8601 date-time or a YYYY-MM-DD date.');

    const deal = await create(key, '/v1/deals', { name: 'D' });
    const task = { deal_id: deal.id, name: 'T', category: 'Call', due_date: '2026-12-01T10:00:00' };
    const body = await problem(
      await call('/v1/tasks', { method: 'POST', key, body: task }),
      422,
      'validation_failed',
    );
    expect(body.errors).toEqual([
      {
        path: 'due_date',
        code: 'invalid',
        message:
          '"2026-12-01T10:00:00" has no offset, so it is no instant: add Z or ±hh:mm (2026-12-01T10:00:00Z, 2026-12-01T10:00:00-03:00).',
        // What was expected, for a client (the panel's import page) to say it in its own words.
        params: { expected: 'date_time' },
      },
    ]);
  });
  it('a date bound that is no date is invalid_query naming it, on every date filter of every list', async () => {
    const { key } = await newAccount();
    const doc = await json(await call('/openapi.json'));
    let tried = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, '1');
      const bounds = (item.get?.parameters ?? []).filter((p: Json) => /__(gte|lte|gt|lt)$/.test(p.name));
      for (const { name } of bounds) {
        for (const value of [
          '2024-13-01',
          '2024-02-30',
          '2024-03-05T25:00:00Z',
          'yesterday',
          '05/03/2024',
          '2024-03-05 10:00',
          '1709596800000',
          '',
        ]) {
          const res = await call(`${url}?${name}=${encodeURIComponent(value)}`, { key });
          const body = await problem(res, 400, 'invalid_query');
          expect(body.errors[0].path, `${path}?${name}=${value}`).toBe(name);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThanOrEqual(8 * 20);
  });
});

describe('401 Unauthorized', () => {
  it('is a problem with WWW-Authenticate', async () => {
    const res = await call('/v1/users');
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
    await problem(res, 401, 'unauthorized');
  });
});

describe('404 Not Found', () => {
  it('an unknown route is a 404 problem, with or without a key', async () => {
    const { key } = await newAccount();
    const v1 = await problem(await call('/v1/nope', { key }), 404, 'not_found');
    expect(v1.detail).toBe('No such route.');
    const root = await problem(await call('/nope'), 404, 'not_found');
    expect(root.detail).toBe('No such route.');
  });

  it('an unknown or malformed id is a 404 problem', async () => {
    const { key } = await newAccount();
    for (const id of ['999999', 'abc', '0', '-1', '1e3', '99999999999999999999']) {
      const body = await problem(await call(`/v1/users/${id}`, { key }), 404, 'not_found');
      expect(body.detail).not.toBe('No such route.');
    }
    const put = await call('/v1/users/999999', { method: 'PUT', key, body: { name: 'X' } });
    await problem(put, 404, 'not_found');
  });

  it("another account's id is a 404", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const user = await create(a.key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await problem(await call(`/v1/users/${user.id}`, { key: b.key }), 404, 'not_found');
    await problem(
      await call(`/v1/users/${user.id}`, { method: 'PUT', key: b.key, body: { name: 'Hacked' } }),
      404,
      'not_found',
    );
    const still = await json(await call(`/v1/users/${user.id}`, { key: a.key }));
    expect(still.data.name).toBe('Ana');
  });
});

describe('409 Conflict', () => {
  it('a duplicate email in any case is a 409 on create and update', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/users', { name: 'A', email: 'dup@example.com' });
    const body = await problem(
      await call('/v1/users', { method: 'POST', key, body: { name: 'B', email: 'DUP@Example.COM' } }),
      409,
      'conflict',
    );
    expect(body.errors[0].path).toBe('email');
    const other = await create(key, '/v1/users', { name: 'C', email: 'other@example.com' });
    await problem(
      await call(`/v1/users/${other.id}`, { method: 'PUT', key, body: { email: 'Dup@example.com' } }),
      409,
      'conflict',
    );
  });

  it('the same email in another account is no conflict', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    await create(a.key, '/v1/users', { name: 'A', email: 'same@example.com' });
    await create(b.key, '/v1/users', { name: 'B', email: 'same@example.com' });
  });
});

describe('413 Content Too Large', () => {
  it('a body over 1 MiB is body_too_large', async () => {
    const { key } = await newAccount();
    const big = JSON.stringify('x'.repeat(Math.ceil(1.1 * 1024 * 1024)));
    await problem(await call('/v1/users', { method: 'POST', key, body: big }), 413, 'body_too_large');
    const bigObject = JSON.stringify({ name: 'x'.repeat(1.1 * 1024 * 1024), email: 'a@example.com' });
    await problem(await call('/v1/users', { method: 'POST', key, body: bigObject }), 413, 'body_too_large');
  });

  it('a streamed body over 1 MiB without Content-Length is body_too_large', async () => {
    const { key } = await newAccount();
    const chunk = new TextEncoder().encode(`"${'x'.repeat(64 * 1024 - 2)}"`.slice(0, 64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 18) return controller.close();
        sent += 1;
        // One JSON string spread over 18 chunks of 64 KiB (1.125 MiB in all).
        const bytes = chunk.slice();
        if (sent > 1) bytes[0] = 0x78;
        if (sent < 18) bytes[bytes.length - 1] = 0x78;
        controller.enqueue(bytes);
      },
    });
    const req = new Request(`${BASE}/v1/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: stream,
    });
    expect(req.headers.get('Content-Length')).toBeNull();
    // Handed to the Worker in this isolate: through `exports` the runtime pipes the stream across and
    // logs the pipe's abort when the Worker stops reading, which is what this test asks of it.
    await problem(await worker.fetch(req, env, createExecutionContext()), 413, 'body_too_large');
  });

  it('a body of exactly 1 MiB is read (and judged on its content)', async () => {
    const { key } = await newAccount();
    const frame = JSON.stringify({ name: '', email: 'a@example.com' });
    const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - frame.length), email: 'a@example.com' });
    expect(new TextEncoder().encode(body).length).toBe(1024 * 1024);
    const res = await problem(
      await call('/v1/users', { method: 'POST', key, body }),
      422,
      'validation_failed',
    );
    expect(res.errors[0].path).toBe('name');
  });
});

describe('415 Unsupported Media Type', () => {
  it('a POST with text/plain or no Content-Type is unsupported_media_type', async () => {
    const { key } = await newAccount();
    const body = JSON.stringify({ name: 'Ana', email: 'ana@example.com' });
    await problem(
      await call('/v1/users', { method: 'POST', key, body, headers: { 'Content-Type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    await problem(await rawPost('/v1/users', key, body), 415, 'unsupported_media_type');
    await problem(
      await call('/v1/users', {
        method: 'POST',
        key,
        body,
        headers: { 'Content-Type': 'application/jsonx' },
      }),
      415,
      'unsupported_media_type',
    );
    const list = await json(await call('/v1/users', { key }));
    expect(list.data).toEqual([]);
  });

  it('a PUT with text/plain is unsupported_media_type', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await problem(
      await call(`/v1/users/${user.id}`, {
        method: 'PUT',
        key,
        body: '{"name":"B"}',
        headers: { 'Content-Type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
  });

  it('refuses near-JSON content types with the documented code', async () => {
    const { key } = await newAccount();
    const body = JSON.stringify({ name: 'Ana', email: 'ana@example.com' });
    for (const type of ['application/json ;charset=utf-8', 'application/json;', 'application/x_y+json']) {
      await problem(
        await call('/v1/users', { method: 'POST', key, body, headers: { 'Content-Type': type } }),
        415,
        'unsupported_media_type',
      );
    }
  });

  it('accepts JSON content types with parameters, in any case, and +json', async () => {
    const { key } = await newAccount();
    const types = ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json'];
    for (const [i, type] of types.entries()) {
      const res = await call('/v1/users', {
        method: 'POST',
        key,
        body: { name: 'Ana', email: `ana${i}@example.com` },
        headers: { 'Content-Type': type },
      });
      expect(res.status).toBe(201);
    }
  });
});

describe('422 Unprocessable Content', () => {
  it('a missing required field is code required at its path', async () => {
    const { key } = await newAccount();
    const body = await problem(
      await call('/v1/users', { method: 'POST', key, body: { name: 'Ana' } }),
      422,
      'validation_failed',
    );
    expect(body.errors).toContainEqual(expect.objectContaining({ path: 'email', code: 'required' }));
    expect(body.errors.map((e: { path: string }) => e.path)).not.toContain('name');
  });

  it('a field of the wrong type is a 422 at its path, not "required"', async () => {
    const { key } = await newAccount();
    const body = await problem(
      await call('/v1/users', { method: 'POST', key, body: { name: 5, email: 'ana@example.com' } }),
      422,
      'validation_failed',
    );
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].path).toBe('name');
    expect(body.errors[0].code).not.toBe('required');
    expect(body.errors[0].message).toEqual(expect.any(String));
  });

  it('an invalid email is a 422 at email', async () => {
    const { key } = await newAccount();
    for (const email of ['not-an-email', 'a@', '@example.com', '']) {
      const body = await problem(
        await call('/v1/users', { method: 'POST', key, body: { name: 'Ana', email } }),
        422,
        'validation_failed',
      );
      expect(body.errors.map((e: { path: string }) => e.path)).toEqual(['email']);
    }
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    await problem(
      await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: { email: 'nope' } }),
      422,
      'validation_failed',
    );
  });

  it('an unknown field is code unknown_field', async () => {
    const { key } = await newAccount();
    const body = await problem(
      await call('/v1/users', {
        method: 'POST',
        key,
        body: { name: 'Ana', email: 'ana@example.com', role: 'admin' },
      }),
      422,
      'validation_failed',
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: 'role', code: 'unknown_field' })]);
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const put = await problem(
      await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: { nmae: 'x' } }),
      422,
      'validation_failed',
    );
    expect(put.errors).toEqual([expect.objectContaining({ path: 'nmae', code: 'unknown_field' })]);
  });
});

describe('read-only fields', () => {
  it('are a 422 read_only on POST, each named, with unknown fields beside them; nothing is written', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/users', {
      method: 'POST',
      key,
      body: {
        id: 424242,
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
        nickname: 'Aninha',
        name: 'Ana',
        email: 'ana@example.com',
      },
    });
    await expectReadOnly(res, ['id', 'created_at', 'updated_at'], { unknown: ['nickname'] });
    expect((await json(await call('/v1/users', { key }))).data).toEqual([]);
  });

  it('are a 422 read_only on PUT: a GET body goes back without them', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const res = await call(`/v1/users/${user.id}`, {
      method: 'PUT',
      key,
      body: { ...user, name: 'Ana Souza' },
    });
    await expectReadOnly(res, ['id', 'created_at', 'updated_at', 'deleted_at']);
    expect((await json(await call(`/v1/users/${user.id}`, { key }))).data).toEqual(user);
    const back = await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: writable(user) });
    expect(back.status).toBe(200);
    expect((await json(back)).data).toEqual({ ...user, updated_at: expect.any(String) });
  });

  it('are, on every resource, exactly the fields its responses have and its bodies do not', async () => {
    const doc = await json(await call('/openapi.json'));
    const schemas = doc.components.schemas;
    const readOnly = (name: string) => {
      const writable = new Set(Object.keys(schemas[`${name}Create`].properties));
      return Object.keys(schemas[name].properties)
        .filter((key) => !writable.has(key))
        .sort();
    };
    const server = ['created_at', 'id', 'updated_at'];
    // The resources with a trash show when a row went there.
    const trashed = [...server, 'deleted_at'].sort();
    expect(readOnly('User')).toEqual(trashed);
    expect(readOnly('Contact')).toEqual(trashed);
    expect(readOnly('Deal')).toEqual(trashed);
    expect(readOnly('Company')).toEqual([...trashed, 'deal_count', 'lead_count'].sort());
    expect(readOnly('Task')).toEqual([...trashed, 'completed_at', 'owner_ids'].sort());
    expect(readOnly('InboundWebhook')).toEqual(
      [...server, 'has_secret', 'previous_url_expires_at', 'url'].sort(),
    );
    // The update bodies take the same fields, all optional.
    for (const name of ['User', 'Contact', 'Deal', 'Company', 'Task', 'InboundWebhook']) {
      expect(Object.keys(schemas[`${name}Update`].properties).sort()).toEqual(
        Object.keys(schemas[`${name}Create`].properties).sort(),
      );
      expect(schemas[`${name}Update`].required ?? []).toEqual([]);
      expect(schemas[`${name}Create`].additionalProperties).toBe(false);
    }
  });

  it('name what to write instead: owner_id for owner_ids, is_completed for completed_at, secret for has_secret', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const deal = await create(key, '/v1/deals', { name: 'D' });
    const task = { deal_id: deal.id, name: 'T', category: 'C' };
    await expectReadOnly(
      await call('/v1/tasks', {
        method: 'POST',
        key,
        body: { ...task, owner_ids: [user.id], completed_at: null },
      }),
      ['owner_ids', 'completed_at'],
      { writes: { owner_ids: 'owner_id', completed_at: 'is_completed' } },
    );
    const company = { name: 'C', cnpj: '11.222.333/0001-81' };
    await expectReadOnly(
      await call('/v1/companies', {
        method: 'POST',
        key,
        body: { ...company, deal_count: 0, lead_count: 0 },
      }),
      ['deal_count', 'lead_count'],
      { writes: { deal_count: 'counts', lead_count: 'counts' } },
    );
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'W' });
    await expectReadOnly(
      await call(`/v1/inbound-webhooks/${hook.id}`, {
        method: 'PUT',
        key,
        body: { has_secret: true, url: 'https://elsewhere.example/hooks/x' },
      }),
      ['has_secret', 'url'],
      { writes: { has_secret: 'secret', url: 'rotate-token' } },
    );
    expect((await json(await call('/v1/tasks', { key }))).data).toEqual([]);
    expect((await json(await call('/v1/companies', { key }))).data).toEqual([]);
    expect((await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data).toEqual(hook);
  });
});
