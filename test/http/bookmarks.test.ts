import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BOOKMARK } from '../../src/http/bookmark';
import {
  accountsOnShard,
  adminHeaders,
  call,
  callWithDb,
  create,
  expectProblem,
  type Json,
  json,
  newAccount,
  recordingD1,
  roundTrips,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const bookmarkOf = (res: Response): string => {
  const bookmark = res.headers.get('X-D1-Bookmark');
  expect(bookmark).toMatch(BOOKMARK);
  return bookmark as string;
};

describe('X-D1-Bookmark', () => {
  it('comes with every /v1 response that used D1, reads and writes, errors included', async () => {
    const { key } = await newAccount();
    const posted = await call('/v1/users', { method: 'POST', key, body: { name: 'Ana', email: 'a@x.com' } });
    expect(posted.status).toBe(201);
    const { data } = await json(posted);
    bookmarkOf(posted);
    bookmarkOf(await call(`/v1/users/${data.id}`, { key }));
    bookmarkOf(await call('/v1/users?sort=name', { key }));
    bookmarkOf(await call('/v1/task-categories', { key }));
    bookmarkOf(await call(`/v1/users/${data.id}`, { method: 'PUT', key, body: { name: 'Ana S' } }));
    const missing = await call('/v1/users/999999', { key });
    expect(missing.status).toBe(404);
    bookmarkOf(missing);
  });

  it('is absent when the request never reached D1', async () => {
    const { key } = await newAccount();
    for (const res of [
      await call('/health'),
      await call('/v1/users'),
      await call('/v1/users?nme=x', { key }),
    ]) {
      expect(roundTrips(res)).toBe(0);
      expect(res.headers.get('X-D1-Bookmark')).toBeNull();
    }
  });

  it('sent back on a read, that read sees the write and answers a bookmark at least as recent', async () => {
    const { key } = await newAccount();
    const posted = await call('/v1/contacts', { method: 'POST', key, body: { name: 'Bruno' } });
    expect(posted.status).toBe(201);
    const written = bookmarkOf(posted);
    const { data } = await json(posted);
    const headers = { 'X-D1-Bookmark': written };

    const one = await call(`/v1/contacts/${data.id}`, { key, headers });
    expect(one.status).toBe(200);
    expect((await json(one)).data.name).toBe('Bruno');
    expect(bookmarkOf(one) >= written).toBe(true);

    const list = await call('/v1/contacts?name__contains=brun', { key, headers });
    expect(list.status).toBe(200);
    expect((await json(list)).data.map((c: Json) => c.id)).toEqual([data.id]);
    expect(bookmarkOf(list) >= written).toBe(true);
    expect(roundTrips(list)).toBe(1);
  });

  it('starts reads from the bookmark sent, or unconstrained; every other method on the primary', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Ana', email: 'a@x.com' });
    const bookmark = bookmarkOf(await call('/v1/users', { key }));
    const d1 = recordingD1(env.DB);
    const send = (path: string, method = 'GET', headers: Record<string, string> = {}) =>
      callWithDb(d1.db, path, {
        method,
        key,
        headers,
        body: method === 'PUT' ? { name: 'Ana S' } : undefined,
      });

    expect((await send('/v1/users', 'GET', { 'X-D1-Bookmark': bookmark })).status).toBe(200);
    expect((await send(`/v1/users/${user.id}`, 'HEAD', { 'X-D1-Bookmark': bookmark })).status).toBe(200);
    expect((await send('/v1/users')).status).toBe(200);
    expect((await send('/v1/users', 'GET', { 'X-D1-Bookmark': '' })).status).toBe(200);
    expect((await send(`/v1/users/${user.id}`, 'PUT', { 'X-D1-Bookmark': bookmark })).status).toBe(200);
    expect(d1.sessions).toEqual([
      bookmark,
      bookmark,
      'first-unconstrained',
      'first-unconstrained',
      'first-primary',
    ]);
  });

  it.each([
    ['junk', 'not-a-bookmark'],
    ['upper case', '00000000-00000004-00000000-0000000000000000000000000000000A'],
    ['too short', '00000000-00000004-00000000'],
    ['too long', `00000000-00000004-00000000-${'0'.repeat(65)}`],
    ['inner space', '00000000-00000004 00000000-00000000000000000000000000000000'],
    ['SQL', "00000000-00000004-00000000-0000000000000000'; drop table users; --"],
  ])(
    'malformed (%s) is a 400 invalid_bookmark, on reads and writes, before any D1 work',
    async (_, bookmark) => {
      const { key } = await newAccount();
      const headers = { 'X-D1-Bookmark': bookmark, 'X-Request-Id': 'req-bookmark' };
      const read = await call('/v1/deals', { key, headers });
      const problem = await expectProblem(read, 400, 'invalid_bookmark');
      expect(problem.request_id).toBe('req-bookmark');
      expect(roundTrips(read)).toBe(0);
      expect(read.headers.get('X-D1-Bookmark')).toBeNull();
      const write = await call('/v1/deals', { method: 'POST', key, headers, body: { name: 'D' } });
      await expectProblem(write, 400, 'invalid_bookmark');
      expect(roundTrips(write)).toBe(0);
    },
  );

  it('is checked after the API key (401 first) and ignored outside /v1', async () => {
    await expectProblem(
      await call('/v1/users', { headers: { 'X-D1-Bookmark': 'junk' } }),
      401,
      'unauthorized',
    );
    expect((await call('/health', { headers: { 'X-D1-Bookmark': 'junk' } })).status).toBe(200);
    const admin = await call('/admin/accounts', {
      method: 'POST',
      body: { name: 'A' },
      headers: { ...adminHeaders(), 'X-D1-Bookmark': 'junk' },
    });
    expect(admin.status).toBe(201);
  });

  it('is documented in OpenAPI: a header parameter on every /v1 read, a header of every /v1 response', async () => {
    const doc = await json(await call('/openapi.json'));
    const v1 = Object.entries<Json>(doc.paths).filter(([path]) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(0);
    for (const [path, item] of v1) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const param = (op.parameters ?? []).find((p: Json) => p.name === 'X-D1-Bookmark');
        if (method === 'get') {
          expect(param, where).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
          // A bookmark of the shape D1 issues, or empty (no bookmark yet), which the API accepts too.
          const pattern = new RegExp(param.schema.pattern);
          expect(pattern.source, where).toBe(`^(?:${BOOKMARK.source.slice(1, -1)})?$`);
          expect(pattern.test(''), where).toBe(true);
        }
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          expect(response.headers?.['X-D1-Bookmark'], `${where} ${status}`).toBeDefined();
        }
      }
    }
  });
});
