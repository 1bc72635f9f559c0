import { env } from 'cloudflare:workers';
import { getTableName } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/auth/secrets';
import { ACCENTED, normalizeText, withoutAccents } from '../../src/core/text';
import { type Db, primaryDb } from '../../src/db/client';
import { keysetPlan } from '../../src/db/keyset';
import { listQuery } from '../../src/db/own';
import type { TenantTable } from '../../src/db/schema';
import { MAX_SORTED_MATCHES, type SearchIndex, search, searchIndexes } from '../../src/db/search';
import {
  accountsOnShard,
  allIds,
  call,
  callWithDb,
  create,
  idsOf,
  insertRow,
  json,
  newAccount,
  qs,
  recordingD1,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Texts chosen to break a substring index: case and Unicode folding, astral and combining characters,
// FTS5 query syntax, LIKE wildcards, the grams separator (U+001F), U+0000, and 1-2 character texts.
const TEXTS = [
  'Ana Souza',
  'ANA',
  'an',
  'a',
  'Ab',
  'aa',
  'aaa',
  'Érica Luz',
  'e\u0301clair',
  'Οδυσσέας Ελύτης',
  'ΟΔΥΣΣΕΥΣ',
  'Иван Петров',
  'São João',
  'Straße',
  'İstanbul',
  '東京タワー',
  '😀 Emoji Co',
  'x😀y',
  '100% Real',
  'snake_case',
  'back\\slash',
  'quote "this"',
  "O'Brien",
  'AND OR NOT',
  'NEAR(a b)',
  'col: value',
  'star* ^caret',
  '(paren) {brace} [bracket]',
  'tab\there',
  'unit\u001fsep',
  'nul\u0000byte',
  'ﬁ ligature',
  'Ǆ dz',
  'zz top',
];

// Values that no text above is built from, many of them query syntax of FTS5 or LIKE.
const ODD = [
  '"',
  '""',
  '" OR "',
  'a"b',
  '*',
  'a*',
  'NEAR(a b)',
  'AND',
  'or',
  'NOT a',
  '(',
  ')',
  ':',
  'name : ana',
  'name_grams : "a',
  '^a',
  '+',
  '-a',
  '{name}',
  '\u001f',
  '\u001f\u001f',
  'a\u001f',
  'a\u001f\u001f',
  '\u0000',
  '\u0000\u0000\u0000',
  'l\u0000b',
  'nul\u0000b',
  '%',
  '_',
  '%_',
  '\\',
  'Σ',
  'ς',
  'ß',
  'SS',
  'İ',
  'i̇',
  'É',
  'é',
  '😀',
  '😀 ',
  ' ',
  '  ',
  'ана',
  'zzz',
  'ﬁ',
  'fi',
  'ǆ',
];

/** Every value to search for: substrings of the texts (1-5 characters and whole), their upper case, and ODD. */
function searchValues(texts: string[]): string[] {
  const values = new Set<string>(ODD);
  for (const text of texts) {
    const chars = [...text];
    values.add(text);
    values.add(text.toUpperCase());
    for (const size of [1, 2, 3, 5]) {
      for (let at = 0; at + size <= chars.length; at++) {
        const piece = chars.slice(at, at + size).join('');
        values.add(piece);
        if (size === 2) values.add(piece.toUpperCase());
      }
    }
  }
  // And 400 random ones of 1 to 4 characters drawn from all of the above, mostly not in any text.
  const alphabet = [...new Set([...texts.join(''), ...ODD.join('')])];
  // Park-Miller: products stay below 2^53, so the sequence is exact and repeatable.
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 48_271) % 2_147_483_647;
    return seed % n;
  };
  for (let i = 0; i < 400; i++) {
    values.add(Array.from({ length: 1 + next(4) }, () => alphabet[next(alphabet.length)]).join(''));
  }
  // What the API takes: 1 to 255 characters.
  return [...values].filter((value) => value.length > 0 && value.length <= 255);
}

type Searched = {
  path: string;
  param: string;
  table: TenantTable;
  index: SearchIndex;
  column: string;
};

/** Every `__contains` filter: a searchable column of searchIndexes, on the list of its resource. */
const SEARCHES: Searched[] = Object.entries(searchIndexes).flatMap(([resource, index]) =>
  Object.entries(index.columns).map(([column, c]) => ({
    path: `/v1/${resource}`,
    param: `${column}__contains`,
    table: c.table as TenantTable,
    index,
    column,
  })),
);

/** The search of `param` on the list at `path`. */
function searchOf(path: string, param: string): Searched {
  const found = SEARCHES.find((s) => s.path === path && s.param === param);
  if (!found) throw new Error(`no search ${path} ${param}`);
  return found;
}

/** The list query the route builds for this filter alone, sorted by created_at. */
const routeQuery = (db: Db, keyHash: string, s: Searched, value: string) =>
  listQuery(
    db,
    keyHash,
    { table: s.table },
    keysetPlan(s.table, 'createdAt', false, 100),
    [],
    search(s.index, { [s.column]: value }),
  );

let account: { id: number; key: string };

/** `column` without accents, written out here apart from the search's own SQL. */
const unaccented = (column: string) =>
  ACCENTED.reduce((text, [letter, base]) => `replace(${text}, '${letter}', '${base}')`, column);

const plainSql = (s: Searched) =>
  `SELECT id FROM ${getTableName(s.table)} WHERE account_id = ? AND instr(${unaccented(s.index.columns[s.column]?.name ?? '')}, ?) > 0 ORDER BY created_at, id`;

/** A value as the search compares it: normalised, without accents. */
const searched = (value: string) => withoutAccents(normalizeText(value));

/** The ids plain instr() finds on the account's normalised column, in the list's created_at order. */
async function plain(s: Searched, value: string): Promise<number[]> {
  const { results } = await env.DB.prepare(plainSql(s))
    .bind(account.id, searched(value))
    .all<{ id: number }>();
  return results.map((row) => row.id);
}

async function listed(key: string, s: Searched, value: string): Promise<number[]> {
  const path = `${s.path}?${qs({ [s.param]: value, sort: 'created_at', limit: '100' })}`;
  const res = await call(path, { key });
  expect(res.status, `${path}: ${JSON.stringify(value)}`).toBe(200);
  const body = await json(res);
  expect(body.meta.next_cursor).toBeNull();
  return idsOf(body);
}

let serial = 0;
const insertCompany = (accountId: number, name: string, segment: string | null) => {
  serial += 1;
  const now = Date.now();
  return insertRow('companies', {
    account_id: accountId,
    name,
    name_norm: normalizeText(name),
    segment,
    segment_norm: segment === null ? null : normalizeText(segment),
    cnpj: String(serial).padStart(14, '0'),
    created_at: now,
    updated_at: now,
  });
};

beforeAll(async () => {
  account = await newAccount('Searched');
  // Another account holding the same texts: none of its rows may ever show up.
  const other = await newAccount('Other');
  for (const [index, text] of TEXTS.entries()) {
    for (const { id, key } of [account, other]) {
      await create(key, '/v1/users', { name: text, email: `u${index}@example.com` });
      await create(key, '/v1/contacts', { name: text });
      await insertCompany(id, text, TEXTS[TEXTS.length - 1 - index] ?? null);
    }
  }
  await insertCompany(account.id, 'No segment', null);
  // Some 200 creates through the Worker: past the default 10 s on a machine shared with other runs.
}, 60_000);

describe('__contains through the search index', () => {
  it.each(SEARCHES)('$path $param: the same rows as plain instr() for every value', async (s) => {
    const values = searchValues(TEXTS);
    expect(values.length).toBeGreaterThan(1000);
    const db = primaryDb(env, 0);
    const keyHash = await sha256Hex(account.key);
    // The route's own query for each value, and plain instr(), a hundred values per round trip.
    for (let at = 0; at < values.length; at += 100) {
      const chunk = values.slice(at, at + 100);
      const [first, ...rest] = chunk.map((value) => routeQuery(db, keyHash, s, value));
      if (!first) continue;
      const pages = (await db.batch([first, ...rest])) as unknown as { id: number }[][];
      const expected = await env.DB.batch<{ id: number }>(
        chunk.map((value) => env.DB.prepare(plainSql(s)).bind(account.id, searched(value))),
      );
      for (const [index, value] of chunk.entries()) {
        expect(
          pages[index]?.map((row) => row.id),
          JSON.stringify(value),
        ).toEqual(expected[index]?.results.map((row) => row.id));
      }
    }
  });

  it.each(SEARCHES)('$path $param through the API, values of every kind', async (s) => {
    for (const value of [...ODD, 'a', 'an', 'ana', 'ANA SOUZA', 'ΟΔΥΣ', 'x😀', 'ção', 'quote "t']) {
      expect(await listed(account.key, s, value), JSON.stringify(value)).toEqual(await plain(s, value));
    }
  });

  it('lists what GET returns for each row found through the index: JSON fields, followers, counts', async () => {
    const user = await create(account.key, '/v1/users', { name: 'Owner', email: 'owner@example.com' });
    const contact = await create(account.key, '/v1/contacts', {
      name: 'Findable Contact',
      custom_fields: { tier: 'gold', score: 3 },
    });
    const company = await create(account.key, '/v1/companies', {
      name: 'Findable Company',
      cnpj: '11.222.333/0001-81',
      follower_ids: [user.id],
    });
    await create(account.key, '/v1/contacts', { name: 'Lead', company_id: company.id });
    for (const [path, row] of [
      ['/v1/contacts', contact],
      ['/v1/companies', company],
    ] as const) {
      for (const value of ['findable', 'fi', 'f']) {
        const found = (
          await json(
            await call(`${path}?${qs({ name__contains: value, limit: '100' })}`, { key: account.key }),
          )
        ).data;
        const one = (await json(await call(`${path}/${row.id}`, { key: account.key }))).data;
        expect(
          found.find((r: { id: number }) => r.id === row.id),
          `${path} ${value}`,
        ).toEqual(one);
      }
    }
  });

  it('companies: name__contains and segment__contains together match both', async () => {
    const [name, segment] = [
      searchOf('/v1/companies', 'name__contains'),
      searchOf('/v1/companies', 'segment__contains'),
    ];
    for (const [a, b] of [
      ['a', 'o'],
      ['ana', 'z'],
      ['lu', 'zz top'],
      ['"', '😀'],
      ['\u0000', 'a'],
    ] as const) {
      const segmentIds = new Set(await plain(segment, b));
      const expected = (await plain(name, a)).filter((id) => segmentIds.has(id));
      const path = `/v1/companies?${qs({ name__contains: a, segment__contains: b, sort: 'created_at', limit: '100' })}`;
      const res = await call(path, { key: account.key });
      expect(res.status).toBe(200);
      expect(idsOf(await json(res)), JSON.stringify([a, b])).toEqual(expected);
    }
  });

  it('follows every write: renames, cleared segments, raw updates and deletes', async () => {
    const byUser = searchOf('/v1/users', 'name__contains');
    const byContact = searchOf('/v1/contacts', 'name__contains');
    const byCompany = searchOf('/v1/companies', 'name__contains');
    const bySegment = searchOf('/v1/companies', 'segment__contains');
    const contact = await create(account.key, '/v1/contacts', { name: 'Quixote' });
    const company = await insertCompany(account.id, 'Zebra Ltda', 'Pecuária');
    expect(await listed(account.key, byContact, 'quix')).toEqual([contact.id]);

    const renamed = await call(`/v1/contacts/${contact.id}`, {
      method: 'PUT',
      key: account.key,
      body: { name: 'Sancho' },
    });
    expect(renamed.status).toBe(200);
    expect(await listed(account.key, byContact, 'quix')).toEqual([]);
    expect(await listed(account.key, byContact, 'q')).toEqual(await plain(byContact, 'q'));
    expect(await listed(account.key, byContact, 'anch')).toEqual([contact.id]);

    expect(await listed(account.key, bySegment, 'pecu')).toEqual([company]);
    const cleared = await call(`/v1/companies/${company}`, {
      method: 'PUT',
      key: account.key,
      body: { segment: null, name: 'Zebu SA' },
    });
    expect(cleared.status).toBe(200);
    expect(await listed(account.key, bySegment, 'pecu')).toEqual([]);
    expect(await listed(account.key, byCompany, 'zebr')).toEqual([]);
    expect(await listed(account.key, byCompany, 'zebu')).toEqual([company]);

    const user = await create(account.key, '/v1/users', { name: 'Dulcineia', email: 'd@example.com' });
    await env.DB.prepare("UPDATE users SET name_norm = 'aldonza' WHERE id = ?").bind(user.id).run();
    expect(await listed(account.key, byUser, 'dulc')).toEqual([]);
    expect(await listed(account.key, byUser, 'ldon')).toEqual([user.id]);
    await env.DB.prepare('DELETE FROM users WHERE id = ?').bind(user.id).run();
    expect(await listed(account.key, byUser, 'ldon')).toEqual([]);
  });

  it(`common and rare values (over and under ${MAX_SORTED_MATCHES} matches), every sort and created_at range: the rows and pages of plain instr()`, async () => {
    const many = await newAccount('Many');
    const base = 1_700_000_000_000;
    // One in 7 names is rare (under the cap), the others common (over it); 40 rows share each
    // created_at, so ties are ordered by id.
    const rows = Array.from({ length: 2 * MAX_SORTED_MATCHES }, (_, i) => {
      const name = i % 7 === 0 ? `Rare ${i}` : `Common ${i}`;
      return env.DB.prepare(
        "INSERT INTO contacts (account_id, name, name_norm, custom_fields, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?)",
      ).bind(many.id, name, normalizeText(name), base + Math.floor(i / 40), 0);
    });
    await env.DB.batch(rows);
    const iso = (ms: number) => new Date(ms).toISOString();
    // A created_at range bounds the walk from both ends; its edges fall inside runs of ties.
    const ranges: { params: Record<string, string>; sql: string }[] = [
      { params: {}, sql: '' },
      {
        params: { created_at__gte: iso(base + 10), created_at__lt: iso(base + 30) },
        sql: ` AND created_at >= ${base + 10} AND created_at < ${base + 30}`,
      },
      { params: { created_at__gt: iso(base + 48) }, sql: ` AND created_at > ${base + 48}` },
      { params: { created_at__lte: iso(base + 2) }, sql: ` AND created_at <= ${base + 2}` },
    ];
    for (const value of ['o', 'common 1', 'rare', 'rare 7', '99', 'zzz']) {
      for (const sort of ['created_at', '-created_at', 'name', '-name']) {
        for (const range of ranges) {
          const direction = sort.startsWith('-') ? 'DESC' : 'ASC';
          const expected = await env.DB.prepare(
            `SELECT id FROM contacts WHERE account_id = ? AND instr(${unaccented('name_norm')}, ?) > 0${range.sql} ORDER BY ${
              sort.endsWith('name') ? 'name_norm' : 'created_at'
            } ${direction}, id ${direction}`,
          )
            .bind(many.id, searched(value))
            .all<{ id: number }>();
          const path = `/v1/contacts?${qs({ name__contains: value, sort, limit: '100', ...range.params })}`;
          expect(await allIds(many.key, path), path).toEqual(expected.results.map((r) => r.id));
        }
      }
    }
  }, 60_000);
});

describe('a list searched and sorted by created_at, with nothing to walk', () => {
  /** The rows of the list request `path` (as `key`), and the rows D1 reports its statement read. */
  async function cost(key: string, path: string, status = 200) {
    const d1 = recordingD1(env.DB);
    const res = await callWithDb(d1.db, path, { key });
    expect(res.status, path).toBe(status);
    // The last statement of the request itself: a 401 is followed by its forwarding lookup on shard 0.
    const list = d1.statements.filter((s) => !s.sql.includes('credential_forwards')).at(-1);
    if (!list) throw new Error('no statement');
    const again = await env.DB.prepare(list.sql)
      .bind(...list.params)
      .all();
    return { rows: status === 200 ? idsOf(await json(res)) : [], rowsRead: again.meta.rows_read };
  }

  let empty: { key: string };
  let small: { key: string };
  beforeAll(async () => {
    // A neighbour with 6000 contacts that hold the value.
    const big = await newAccount('Big');
    const base = 1_700_000_000_000;
    const inserts = Array.from({ length: 6000 }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO contacts (account_id, name, name_norm, custom_fields, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?)",
      ).bind(big.id, `Common ${i}`, `common ${i}`, base + i, base + i),
    );
    for (let i = 0; i < inserts.length; i += 500) await env.DB.batch(inserts.slice(i, i + 500));
    empty = await newAccount('Empty');
    small = await newAccount('Small');
    await create(small.key, '/v1/contacts', { name: 'Common one' });
  }, 60_000);

  it.each([
    ['empty account', '/v1/contacts?name__contains=common&sort=-created_at'],
    ['empty account', '/v1/contacts?name__contains=co&sort=created_at'],
    ['small account', '/v1/contacts?name__contains=common&sort=-created_at&created_at__gte=2999-01-01'],
    ['small account', '/v1/contacts?name__contains=common&sort=created_at&owner_id=123456'],
  ])("%s, %s: reads no other account's matches", async (who, path) => {
    const key = who === 'empty account' ? empty.key : small.key;
    const created = await cost(key, path);
    const byName = await cost(key, path.replace(/sort=-?created_at/, 'sort=name'));
    expect(created.rows, path).toEqual([]);
    // The same request sorted by name reads only this account's slice of the index (a few dozen
    // rows); sorted by created_at it must not read the neighbour's 6000 matches.
    expect(created.rowsRead, `${created.rowsRead} rows read vs ${byName.rowsRead} by name`).toBeLessThan(
      byName.rowsRead + 100,
    );
  });

  it.each(['/v1/contacts?name__contains=common', '/v1/contacts?name__contains=o&sort=created_at'])(
    "a made-up key (no account), %s: the 401's batch reads no account's matches",
    async (path) => {
      // The list statement runs in the key check's batch, with a NULL account, before the 401.
      const unknown = `crm_${'x'.repeat(43)}`;
      const created = await cost(unknown, path, 401);
      const byName = await cost(unknown, `${path.replace(/&sort=created_at/, '')}&sort=name`, 401);
      expect(created.rowsRead, `${created.rowsRead} rows read vs ${byName.rowsRead} by name`).toBeLessThan(
        byName.rowsRead + 100,
      );
    },
  );
});

describe('the two ends of the filtered walk', () => {
  it("bound the index's rowids from their own rows: the key's subquery is in the ends and the row check only", async () => {
    const acct = await newAccount('Bounds');
    for (const name of ['Common one', 'Common two', 'Other'])
      await create(acct.key, '/v1/contacts', { name });
    const d1 = recordingD1(env.DB);
    const res = await callWithDb(d1.db, '/v1/contacts?name__contains=common', { key: acct.key });
    expect(idsOf(await json(res))).toHaveLength(2);
    const list = d1.statements.at(-1)?.sql ?? '';
    expect(list).toContain('found between low_found and high_found');
    // The two ends (each the account's first or last row) and the matched row's own account check.
    expect(list.match(/from "api_keys"/g)).toHaveLength(3);
  });

  it('are each read once, not once for the index and again for the re-check of the rowid range', async () => {
    const acct = await newAccount('Ends');
    const owner = await create(acct.key, '/v1/users', { name: 'Owner', email: 'owner@example.com' });
    const base = 1_700_000_000_000;
    const n = 3000;
    // The owner's one contact is in the middle: each end walks the created_at index to it.
    const inserts = Array.from({ length: n }, (_, i) =>
      env.DB.prepare(
        "INSERT INTO contacts (account_id, name, name_norm, owner_id, custom_fields, created_at, updated_at) VALUES (?, ?, ?, ?, '{}', ?, ?)",
      ).bind(acct.id, `Common ${i}`, `common ${i}`, i === n / 2 ? owner.id : null, base + i, base + i),
    );
    for (let i = 0; i < inserts.length; i += 500) await env.DB.batch(inserts.slice(i, i + 500));
    const end = (dir: string) =>
      env.DB.prepare(
        `SELECT id FROM contacts WHERE account_id = ? AND owner_id IN (SELECT value FROM json_each(?)) ORDER BY created_at ${dir}, id ${dir} LIMIT 1`,
      )
        .bind(acct.id, JSON.stringify([owner.id]))
        .all();
    const ends = (await end('ASC')).meta.rows_read + (await end('DESC')).meta.rows_read;

    const d1 = recordingD1(env.DB);
    const path = `/v1/contacts?${qs({ name__contains: 'common', owner_id: String(owner.id), sort: 'created_at' })}`;
    const res = await callWithDb(d1.db, path, { key: acct.key });
    expect(idsOf(await json(res))).toHaveLength(1);
    // The last statement of the request itself: a 401 is followed by its forwarding lookup on shard 0.
    const list = d1.statements.filter((s) => !s.sql.includes('credential_forwards')).at(-1);
    if (!list) throw new Error('no statement');
    const { meta } = await env.DB.prepare(list.sql)
      .bind(...list.params)
      .all();
    // The ends, one match and its row, the key lookups.
    expect(meta.rows_read, `${meta.rows_read} rows read; the two ends alone read ${ends}`).toBeLessThan(
      ends + 50,
    );
  }, 60_000);
});
