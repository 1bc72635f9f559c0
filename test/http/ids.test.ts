import { describe, expect, it } from 'vitest';
import { adminHeaders, call, expectProblem, type Json, json, newAccount, requiredQuery } from '../helpers';
import { idFilters } from '../lists';

const METHODS = ['get', 'put', 'post', 'delete'] as const;

/** What a client might put where an id goes: none of them is a positive integer a JS number holds. */
const NOT_IDS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '01',
  '007',
  '0x10',
  '9007199254740992', // 2^53: past Number.MAX_SAFE_INTEGER
  '9223372036854775807', // SQLite's largest INTEGER, which a JS number cannot hold exactly
  '9223372036854775808',
  '99999999999999999', // 17 digits: past 2^53 too, though short of SQLite's range
  '99999999999999999999',
  'abc',
  '%00',
  'null',
];
/** Not ids in a path; in a query string they decode to ` 1`, which an id list trims to 1. */
const SPACED = ['+1', '%201'];
/** The largest id the API takes: well-formed, so it is a plain 404 (or an empty list). */
const LARGEST = String(Number.MAX_SAFE_INTEGER);

async function document(): Promise<Json> {
  return json(await call('/openapi.json'));
}

/** Every operation with an id in its path (a webhook's token is a credential, not an id). */
async function idRoutes(): Promise<{ method: string; path: string; params: string[]; item: Json }[]> {
  const doc = await document();
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) => {
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).filter((p) => p !== 'token');
    return params.length
      ? METHODS.filter((m) => item[m]).map((method) => ({ method, path, params, item }))
      : [];
  });
}

describe('ids in paths', () => {
  it('anything but a positive integer up to 2^53-1 is a 404 problem on every route, never a 500', async () => {
    const { key } = await newAccount();
    const routes = await idRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const { method, path, params, item } of routes) {
      const admin = path.startsWith('/admin/');
      const query = requiredQuery(item[method]);
      const send = (url: string) =>
        call(url + query, {
          method: method.toUpperCase(),
          key: admin ? null : key,
          headers: admin ? adminHeaders() : undefined,
          body: method === 'post' || method === 'put' ? {} : undefined,
        });
      for (const param of params) {
        // The other ids of the path well-formed, so this one alone is what is wrong.
        const at = (id: string) =>
          params.reduce((url, p) => url.replace(`{${p}}`, p === param ? id : '1'), path);
        for (const id of [...NOT_IDS, ...SPACED, LARGEST]) {
          const res = await send(at(id));
          await expectProblem(res, 404, 'not_found');
        }
        // An empty id names another route, or none: never a 500.
        const empty = await send(at(''));
        expect(empty.status, `${method} ${at('')}`).toBeLessThan(500);
      }
    }
    // Every id route, in turn, with every malformed id: over 30 s on a loaded 2-core machine.
  }, 90_000);
});

describe('ids in filters', () => {
  it('anything but positive integers up to 2^53-1 is a 400 naming the filter, never a 500', async () => {
    const { key } = await newAccount();
    const filters = await idFilters();
    // Each list's (the feed's record_id among them) and each export's.
    expect(filters.length).toBe(17);
    for (const { path, name } of filters) {
      for (const value of [...NOT_IDS, '', ',', '1,', '1,,2', '1,abc', '1;2', '[1]']) {
        const body = await expectProblem(
          await call(`${path}?${name}=${value}`, { key }),
          400,
          'invalid_query',
        );
        expect(body.errors[0].path, `${path}?${name}=${value}`).toBe(name);
      }
      for (const value of [LARGEST, `1,${LARGEST}`, encodeURIComponent(' 1 , 2 '), ...SPACED]) {
        const res = await call(`${path}?${name}=${value}`, { key });
        expect(res.status, `${path}?${name}=${value}`).toBe(200);
        // An export of nothing is its header line alone.
        if (path.endsWith('/export')) expect((await res.text()).trim().split('\r\n')).toHaveLength(1);
        else expect((await json(res)).data).toEqual([]);
      }
    }
  });
});

describe('ids in bodies', () => {
  it('a reference that is not a positive integer up to 2^53-1 is a 422 at its path', async () => {
    const { key } = await newAccount();
    for (const bad of [0, -1, 1.5, 2 ** 53, 1e300, '1', true, [1], { id: 1 }]) {
      for (const [path, body, at] of [
        ['/v1/contacts', { name: 'C', owner_id: bad }, 'owner_id'],
        ['/v1/deals', { name: 'D', contact_id: bad }, 'contact_id'],
        ['/v1/companies', { name: 'Co', cnpj: '11.222.333/0001-81', follower_ids: [bad] }, 'follower_ids.0'],
        ['/v1/tasks', { name: 'T', category: 'C', deal_id: bad }, 'deal_id'],
      ] as const) {
        const res = await call(path, { method: 'POST', key, body });
        const problem = await expectProblem(res, 422, 'validation_failed');
        expect(
          problem.errors.map((e: Json) => e.path),
          `${path} ${JSON.stringify(bad)}`,
        ).toContain(at);
      }
    }
  });
});
