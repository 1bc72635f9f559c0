import { describe, expect, it } from 'vitest';
import {
  allIds,
  call,
  create,
  createdAroundDay,
  expectDateBoundsCoverDay,
  expectNotFound,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  expectUnknownQueries,
  ISO_MS,
  idsOf,
  insertCompany,
  insertRow,
  type Json,
  json,
  list,
  ms,
  newAccount,
  pageWithNext,
  qs,
  resource,
  writable,
} from '../helpers';

const { get, listIds, put } = resource('/v1/contacts');

/** A contact row written straight to D1, so its created_at (epoch ms) can be chosen. */
const insertContact = (accountId: number, name: string, createdAt: number): Promise<number> =>
  insertRow('contacts', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    custom_fields: '{}',
    created_at: createdAt,
    updated_at: createdAt,
  });

describe('contacts: create and read', () => {
  it('creates a contact with every field: 201, Location, E.164 phone, and GET returns the same', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'Owner', email: 'owner@example.com' });
    const res = await call('/v1/contacts', {
      method: 'POST',
      key,
      body: {
        name: '  Maria Silva  ',
        email: 'Maria@Example.com',
        phone: '(11) 98765-4321',
        owner_id: owner.id,
        custom_fields: { source: 'web', score: 7, vip: true, note: null },
      },
    });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/contacts/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Maria Silva',
      email: 'Maria@Example.com',
      phone: '+5511987654321',
      company_id: null,
      owner_id: owner.id,
      custom_fields: { source: 'web', score: 7, vip: true, note: null },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      deleted_at: null,
    });
    expect(data.updated_at).toBe(data.created_at);
    expect(await get(key, data.id)).toEqual(data);
  });

  it('defaults every optional field to null and custom_fields to {}', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Bare' });
    expect(contact).toMatchObject({
      name: 'Bare',
      email: null,
      phone: null,
      company_id: null,
      owner_id: null,
      custom_fields: {},
    });
  });

  it('requires a name of 1..255 characters after trimming (422 on path name)', async () => {
    const { key } = await newAccount();
    const missing = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { email: 'a@b.co' } }),
      422,
      'validation_failed',
    );
    expect(missing.errors[0]).toMatchObject({ path: 'name', code: 'required' });

    for (const name of ['', '   ', 'x'.repeat(256), 42, null]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('name');
    }
    expect((await create(key, '/v1/contacts', { name: 'y'.repeat(255) })).name).toHaveLength(255);
  });

  it('normalises Brazilian and international phone numbers to E.164', async () => {
    const { key } = await newAccount();
    const cases: [string, string][] = [
      ['(11) 98765-4321', '+5511987654321'],
      ['+55 11 98765-4321', '+5511987654321'],
      ['011 98765-4321', '+5511987654321'],
      ['+1 415 555 2671', '+14155552671'],
    ];
    for (const [input, expected] of cases) {
      const contact = await create(key, '/v1/contacts', { name: `Phone ${input}`, phone: input });
      expect(contact.phone, input).toBe(expected);
      expect((await get(key, contact.id)).phone, input).toBe(expected);
    }
  });

  it('rejects unreadable phone numbers with 422 on path phone', async () => {
    const { key } = await newAccount();
    for (const phone of ['abc', '123', '+', '(11) 9876', 12345678901]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'P', phone } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(phone)).toBe('phone');
    }
    const list = await json(await call('/v1/contacts', { key }));
    expect(list.data).toEqual([]);
  });

  it('rejects an invalid email with 422 on path email and accepts null', async () => {
    const { key } = await newAccount();
    for (const email of ['not-an-email', 'a@', '', 7]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'E', email } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(email)).toBe('email');
    }
    expect((await create(key, '/v1/contacts', { name: 'E', email: null })).email).toBeNull();
  });

  it('rejects a company_id or owner_id that is not a row of the account with 422 on the field', async () => {
    const { key } = await newAccount();
    const company = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', company_id: 999_999 } }),
      422,
      'validation_failed',
    );
    expect(company.errors).toEqual([expect.objectContaining({ path: 'company_id' })]);

    const owner = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', owner_id: 999_999 } }),
      422,
      'validation_failed',
    );
    expect(owner.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);

    const both = await expectProblem(
      await call('/v1/contacts', {
        method: 'POST',
        key,
        body: { name: 'C', owner_id: 999_998, company_id: 999_997 },
      }),
      422,
    );
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['company_id', 'owner_id']);

    for (const bad of [0, -1, 1.5, '3']) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', owner_id: bad } }),
        422,
      );
      expect(body.errors[0].path).toBe('owner_id');
    }
    expect((await json(await call('/v1/contacts', { key }))).data).toEqual([]);
  });

  it('accepts a company_id of the account', async () => {
    const { id: accountId, key } = await newAccount();
    const companyId = await insertCompany(accountId, 'Acme Ltda', '11222333000181');
    const contact = await create(key, '/v1/contacts', { name: 'At Acme', company_id: companyId });
    expect(contact.company_id).toBe(companyId);
  });

  it('accepts flat custom_fields and rejects nested values with 422', async () => {
    const { key } = await newAccount();
    const fields = { a: 'x', b: 1.5, c: false, d: null };
    expect((await create(key, '/v1/contacts', { name: 'CF', custom_fields: fields })).custom_fields).toEqual(
      fields,
    );
    for (const custom_fields of [{ nested: { deep: 1 } }, { list: [1, 2] }, 'text', [1]]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'CF', custom_fields } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toMatch(/^custom_fields/);
    }
  });

  it('rejects a __proto__ custom field with 422 instead of silently dropping it', async () => {
    const { key } = await newAccount();
    for (const raw of [
      '{"name":"CF","custom_fields":{"__proto__":"a","b":1}}',
      '{"name":"CF","custom_fields":{"__proto__":{"c":1}}}',
    ]) {
      const body = await expectProblem(await call('/v1/contacts', { method: 'POST', key, body: raw }), 422);
      expect(body.errors[0].path).toMatch(/^custom_fields/);
    }
    expect((await json(await call('/v1/contacts', { key }))).data).toEqual([]);
  });

  it('refuses read-only fields with 422 read_only and unknown fields with 422 unknown_field', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 987_654,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'RO', ...readOnly } }),
      Object.keys(readOnly),
    );
    const contact = await create(key, '/v1/contacts', { name: 'RO' });
    expect(Math.abs(ms(contact.created_at) - Date.now())).toBeLessThan(60_000);

    const unknown = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'U', nickname: 'u', account_id: 1 } }),
      422,
      'validation_failed',
    );
    expect(unknown.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'nickname', code: 'unknown_field' }),
        expect.objectContaining({ path: 'account_id', code: 'unknown_field' }),
      ]),
    );
    expect(idsOf(await list(key, '/v1/contacts'))).toEqual([contact.id]);
  });

  it('answers 404 for a non-existent id and for malformed path ids', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Real' });
    await expectNotFound(key, '/v1/contacts', contact.id + 100_000, [
      'abc',
      '0',
      '-1',
      '1.5',
      '01',
      '1e3',
      '99999999999999999',
    ]);
    expect((await get(key, contact.id)).name).toBe('Real');
  });

  it('requires a valid API key', async () => {
    await expectProblem(await call('/v1/contacts'), 401, 'unauthorized');
    await expectProblem(await call('/v1/contacts', { key: 'crm_not_a_real_key_0000000000000000' }), 401);
  });
});

describe('contacts: update', () => {
  it('PUT is partial: absent fields stay and null clears nullable fields', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'O', email: 'o@example.com' });
    const contact = await create(key, '/v1/contacts', {
      name: 'Partial',
      email: 'p@example.com',
      phone: '+1 415 555 2671',
      owner_id: owner.id,
      custom_fields: { k: 'v' },
    });

    const renamed = await put(key, contact.id, { name: '  Renamed  ' });
    expect(renamed.status).toBe(200);
    const afterRename = (await json(renamed)).data;
    expect(afterRename).toEqual({
      ...contact,
      name: 'Renamed',
      updated_at: expect.stringMatching(ISO_MS),
    });

    const cleared = await put(key, contact.id, { email: null, phone: null, owner_id: null });
    expect(cleared.status).toBe(200);
    const afterClear = (await json(cleared)).data;
    expect(afterClear).toMatchObject({
      id: contact.id,
      name: 'Renamed',
      email: null,
      phone: null,
      owner_id: null,
      custom_fields: { k: 'v' },
      created_at: contact.created_at,
    });
    expect(await get(key, contact.id)).toEqual(afterClear);

    const phoned = (await json(await put(key, contact.id, { phone: '(21) 3456-7890' }))).data;
    expect(phoned.phone).toBe('+552134567890');

    const empty = await put(key, contact.id, {});
    expect(empty.status).toBe(200);
    expect((await json(empty)).data).toMatchObject({ name: 'Renamed', phone: '+552134567890', email: null });
  });

  it('PUT replaces custom_fields whole', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'CF', custom_fields: { a: 1, b: 'two' } });
    const res = await put(key, contact.id, { custom_fields: { c: true } });
    expect(res.status).toBe(200);
    expect((await json(res)).data.custom_fields).toEqual({ c: true });
    expect((await get(key, contact.id)).custom_fields).toEqual({ c: true });

    const emptied = (await json(await put(key, contact.id, { custom_fields: {} }))).data;
    expect(emptied.custom_fields).toEqual({});

    await expectProblem(await put(key, contact.id, { custom_fields: { x: { y: 1 } } }), 422);
    expect((await get(key, contact.id)).custom_fields).toEqual({});
  });

  it('updated_at strictly increases on every PUT while created_at stays', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'T' });
    let previous = contact.updated_at;
    for (let i = 0; i < 4; i++) {
      const res = await put(key, contact.id, { name: `T${i}` });
      expect(res.status).toBe(200);
      const { data } = await json(res);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(ms(data.updated_at)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(contact.created_at);
      previous = data.updated_at;
    }
  });

  it('PUT refuses read-only fields, unknown fields and invalid values', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'RO', email: 'ro@example.com' });
    await expectReadOnly(
      await put(key, contact.id, { id: contact.id + 1, created_at: '2000-01-01T00:00:00.000Z', name: 'RO2' }),
      ['id', 'created_at'],
    );
    expect(await get(key, contact.id)).toEqual(contact);
    const res = await put(key, contact.id, { ...writable(contact), name: 'RO2' });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ id: contact.id, name: 'RO2', created_at: contact.created_at });
    expect(ms(data.updated_at)).toBeGreaterThan(ms(contact.updated_at));

    await expectUnknownField(await put(key, contact.id, { colour: 'red' }), 'colour');

    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ name: '  ' }, 'name'],
      [{ email: 'nope' }, 'email'],
      [{ phone: 'abc' }, 'phone'],
      [{ owner_id: 999_999 }, 'owner_id'],
      [{ company_id: 999_999 }, 'company_id'],
    ] as [Record<string, unknown>, string][]) {
      const problem = await expectProblem(await put(key, contact.id, body), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
    expect(await get(key, contact.id)).toEqual(data);
  });
});

describe('contacts: list and pagination', () => {
  it('returns data and meta with the default limit 25 and honours limit 1..100', async () => {
    const { key } = await newAccount();
    const empty = await list(key, '/v1/contacts');
    expect(empty).toEqual({ data: [], meta: { limit: 25, next_cursor: null } });

    const a = await create(key, '/v1/contacts', { name: 'A' });
    const full = await list(key, '/v1/contacts');
    expect(full.data).toEqual([a]);
    expect(full.meta).toEqual({ limit: 25, next_cursor: null });
    expect((await list(key, '/v1/contacts?limit=1')).meta.limit).toBe(1);
    expect((await list(key, '/v1/contacts?limit=100')).meta.limit).toBe(100);

    for (const limit of ['0', '101', 'x', '-1', '1.5', '']) {
      await expectProblem(await call(`/v1/contacts?limit=${limit}`, { key }), 400, 'invalid_query');
    }
  });

  it('caps a page at 25 by default', async () => {
    const { id: accountId, key } = await newAccount();
    for (let i = 0; i < 27; i++) await insertContact(accountId, `Bulk ${i}`, 1_700_000_000_000 + i);
    const page = await list(key, '/v1/contacts');
    expect(page.data).toHaveLength(25);
    expect(page.meta.next_cursor).toEqual(expect.any(String));
    expect((await allIds(key, '/v1/contacts')).length).toBe(27);
  });

  it('rejects unknown query parameters with 400 invalid_query', async () => {
    const { key } = await newAccount();
    await expectUnknownQueries(key, '/v1/contacts', [
      'foo=1',
      'status=open',
      'name=Ana',
      'created_at=2024-01-01',
      'contact_id=1',
    ]);
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

  it('has no Link header when everything fits in one page', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/contacts', { name: 'Only' });
    const res = await call('/v1/contacts?limit=1', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('Link')).toBeNull();
    expect((await json(res)).meta.next_cursor).toBeNull();
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

  it('rejects an unknown sort, a garbage cursor and a cursor of another sort with 400', async () => {
    const { key } = await newAccount();
    for (const name of ['A', 'B', 'C']) await create(key, '/v1/contacts', { name });
    for (const sort of ['unknown', 'updated_at', 'email', '--name', 'id']) {
      await expectProblem(await call(`/v1/contacts?sort=${sort}`, { key }), 400);
    }
    await expectProblem(await call('/v1/contacts?sort=unknown', { key }), 400, 'invalid_query');

    const byName = await list(key, '/v1/contacts?sort=name&limit=1');
    const cursor = encodeURIComponent(byName.meta.next_cursor);
    expect((await list(key, `/v1/contacts?sort=name&limit=1&cursor=${cursor}`)).data[0].name).toBe('B');
    for (const other of ['sort=-name&', 'sort=created_at&', 'sort=-created_at&', '']) {
      await expectProblem(
        await call(`/v1/contacts?${other}limit=1&cursor=${cursor}`, { key }),
        400,
        'invalid_cursor',
      );
    }
    for (const garbage of ['garbage!!', 'abc', 'W10', btoa('{"a":1}'), btoa('["name","a"]'), '%00']) {
      await expectProblem(
        await call(`/v1/contacts?sort=name&cursor=${encodeURIComponent(garbage)}`, { key }),
        400,
      );
    }
    await expectProblem(await call('/v1/contacts?cursor=garbage!!', { key }), 400, 'invalid_cursor');
  });
});

describe('contacts: filters', () => {
  it('filters by owner_id, one id or a comma list; rejects x and 0 with 400', async () => {
    const { key } = await newAccount();
    const u1 = await create(key, '/v1/users', { name: 'U1', email: 'u1@example.com' });
    const u2 = await create(key, '/v1/users', { name: 'U2', email: 'u2@example.com' });
    const u3 = await create(key, '/v1/users', { name: 'U3', email: 'u3@example.com' });
    const c1 = await create(key, '/v1/contacts', { name: 'C1', owner_id: u1.id });
    const c2 = await create(key, '/v1/contacts', { name: 'C2', owner_id: u2.id });
    const c3 = await create(key, '/v1/contacts', { name: 'C3', owner_id: u3.id });
    await create(key, '/v1/contacts', { name: 'Nobody' });

    expect(await listIds(key, { owner_id: String(u2.id), sort: 'created_at' })).toEqual([c2.id]);
    expect(await listIds(key, { owner_id: `${u1.id},${u3.id}`, sort: 'created_at' })).toEqual([c1.id, c3.id]);
    expect(await listIds(key, { owner_id: `${u3.id}, ${u1.id}`, sort: 'created_at' })).toEqual([
      c1.id,
      c3.id,
    ]);
    expect(await listIds(key, { owner_id: '999999' })).toEqual([]);

    for (const bad of ['x', '0', '-1', '1.5', '', '3,,7', '3,x']) {
      await expectProblem(await call(`/v1/contacts?${qs({ owner_id: bad })}`, { key }), 400, 'invalid_query');
    }
  });

  it('filters by company_id, one id or a comma list; rejects x and 0 with 400', async () => {
    const { id: accountId, key } = await newAccount();
    const acme = await insertCompany(accountId, 'Acme', '11222333000181');
    const globex = await insertCompany(accountId, 'Globex', '11444777000161');
    const c1 = await create(key, '/v1/contacts', { name: 'At Acme', company_id: acme });
    const c2 = await create(key, '/v1/contacts', { name: 'At Globex', company_id: globex });
    await create(key, '/v1/contacts', { name: 'Freelancer' });

    expect(await listIds(key, { company_id: String(acme) })).toEqual([c1.id]);
    expect(await listIds(key, { company_id: `${acme},${globex}`, sort: 'created_at' })).toEqual([
      c1.id,
      c2.id,
    ]);
    expect(await listIds(key, { company_id: '999999' })).toEqual([]);
    for (const bad of ['x', '0']) {
      await expectProblem(await call(`/v1/contacts?company_id=${bad}`, { key }), 400, 'invalid_query');
    }
  });

  it('filters by email exactly and case-insensitively', async () => {
    const { key } = await newAccount();
    const ana = await create(key, '/v1/contacts', { name: 'Ana', email: 'Ana.Souza@Example.com' });
    await create(key, '/v1/contacts', { name: 'Ana 2', email: 'ana.souza@example.com.br' });
    await create(key, '/v1/contacts', { name: 'No email' });

    expect(await listIds(key, { email: 'ana.souza@example.com' })).toEqual([ana.id]);
    expect(await listIds(key, { email: 'ANA.SOUZA@EXAMPLE.COM' })).toEqual([ana.id]);
    expect(await listIds(key, { email: 'ana.souza@example' })).toEqual([]);
    expect(await listIds(key, { email: 'souza@example.com' })).toEqual([]);
  });

  it('filters by phone after normalising the filter value', async () => {
    const { key } = await newAccount();
    const br = await create(key, '/v1/contacts', { name: 'BR', phone: '+55 11 98765-4321' });
    const us = await create(key, '/v1/contacts', { name: 'US', phone: '+1 415 555 2671' });
    await create(key, '/v1/contacts', { name: 'Other BR', phone: '(11) 98765-4322' });

    for (const phone of ['(11) 98765-4321', '+5511987654321', '011 98765-4321', '11987654321']) {
      expect(await listIds(key, { phone }), phone).toEqual([br.id]);
    }
    expect(await listIds(key, { phone: '+1 (415) 555-2671' })).toEqual([us.id]);
    expect(await listIds(key, { phone: '+1 415 555 0000' })).toEqual([]);
    for (const phone of ['abc', '123']) {
      await expectProblem(await call(`/v1/contacts?${qs({ phone })}`, { key }), 400, 'invalid_query');
    }
  });

  it('name__contains is case-insensitive, accents included', async () => {
    const { key } = await newAccount();
    const erica = await create(key, '/v1/contacts', { name: 'Érica Luz' });
    const lower = await create(key, '/v1/contacts', { name: 'érica' });
    const plain = await create(key, '/v1/contacts', { name: 'Erica Plain' });
    const joao = await create(key, '/v1/contacts', { name: 'JOÃO Çedilha' });

    expect(await listIds(key, { name__contains: 'ÉRICA', sort: 'created_at' })).toEqual([erica.id, lower.id]);
    expect(await listIds(key, { name__contains: 'érica', sort: 'created_at' })).toEqual([erica.id, lower.id]);
    expect(await listIds(key, { name__contains: 'RICA', sort: 'created_at' })).toEqual([
      erica.id,
      lower.id,
      plain.id,
    ]);
    expect(await listIds(key, { name__contains: 'joão ç' })).toEqual([joao.id]);
    expect(await listIds(key, { name__contains: 'LUZ' })).toEqual([erica.id]);
    expect(await listIds(key, { name__contains: 'zzz' })).toEqual([]);
  });

  it('name__contains is case-insensitive for Cyrillic and Greek letters', async () => {
    const { key } = await newAccount();
    const ivan = await create(key, '/v1/contacts', { name: 'Иван Петров' });
    const odysseas = await create(key, '/v1/contacts', { name: 'Οδυσσέας Ελύτης' });
    const sofia = await create(key, '/v1/contacts', { name: 'ΣΟΦΙΑ' });

    expect(await listIds(key, { name__contains: 'иван' })).toEqual([ivan.id]);
    expect(await listIds(key, { name__contains: 'ПЕТР' })).toEqual([ivan.id]);
    expect(await listIds(key, { name__contains: 'σοφια' })).toEqual([sofia.id]);
    expect(await listIds(key, { name__contains: 'ΟΔΥΣΣΈΑΣ' })).toEqual([odysseas.id]);
    expect(await listIds(key, { name__contains: 'ελύτ' })).toEqual([odysseas.id]);
  });

  it('name__contains matches a Greek capital sigma at the end of the search text (σ/ς/Σ are one letter)', async () => {
    const { key } = await newAccount();
    const odysseas = await create(key, '/v1/contacts', { name: 'Οδυσσέας Ελύτης' });
    const upper = await create(key, '/v1/contacts', { name: 'ΟΔΥΣ ΑΝΔΡΕΟΥ' });
    // Lower-casing turns a word-final Σ into ς, yet a case-insensitive search must treat Σ, σ and ς alike.
    expect(await listIds(key, { name__contains: 'ΟΔΥΣ', sort: 'created_at' }), 'search ΟΔΥΣ').toEqual([
      odysseas.id,
      upper.id,
    ]);
    expect(await listIds(key, { name__contains: 'οδυσ', sort: 'created_at' }), 'search οδυσ').toEqual([
      odysseas.id,
      upper.id,
    ]);
  });

  it('name__contains treats % and _ as literal characters', async () => {
    const { key } = await newAccount();
    const percent = await create(key, '/v1/contacts', { name: '100% Natural' });
    const underscore = await create(key, '/v1/contacts', { name: 'snake_case Ltd' });
    const backslash = await create(key, '/v1/contacts', { name: 'Back\\slash' });
    await create(key, '/v1/contacts', { name: 'Plain Name' });
    await create(key, '/v1/contacts', { name: 'snakeXcase' });

    expect(await listIds(key, { name__contains: '%' })).toEqual([percent.id]);
    expect(await listIds(key, { name__contains: '_' })).toEqual([underscore.id]);
    expect(await listIds(key, { name__contains: 'snake_case' })).toEqual([underscore.id]);
    expect(await listIds(key, { name__contains: '0%' })).toEqual([percent.id]);
    expect(await listIds(key, { name__contains: '%%' })).toEqual([]);
    expect(await listIds(key, { name__contains: '\\' })).toEqual([backslash.id]);
  });

  it('created_at with a YYYY-MM-DD bound covers the whole UTC day', async () => {
    await expectDateBoundsCoverDay(await createdAroundDay(await newAccount(), '/v1/contacts', insertContact));
  });

  it('created_at with a date-time bound honours its offset', async () => {
    const account = await newAccount();
    const { before, start, end, after, ids } = await createdAroundDay(account, '/v1/contacts', insertContact);

    expect(await ids({ created_at__gte: '2024-03-05T21:00:00-03:00' })).toEqual([after]);
    expect(await ids({ created_at__gte: '2024-03-06T00:00:00Z' })).toEqual([after]);
    expect(await ids({ created_at__gte: '2024-03-06T05:30:00+05:30' })).toEqual([after]);
    expect(await ids({ created_at__lt: '2024-03-05T21:00:00-03:00' })).toEqual([before, start, end]);
    expect(await ids({ created_at__gt: '2024-03-05T00:00:00.000Z' })).toEqual([end, after]);
    expect(await ids({ created_at__lte: '2024-03-05T00:00:00.000Z' })).toEqual([before, start]);
    expect(
      await ids({
        created_at__gte: '2024-03-04T21:00:00.000-03:00',
        created_at__lte: '2024-03-05T23:59:59.999Z',
      }),
    ).toEqual([start, end]);
  });

  it('rejects unparsable created_at bounds with 400', async () => {
    const { key } = await newAccount();
    for (const value of [
      '2024-13-01',
      '2024-02-30',
      'yesterday',
      '2024-03-05T25:00:00Z',
      '2024-03-05 10:00',
      '1709596800000',
      '',
    ]) {
      for (const op of ['gte', 'lte', 'gt', 'lt']) {
        await expectProblem(
          await call(`/v1/contacts?${qs({ [`created_at__${op}`]: value })}`, { key }),
          400,
          'invalid_query',
        );
      }
    }
  });

  it('combines filters with AND', async () => {
    const { key } = await newAccount();
    const u = await create(key, '/v1/users', { name: 'U', email: 'u@example.com' });
    const hit = await create(key, '/v1/contacts', { name: 'Target Ana', owner_id: u.id, email: 'ana@x.com' });
    await create(key, '/v1/contacts', { name: 'Target Bia', owner_id: u.id, email: 'bia@x.com' });
    await create(key, '/v1/contacts', { name: 'Target Ana', email: 'ana2@x.com' });
    expect(await listIds(key, { owner_id: String(u.id), name__contains: 'ana' })).toEqual([hit.id]);
    expect(await listIds(key, { owner_id: String(u.id), email: 'ana2@x.com' })).toEqual([]);
  });
});

describe('contacts: tenant isolation', () => {
  it("never lists, reads or changes another account's contacts", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob B', email: 'bob@b.com' });
    const contactB = await create(b.key, '/v1/contacts', {
      name: 'Secret Contact',
      email: 'secret@b.com',
      phone: '(11) 98765-4321',
      owner_id: userB.id,
    });
    const contactA = await create(a.key, '/v1/contacts', { name: 'Mine', phone: '(11) 98765-4321' });

    expect(await listIds(a.key, {})).toEqual([contactA.id]);
    expect(await listIds(a.key, { owner_id: String(userB.id) })).toEqual([]);
    expect(await listIds(a.key, { email: 'secret@b.com' })).toEqual([]);
    expect(await listIds(a.key, { name__contains: 'secret' })).toEqual([]);
    expect(await listIds(a.key, { phone: '+5511987654321' })).toEqual([contactA.id]);
    expect(await listIds(a.key, { created_at__gte: '2000-01-01' })).toEqual([contactA.id]);
    expect(await allIds(a.key, '/v1/contacts?sort=name&limit=1')).toEqual([contactA.id]);

    await expectProblem(await call(`/v1/contacts/${contactB.id}`, { key: a.key }), 404, 'not_found');
    await expectProblem(await put(a.key, contactB.id, { name: 'Hijacked', email: null }), 404, 'not_found');
    await expectProblem(await put(a.key, contactB.id, {}), 404, 'not_found');
    expect(await get(b.key, contactB.id)).toEqual(contactB);
    expect(await listIds(b.key, {})).toEqual([contactB.id]);
  });

  it("rejects another account's user as owner_id with 422", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob B', email: 'bob@b.com' });
    const post = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key: a.key, body: { name: 'X', owner_id: userB.id } }),
      422,
      'validation_failed',
    );
    expect(post.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);

    const contactA = await create(a.key, '/v1/contacts', { name: 'Mine' });
    const updated = await expectProblem(await put(a.key, contactA.id, { owner_id: userB.id }), 422);
    expect(updated.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);
    expect(await get(a.key, contactA.id)).toEqual(contactA);
    expect(await listIds(a.key, {})).toEqual([contactA.id]);
  });
});
