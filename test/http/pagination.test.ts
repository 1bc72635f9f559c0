import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { toBase64url } from '../../src/core/base64url';
import worker from '../../src/index';
import {
  BASE,
  call,
  create,
  d1Of,
  expectCursorRefused,
  expectLimitsRefused,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  pageWithNext,
} from '../helpers';
import { documentedList, eachSort, lists, pathOf, type Seeded, secondRows, seededAccount } from '../lists';
import { deref } from '../openapi';

const cursorOf = (value: unknown) => toBase64url(new TextEncoder().encode(JSON.stringify(value)));

describe('id-list filters', () => {
  it('take 100 ids per list, several lists at once, without hitting the parameter limit', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'O', email: 'o@example.com' });
    const contact = await create(key, '/v1/contacts', { name: 'C', owner_id: owner.id });
    const deal = await create(key, '/v1/deals', { name: 'D', owner_id: owner.id, contact_id: contact.id });
    const hundred = (id: number) => [id, ...Array.from({ length: 99 }, (_, i) => 900_000 + i)].join(',');

    const contacts = await call(`/v1/contacts?owner_id=${hundred(owner.id)}&company_id=${hundred(1)}`, {
      key,
    });
    expect(contacts.status).toBe(200);
    expect((await json(contacts)).data).toEqual([]);

    const query = `owner_id=${hundred(owner.id)}&contact_id=${hundred(contact.id)}&company_id=${hundred(1)}`;
    const none = await call(`/v1/deals?${query}`, { key });
    expect(none.status).toBe(200);
    expect((await json(none)).data).toEqual([]);
    const found = await json(
      await call(`/v1/deals?owner_id=${hundred(owner.id)}&contact_id=${hundred(contact.id)}`, { key }),
    );
    expect(found.data.map((d: { id: number }) => d.id)).toEqual([deal.id]);

    await expectProblem(await call(`/v1/contacts?owner_id=${hundred(1)},5`, { key }), 400, 'invalid_query');
  });
});

describe('cursors', () => {
  it('refuse a cursor whose value does not fit the sort field', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/users', { name: 'A', email: 'a@example.com' });
    for (const [sort, cursor] of [
      ['-created_at', ['-created_at', 'zzz', 1]],
      ['-created_at', ['-created_at', 1.5, 1]],
      ['name', ['name', 5, 1]],
      ['name', ['name', 'a', 'b']],
    ] as const) {
      const res = await call(`/v1/users?sort=${sort}&cursor=${cursorOf(cursor)}`, { key });
      await expectProblem(res, 400, 'invalid_cursor');
    }
  });

  it('name the sort a cursor was issued for only when it is one of the list sorts', async () => {
    const { key } = await newAccount();
    const cursor = cursorOf(['name', 'a', 1, '']);
    const named = await expectProblem(
      await call(`/v1/users?cursor=${cursor}`, { key }),
      400,
      'invalid_cursor',
    );
    expect(named.detail).toBe(
      'This cursor was issued for sort=name; send it with sort=name, or leave out cursor to start sort=-created_at from its first page.',
    );
    // Forged sorts (a field of another list, markup) are not echoed back.
    for (const forged of ['due_date', '<b>x</b>', 'name ', 7]) {
      const res = await call(`/v1/users?sort=name&cursor=${cursorOf([forged, 'a', 1])}`, { key });
      const body = await expectProblem(res, 400, 'invalid_cursor');
      expect(body.detail).toBe('The cursor is not one this API issued.');
    }
  });
});

describe('links', () => {
  it('Location and Link use PUBLIC_BASE_URL when it is set', async () => {
    const { key } = await newAccount();
    const publicEnv = { ...env, PUBLIC_BASE_URL: 'https://api.example.com' };
    const send = (path: string, init: RequestInit = {}) =>
      worker.fetch(
        new Request(`${BASE}${path}`, {
          ...init,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        }),
        publicEnv,
        createExecutionContext(),
      );
    const posted = await send('/v1/users', {
      method: 'POST',
      body: JSON.stringify({ name: 'A', email: 'a@x.com' }),
    });
    const { data } = await json(posted);
    expect(posted.headers.get('Location')).toBe(`https://api.example.com/v1/users/${data.id}`);
    await create(key, '/v1/users', { name: 'B', email: 'b@x.com' });
    const page = await send('/v1/users?limit=1');
    expect(page.headers.get('Link')).toMatch(
      /^<https:\/\/api\.example\.com\/v1\/users\?limit=1&cursor=[\w-]+>; rel="next"$/,
    );
  });
});

describe('filters at the edges', () => {
  it('rounds sub-millisecond bounds the way that keeps their meaning', async () => {
    const { id, key } = await newAccount();
    const at = Date.UTC(2024, 2, 5, 10, 0, 0, 0);
    await d1Of(id)
      .prepare(
        "INSERT INTO users (account_id, name, name_norm, email, email_norm, created_at, updated_at) VALUES (?, 'U', 'u', 'u@x.com', 'u@x.com', ?, ?)",
      )
      .bind(id, at, at)
      .run();
    const count = async (q: string) => (await json(await call(`/v1/users?${q}`, { key }))).data.length;
    expect(await count('created_at__gte=2024-03-05T10:00:00.0005Z')).toBe(0);
    expect(await count('created_at__lt=2024-03-05T10:00:00.0005Z')).toBe(1);
    expect(await count('created_at__gt=2024-03-05T10:00:00.0005Z')).toBe(0);
    expect(await count('created_at__lte=2024-03-05T10:00:00.0005Z')).toBe(1);
    expect(await count('created_at__gte=2024-03-05T10:00:00.000000Z')).toBe(1);
  });

  it('trims an email filter like stored emails are trimmed', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'A', email: ' Ana@Example.com ' });
    const found = await json(
      await call(`/v1/users?email=${encodeURIComponent(' ana@example.com ')}`, { key }),
    );
    expect(found.data.map((u: { id: number }) => u.id)).toEqual([user.id]);
  });
});

/** Cursors no list issued: not base64url JSON, not an array, too short, a value that fits no field. */
const garbageFor = (sort: string) => [
  'garbage!!',
  'xyz',
  'W10',
  '%00',
  btoa('[1,2,3]'),
  btoa('{"a":1}'),
  cursorOf([sort, 'a']),
  cursorOf([sort, {}, 1]),
];

/** Whether a row field holds text (a name): a cursor value `'x'` then fits it. */
const isText = (doc: Json, field: Json): boolean => {
  const text = JSON.stringify(deref(doc, field) ?? {});
  return text.includes('"string"') && !text.includes('date-time');
};

describe('every list', () => {
  it('is in the catalogue of test/lists.ts, which these checks and those of test/http/conventions.test.ts walk', async () => {
    const doc = await json(await call('/openapi.json'));
    const documented = Object.entries<Json>(doc.paths)
      .filter(([, item]) => item.get?.parameters?.some((p: Json) => p.name === 'limit'))
      .map(([path]) => path.replace(/\{[^}]+\}/g, '{}'))
      // The change journal's reads page by commit order and, oldest first, never end (next_cursor
      // is where a poller resumes): test/journal/reads.test.ts holds them to that.
      .filter((path) => path !== '/v1/events' && !path.endsWith('/{}/history'))
      // The operator's list of accounts across shards takes the admin token, not an account's key:
      // test/db/shards.test.ts walks its pages.
      .filter((path) => !path.startsWith('/admin/'));
    expect(lists.map((each) => each.path.replace(/\{[^}]+\}/g, '{}')).sort()).toEqual(documented.sort());
  });

  it('takes limit 1..100 (25 by default), echoed in meta.limit beside next_cursor; anything else is a 400', async () => {
    const { key, ids } = await seededAccount();
    for (const each of lists) {
      const path = pathOf(each, ids);
      const page = await list(key, path);
      expect(Object.keys(page).sort(), path).toEqual(['data', 'meta']);
      expect(page.meta, path).toEqual({ limit: 25, next_cursor: null });
      expect(page.data, path).toHaveLength(1);
      for (const limit of [1, 100]) {
        expect((await list(key, `${path}?limit=${limit}`)).meta, path).toEqual({ limit, next_cursor: null });
      }
      await expectLimitsRefused(key, path);
    }
  });

  /** The seeded account with a second row of everything, so that every list has a next page at limit=1. */
  let twoRows: Promise<Seeded> | undefined;
  const twoRowsEach = () =>
    (twoRows ??= seededAccount().then(async (seeded) => {
      await secondRows(seeded);
      return seeded;
    }));

  it.each(lists.map((each) => each.path))(
    '%s, under every sort: a Link rel="next" to the last page, which has none; the cursor refused under any other sort, and garbage refused',
    async (listPath) => {
      const each = lists.find((candidate) => candidate.path === listPath) as (typeof lists)[number];
      const { key, ids } = await twoRowsEach();
      const doc = await json(await call('/openapi.json'));
      const path = pathOf(each, ids);
      const { sorts, defaultSort = '', fields } = documentedList(doc, each.path);
      expect([...sorts].sort(), path).toEqual(eachSort(each).sort());
      for (const sort of ['', ...sorts]) {
        const { page, next } = await pageWithNext(
          key,
          sort ? `${path}?sort=${sort}&limit=1` : `${path}?limit=1`,
        );
        const lastRes = await call(next.pathname + next.search, { key });
        expect(lastRes.status, `${path} ${sort}`).toBe(200);
        expect(lastRes.headers.get('Link'), `${path} ${sort}`).toBeNull();
        const last = await json(lastRes);
        expect(last.meta.next_cursor, `${path} ${sort}`).toBeNull();
        expect([...page.data, ...last.data].map((row: Json) => row.id).sort()).toEqual(
          (await list(key, `${path}?limit=100`)).data.map((row: Json) => row.id).sort(),
        );
        if (!sort) {
          // Without sort too (a list with one fixed order takes none).
          for (const bad of garbageFor(defaultSort || 'name')) {
            await expectProblem(
              await call(`${path}?cursor=${encodeURIComponent(bad)}`, { key }),
              400,
              'invalid_cursor',
            );
          }
        }
        if (!sorts.length) continue;
        const issued = sort || defaultSort;
        const field = fields[issued.replace(/^-/, '')];
        const others = sorts.filter((other) => other !== issued);
        if (issued !== defaultSort) others.push('');
        await expectCursorRefused(
          key,
          path,
          { sort: issued, cursor: page.meta.next_cursor, limit: 1 },
          others,
          [...garbageFor(issued), ...(field && !isText(doc, field) ? [cursorOf([issued, 'x', 1])] : [])],
          defaultSort,
        );
      }
    },
  );

  it('refuse as sort each field of their rows they do not sort by, either way, and malformed sorts', async () => {
    const { key, ids } = await seededAccount();
    const doc = await json(await call('/openapi.json'));
    for (const each of lists) {
      const { sorts, fields } = documentedList(doc, each.path);
      if (!sorts.length) continue;
      const unsorted = Object.keys(fields)
        .flatMap((field) => [field, `-${field}`])
        .filter((sort) => !sorts.includes(sort));
      for (const sort of [
        ...unsorted,
        'unknown',
        ...sorts.filter((sort) => !sort.startsWith('-')).map((sort) => `--${sort}`),
        `${sorts[0]},${sorts[1]}`,
      ]) {
        const body = await expectProblem(
          await call(`${pathOf(each, ids)}?sort=${encodeURIComponent(sort)}`, { key }),
          400,
          'invalid_query',
        );
        expect(body.errors[0].path, `${each.path}?sort=${sort}`).toBe('sort');
      }
    }
  });
});
