import { describe, expect, it } from 'vitest';
import { allIds, call, create, idsOf, json, list, newAccount, pageWithNext } from '../../helpers';
import { insertContact, listIds } from './support';

describe('contacts: list and pagination', () => {
  it('returns data and meta: an empty page, then the contact as it was created', async () => {
    const { key } = await newAccount();
    expect(await list(key, '/v1/contacts')).toEqual({ data: [], meta: { limit: 25, next_cursor: null } });
    const a = await create(key, '/v1/contacts', { name: 'A' });
    expect(await list(key, '/v1/contacts')).toEqual({ data: [a], meta: { limit: 25, next_cursor: null } });
  });

  it('caps a page at 25 by default', async () => {
    const { id: accountId, key } = await newAccount();
    for (let i = 0; i < 27; i++) await insertContact(accountId, `Bulk ${i}`, 1_700_000_000_000 + i);
    const page = await list(key, '/v1/contacts');
    expect(page.data).toHaveLength(25);
    expect(page.meta.next_cursor).toEqual(expect.any(String));
    expect((await allIds(key, '/v1/contacts')).length).toBe(27);
  });

  it('pages with next_cursor and a Link rel="next" header until the last page', async () => {
    const { key } = await newAccount();
    const created: number[] = [];
    for (const name of ['One', 'Two', 'Three', 'Four', 'Five']) {
      created.push((await create(key, '/v1/contacts', { name })).id);
    }

    const { page: page1, next } = await pageWithNext(key, '/v1/contacts?sort=created_at&limit=2');
    expect(page1.meta.limit).toBe(2);
    expect(next.searchParams.get('sort')).toBe('created_at');
    expect(next.searchParams.get('limit')).toBe('2');

    const { page: page2, next: next2 } = await pageWithNext(key, `${next.pathname}${next.search}`);
    const res = await call(`${next2.pathname}${next2.search}`, { key });
    expect(res.status).toBe(200);
    const page3 = await json(res);
    expect(page3.meta.next_cursor).toBeNull();
    expect(res.headers.get('Link')).toBeNull();
    const asc = [...created].sort((x, y) => x - y);
    expect([page1, page2, page3].flatMap(idsOf)).toEqual(asc);
    expect(await allIds(key, '/v1/contacts?limit=2')).toEqual([...asc].reverse());
  });

  it('sorts by name case-insensitively and by created_at, both directions; default is -created_at', async () => {
    const { id: accountId, key } = await newAccount();
    const carol = await insertContact(accountId, 'Carol', Date.UTC(2024, 0, 1));
    const alice = await insertContact(accountId, 'Alice', Date.UTC(2024, 0, 2));
    const bob = await insertContact(accountId, 'bob', Date.UTC(2024, 0, 3));
    const dave = await insertContact(accountId, 'dave', Date.UTC(2024, 0, 4));

    expect(await listIds(key, { sort: 'name' })).toEqual([alice, bob, carol, dave]);
    expect(await listIds(key, { sort: '-name' })).toEqual([dave, carol, bob, alice]);
    expect(await listIds(key, { sort: 'created_at' })).toEqual([carol, alice, bob, dave]);
    expect(await listIds(key, { sort: '-created_at' })).toEqual([dave, bob, alice, carol]);
    expect(await listIds(key, {})).toEqual([dave, bob, alice, carol]);
    expect(await allIds(key, '/v1/contacts?sort=name&limit=1')).toEqual([alice, bob, carol, dave]);
    expect(await allIds(key, '/v1/contacts?sort=-created_at&limit=3')).toEqual([dave, bob, alice, carol]);
  });

  it('breaks created_at ties by id in the sort direction across pages', async () => {
    const { id: accountId, key } = await newAccount();
    const t = Date.UTC(2024, 5, 1, 12);
    const earlier = [
      await insertContact(accountId, 'E1', t - 1000),
      await insertContact(accountId, 'E2', t - 1000),
    ];
    const tied: number[] = [];
    for (let i = 0; i < 7; i++) tied.push(await insertContact(accountId, `Tie ${7 - i}`, t));
    const later = [
      await insertContact(accountId, 'L1', t + 1000),
      await insertContact(accountId, 'L2', t + 1000),
    ];

    const asc = [...earlier, ...tied, ...later];
    const ascPaged = await allIds(key, '/v1/contacts?sort=created_at&limit=2');
    expect(ascPaged).toEqual(asc);
    expect(new Set(ascPaged).size).toBe(11);

    const descPaged = await allIds(key, '/v1/contacts?sort=-created_at&limit=2');
    expect(descPaged).toEqual([...asc].reverse());
    expect(await allIds(key, '/v1/contacts?limit=2')).toEqual([...asc].reverse());
  });

  it('breaks name ties (case-insensitive) by id in the sort direction across pages', async () => {
    const { id: accountId, key } = await newAccount();
    const base = Date.UTC(2024, 5, 1);
    const zulu = await insertContact(accountId, 'Zulu', base);
    const same: number[] = [];
    // One created_at for the tie, so only the id can explain the order inside it.
    for (const name of ['Same', 'SAME', 'same', 'Same', 'sAmE'])
      same.push(await insertContact(accountId, name, base + 40));
    const alpha = await insertContact(accountId, 'alpha', base + 60);
    const mike = await insertContact(accountId, 'Mike', base + 70);

    const asc = [alpha, mike, ...same, zulu];
    const ascPaged = await allIds(key, '/v1/contacts?sort=name&limit=2');
    expect(ascPaged).toEqual(asc);
    expect(new Set(ascPaged).size).toBe(asc.length);
    expect(await allIds(key, '/v1/contacts?sort=-name&limit=2')).toEqual([...asc].reverse());
  });

  it('pages by name through names outside Latin-1', async () => {
    const { key } = await newAccount();
    const zh = await create(key, '/v1/contacts', { name: '李雷' });
    const uk = await create(key, '/v1/contacts', { name: 'Ігор' });
    const ru = await create(key, '/v1/contacts', { name: 'Жанна' });
    const en = await create(key, '/v1/contacts', { name: 'Ann' });
    const res = await call('/v1/contacts?sort=name&limit=2', { key });
    expect(res.status).toBe(200);
    expect(await allIds(key, '/v1/contacts?sort=name&limit=1')).toEqual([en.id, ru.id, uk.id, zh.id]);
    expect(await allIds(key, '/v1/contacts?sort=-name&limit=1')).toEqual([zh.id, uk.id, ru.id, en.id]);
  });

  it('accepts back every cursor it issues, even after 255-character names full of quotes', async () => {
    const { key } = await newAccount();
    // Names of the maximum length whose JSON form is long: every quote and backslash gets escaped.
    const names = ['A', 'B', 'C'].map((letter) => `${letter}${'"\\'.repeat(127)}`);
    expect(names.every((name) => name.length === 255)).toBe(true);
    const ids: number[] = [];
    for (const name of names) ids.push((await create(key, '/v1/contacts', { name })).id);

    const page = await list(key, '/v1/contacts?sort=name&limit=1');
    expect(page.meta.next_cursor).toEqual(expect.any(String));
    const res = await call(
      `/v1/contacts?sort=name&limit=1&cursor=${encodeURIComponent(page.meta.next_cursor)}`,
      {
        key,
      },
    );
    expect(res.status).toBe(200);
    expect(await allIds(key, '/v1/contacts?sort=name&limit=1')).toEqual(ids);
  });

  it('accepts back every cursor it issues, even after 255-character names outside Latin-1', async () => {
    const { key } = await newAccount();
    const rows: { id: number; name: string }[] = [];
    for (const char of ['一', '二', '三'])
      rows.push(await create(key, '/v1/contacts', { name: char.repeat(255) }));
    // Names order by code point: 一 U+4E00 < 三 U+4E09 < 二 U+4E8C.
    const byName = rows.toSorted((a, b) => (a.name < b.name ? -1 : 1)).map((row) => row.id);
    expect(byName).toEqual([rows[0]?.id, rows[2]?.id, rows[1]?.id]);
    expect(await allIds(key, '/v1/contacts?sort=name&limit=1')).toEqual(byName);
  });
});
