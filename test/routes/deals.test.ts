import { describe, expect, it } from 'vitest';
import {
  allIds,
  call,
  create,
  createdAroundDay,
  expectCursorRefused,
  expectDateBoundsCoverDay,
  expectLimitsRefused,
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

const { get, listIds, put } = resource('/v1/deals');

/** A deal row written straight to D1, so created_at/updated_at (epoch ms) can be chosen. */
const insertDeal = (
  accountId: number,
  name: string,
  createdAt: number,
  updatedAt = createdAt,
  status = 'open',
) =>
  insertRow('deals', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    status,
    custom_fields: '{}',
    created_at: createdAt,
    updated_at: updatedAt,
  });

describe('deals: create and read', () => {
  it('creates a deal with every field: 201, Location, and GET returns the same', async () => {
    const { id: accountId, key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'Owner', email: 'owner@example.com' });
    const contact = await create(key, '/v1/contacts', { name: 'Buyer' });
    const companyId = await insertCompany(accountId, 'Acme', '11222333000181');
    const res = await call('/v1/deals', {
      method: 'POST',
      key,
      body: {
        name: '  Big Deal  ',
        company_id: companyId,
        contact_id: contact.id,
        owner_id: owner.id,
        status: 'won',
        value: 12_345.67,
        custom_fields: { stage: 'closing', probability: 0.9, signed: true, lost_reason: null },
      },
    });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/deals/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Big Deal',
      company_id: companyId,
      contact_id: contact.id,
      owner_id: owner.id,
      status: 'won',
      value: 12_345.67,
      custom_fields: { stage: 'closing', probability: 0.9, signed: true, lost_reason: null },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      external_id: null,
      deleted_at: null,
    });
    expect(data.updated_at).toBe(data.created_at);
    expect(await get(key, data.id)).toEqual(data);
  });

  it("defaults status to 'open' and the other optional fields to null / {}", async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'Minimal' });
    expect(deal).toMatchObject({
      name: 'Minimal',
      company_id: null,
      contact_id: null,
      owner_id: null,
      status: 'open',
      value: null,
      custom_fields: {},
    });
  });

  it('requires a name (422 on path name)', async () => {
    const { key } = await newAccount();
    const missing = await expectProblem(
      await call('/v1/deals', { method: 'POST', key, body: { value: 1 } }),
      422,
      'validation_failed',
    );
    expect(missing.errors[0]).toMatchObject({ path: 'name', code: 'required' });
    for (const name of ['', '   ', 'x'.repeat(256), null, 5]) {
      const body = await expectProblem(await call('/v1/deals', { method: 'POST', key, body: { name } }), 422);
      expect(body.errors[0].path).toBe('name');
    }
  });

  it('accepts open, won and lost as status and rejects anything else with 422 on path status', async () => {
    const { key } = await newAccount();
    for (const status of ['open', 'won', 'lost']) {
      expect((await create(key, '/v1/deals', { name: status, status })).status).toBe(status);
    }
    for (const status of ['bogus', 'Open', 'WON', '', null, 1]) {
      const body = await expectProblem(
        await call('/v1/deals', { method: 'POST', key, body: { name: 'S', status } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(status)).toBe('status');
    }
    expect((await list(key, '/v1/deals')).data).toHaveLength(3);
  });

  it('accepts a numeric or null value and rejects a non-number with 422 on path value', async () => {
    const { key } = await newAccount();
    expect((await create(key, '/v1/deals', { name: 'Int', value: 1000 })).value).toBe(1000);
    expect((await create(key, '/v1/deals', { name: 'Neg', value: -5.25 })).value).toBe(-5.25);
    expect((await create(key, '/v1/deals', { name: 'Zero', value: 0 })).value).toBe(0);
    expect((await create(key, '/v1/deals', { name: 'Null', value: null })).value).toBeNull();
    for (const value of ['100', true, { amount: 1 }, [1]]) {
      const body = await expectProblem(
        await call('/v1/deals', { method: 'POST', key, body: { name: 'V', value } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('value');
    }
  });

  it('rejects company_id, contact_id or owner_id that are not rows of the account with 422 on the field', async () => {
    const { key } = await newAccount();
    for (const field of ['company_id', 'contact_id', 'owner_id']) {
      const body = await expectProblem(
        await call('/v1/deals', { method: 'POST', key, body: { name: 'R', [field]: 999_999 } }),
        422,
        'validation_failed',
      );
      expect(body.errors).toEqual([expect.objectContaining({ path: field })]);
    }
    const all = await expectProblem(
      await call('/v1/deals', {
        method: 'POST',
        key,
        body: { name: 'R', company_id: 999_991, contact_id: 999_992, owner_id: 999_993 },
      }),
      422,
    );
    expect(all.errors.map((e: Json) => e.path).sort()).toEqual(['company_id', 'contact_id', 'owner_id']);
    for (const bad of [0, -3, 2.5, 'x']) {
      const body = await expectProblem(
        await call('/v1/deals', { method: 'POST', key, body: { name: 'R', contact_id: bad } }),
        422,
      );
      expect(body.errors[0].path).toBe('contact_id');
    }
    expect((await list(key, '/v1/deals')).data).toEqual([]);
  });

  it('accepts flat custom_fields and rejects nested values with 422', async () => {
    const { key } = await newAccount();
    const fields = { a: 'x', n: 3, b: true, z: null };
    expect((await create(key, '/v1/deals', { name: 'CF', custom_fields: fields })).custom_fields).toEqual(
      fields,
    );
    for (const custom_fields of [{ nested: { a: 1 } }, { arr: ['a'] }, 'x']) {
      const body = await expectProblem(
        await call('/v1/deals', { method: 'POST', key, body: { name: 'CF', custom_fields } }),
        422,
      );
      expect(body.errors[0].path).toMatch(/^custom_fields/);
    }
  });

  it('refuses read-only fields with 422 read_only and unknown fields with 422 unknown_field', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 424_242,
      created_at: '2001-01-01T00:00:00.000Z',
      updated_at: '2001-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await call('/v1/deals', { method: 'POST', key, body: { name: 'RO', ...readOnly, amount: 10 } }),
      Object.keys(readOnly),
      { unknown: ['amount'] },
    );
    const deal = await create(key, '/v1/deals', { name: 'RO' });
    expect(Math.abs(ms(deal.created_at) - Date.now())).toBeLessThan(60_000);
    expect(deal.updated_at).toBe(deal.created_at);

    await expectUnknownField(
      await call('/v1/deals', { method: 'POST', key, body: { name: 'U', amount: 10 } }),
      'amount',
    );
    expect(idsOf(await list(key, '/v1/deals'))).toEqual([deal.id]);
  });

  it('answers 404 for a non-existent id and for malformed path ids', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'Real' });
    await expectNotFound(key, '/v1/deals', deal.id + 100_000, [
      'abc',
      '0',
      '-1',
      '1.5',
      '007',
      '99999999999999999',
    ]);
    expect((await get(key, deal.id)).name).toBe('Real');
  });
});

describe('deals: update', () => {
  it('PUT is partial: absent fields stay and null clears nullable fields', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'O', email: 'o@example.com' });
    const contact = await create(key, '/v1/contacts', { name: 'C' });
    const deal = await create(key, '/v1/deals', {
      name: 'Partial',
      contact_id: contact.id,
      owner_id: owner.id,
      value: 500,
      custom_fields: { k: 'v' },
    });

    const res = await put(key, deal.id, { status: 'won' });
    expect(res.status).toBe(200);
    const won = (await json(res)).data;
    expect(won).toEqual({ ...deal, status: 'won', updated_at: expect.stringMatching(ISO_MS) });

    const cleared = (await json(await put(key, deal.id, { contact_id: null, owner_id: null, value: null })))
      .data;
    expect(cleared).toMatchObject({
      id: deal.id,
      name: 'Partial',
      contact_id: null,
      owner_id: null,
      value: null,
      status: 'won',
      custom_fields: { k: 'v' },
      created_at: deal.created_at,
    });
    expect(await get(key, deal.id)).toEqual(cleared);

    const reset = (await json(await put(key, deal.id, { contact_id: contact.id, name: ' Again ' }))).data;
    expect(reset).toMatchObject({ name: 'Again', contact_id: contact.id, status: 'won', value: null });
  });

  it('PUT replaces custom_fields whole', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'CF', custom_fields: { a: 1, b: 2 } });
    const res = await put(key, deal.id, { custom_fields: { c: 'three' } });
    expect(res.status).toBe(200);
    expect((await json(res)).data.custom_fields).toEqual({ c: 'three' });
    expect((await get(key, deal.id)).custom_fields).toEqual({ c: 'three' });
    await expectProblem(await put(key, deal.id, { custom_fields: { d: { e: 1 } } }), 422);
    expect((await get(key, deal.id)).custom_fields).toEqual({ c: 'three' });
  });

  it('updated_at strictly increases on every PUT while created_at stays', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'T' });
    let previous = deal.updated_at;
    for (const status of ['won', 'lost', 'open', 'open']) {
      const res = await put(key, deal.id, { status });
      expect(res.status).toBe(200);
      const { data } = await json(res);
      expect(ms(data.updated_at)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(deal.created_at);
      previous = data.updated_at;
    }
  });

  it('PUT refuses read-only fields, unknown fields and invalid values', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'RO', value: 10 });
    await expectReadOnly(await put(key, deal.id, { ...deal, value: 20 }), [
      'id',
      'created_at',
      'updated_at',
      'deleted_at',
    ]);
    expect(await get(key, deal.id)).toEqual(deal);
    const res = await put(key, deal.id, { ...writable(deal), value: 20 });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ id: deal.id, value: 20, created_at: deal.created_at });
    expect(ms(data.updated_at)).toBeGreaterThan(ms(deal.updated_at));

    await expectUnknownField(await put(key, deal.id, { stage: 'x' }), 'stage');

    for (const [body, path] of [
      [{ status: 'bogus' }, 'status'],
      [{ status: null }, 'status'],
      [{ name: null }, 'name'],
      [{ value: 'ten' }, 'value'],
      [{ contact_id: 999_999 }, 'contact_id'],
      [{ owner_id: 999_999 }, 'owner_id'],
      [{ company_id: 999_999 }, 'company_id'],
    ] as [Record<string, unknown>, string][]) {
      const problem = await expectProblem(await put(key, deal.id, body), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
    expect(await get(key, deal.id)).toEqual(data);
  });
});

describe('deals: list and pagination', () => {
  it('returns data and meta with the default limit 25 and honours limit 1..100', async () => {
    const { key } = await newAccount();
    expect(await list(key, '/v1/deals')).toEqual({ data: [], meta: { limit: 25, next_cursor: null } });
    const d = await create(key, '/v1/deals', { name: 'D' });
    expect(await list(key, '/v1/deals')).toEqual({ data: [d], meta: { limit: 25, next_cursor: null } });
    expect((await list(key, '/v1/deals?limit=100')).meta.limit).toBe(100);
    await expectLimitsRefused(key, '/v1/deals');
  });

  it('rejects unknown query parameters with 400 invalid_query', async () => {
    const { key } = await newAccount();
    await expectUnknownQueries(key, '/v1/deals', [
      'foo=bar',
      'email=a@b.co',
      'name__contains=x',
      'value=1',
      'updated_at__gte=2024-01-01',
    ]);
  });

  it('pages with next_cursor and a Link rel="next" header', async () => {
    const { id: accountId, key } = await newAccount();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await insertDeal(accountId, `D${i}`, Date.UTC(2024, 0, 1 + i)));

    const { page: page1, next } = await pageWithNext(key, '/v1/deals?limit=2');
    expect(idsOf(page1)).toEqual([ids[4], ids[3]]);
    expect(page1.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });

    const { page: page2, next: third } = await pageWithNext(key, `${next.pathname}${next.search}`);
    expect(idsOf(page2)).toEqual([ids[2], ids[1]]);
    const last = await call(`${third.pathname}${third.search}`, { key });
    const page3 = await json(last);
    expect(idsOf(page3)).toEqual([ids[0]]);
    expect(page3.meta.next_cursor).toBeNull();
    expect(last.headers.get('Link')).toBeNull();
  });

  it('sorts by name, created_at and updated_at in both directions; default is -created_at', async () => {
    const { id: accountId, key } = await newAccount();
    const day = (d: number) => Date.UTC(2024, 0, d);
    const b = await insertDeal(accountId, 'bravo', day(2), day(9));
    const a = await insertDeal(accountId, 'Alpha', day(3), day(7));
    const c = await insertDeal(accountId, 'Charlie', day(1), day(8));

    expect(await listIds(key, { sort: 'name' })).toEqual([a, b, c]);
    expect(await listIds(key, { sort: '-name' })).toEqual([c, b, a]);
    expect(await listIds(key, { sort: 'created_at' })).toEqual([c, b, a]);
    expect(await listIds(key, { sort: '-created_at' })).toEqual([a, b, c]);
    expect(await listIds(key, {})).toEqual([a, b, c]);
    expect(await listIds(key, { sort: 'updated_at' })).toEqual([a, c, b]);
    expect(await listIds(key, { sort: '-updated_at' })).toEqual([b, c, a]);
    expect(await allIds(key, '/v1/deals?sort=updated_at&limit=1')).toEqual([a, c, b]);
    expect(await allIds(key, '/v1/deals?sort=-name&limit=2')).toEqual([c, b, a]);
  });

  it('moves a deal to the end of sort=updated_at when it is updated', async () => {
    const { key } = await newAccount();
    const first = await create(key, '/v1/deals', { name: 'first' });
    const second = await create(key, '/v1/deals', { name: 'second' });
    const third = await create(key, '/v1/deals', { name: 'third' });
    expect((await put(key, first.id, { value: 1 })).status).toBe(200);
    const ids = await listIds(key, { sort: 'updated_at' });
    expect(ids.at(-1)).toBe(first.id);
    expect(ids.slice(0, 2).sort((x, y) => x - y)).toEqual([second.id, third.id]);
    expect((await listIds(key, { sort: '-updated_at' }))[0]).toBe(first.id);
  });

  it('breaks ties by id in the sort direction across pages for created_at, updated_at and name', async () => {
    const { id: accountId, key } = await newAccount();
    const t = Date.UTC(2024, 6, 1);
    const late = await insertDeal(accountId, 'Late', t + 10, t - 10);
    const tied: number[] = [];
    for (let i = 0; i < 7; i++) tied.push(await insertDeal(accountId, 'Tied', t, t));
    const early = [
      await insertDeal(accountId, 'Early', t - 10, t + 10),
      await insertDeal(accountId, 'aardvark', t - 10, t + 10),
    ];

    const byCreated = [...early, ...tied, late];
    const asc = await allIds(key, '/v1/deals?sort=created_at&limit=2');
    expect(asc).toEqual(byCreated);
    expect(new Set(asc).size).toBe(byCreated.length);
    expect(await allIds(key, '/v1/deals?sort=-created_at&limit=2')).toEqual([...byCreated].reverse());
    expect(await allIds(key, '/v1/deals?limit=2')).toEqual([...byCreated].reverse());

    const byUpdated = [late, ...tied, ...early];
    expect(await allIds(key, '/v1/deals?sort=updated_at&limit=2')).toEqual(byUpdated);
    expect(await allIds(key, '/v1/deals?sort=-updated_at&limit=2')).toEqual([...byUpdated].reverse());

    // aardvark < early < late < tied (case-insensitive)
    const byName = [early[1] as number, early[0] as number, late, ...tied];
    expect(await allIds(key, '/v1/deals?sort=name&limit=2')).toEqual(byName);
    expect(await allIds(key, '/v1/deals?sort=-name&limit=2')).toEqual([...byName].reverse());
  });

  it('pages by name through names outside Latin-1', async () => {
    const { key } = await newAccount();
    const zh = await create(key, '/v1/deals', { name: '合同' });
    const ru = await create(key, '/v1/deals', { name: 'Сделка' });
    const en = await create(key, '/v1/deals', { name: 'Deal' });
    const res = await call('/v1/deals?sort=name&limit=1', { key });
    expect(res.status).toBe(200);
    expect(await allIds(key, '/v1/deals?sort=name&limit=1')).toEqual([en.id, ru.id, zh.id]);
    expect(await allIds(key, '/v1/deals?sort=-name&limit=1')).toEqual([zh.id, ru.id, en.id]);
  });

  it('rejects an unknown sort, a garbage cursor and a cursor of another sort with 400', async () => {
    const { key } = await newAccount();
    for (const name of ['A', 'B', 'C']) await create(key, '/v1/deals', { name });
    for (const sort of ['unknown', 'value', 'status', '-id']) {
      await expectProblem(await call(`/v1/deals?sort=${sort}`, { key }), 400);
    }
    await expectProblem(await call('/v1/deals?sort=unknown', { key }), 400, 'invalid_query');

    const page = await list(key, '/v1/deals?sort=updated_at&limit=1');
    const cursor = encodeURIComponent(page.meta.next_cursor);
    expect((await list(key, `/v1/deals?sort=updated_at&limit=1&cursor=${cursor}`)).data).toHaveLength(1);
    await expectCursorRefused(
      key,
      '/v1/deals',
      { sort: 'updated_at', cursor: page.meta.next_cursor, limit: 1 },
      ['-updated_at', 'created_at', 'name', ''],
      ['garbage!!', 'xyz', btoa('[1,2,3]'), btoa('["updated_at",1,1.5]')],
    );
  });
});

describe('deals: filters', () => {
  it('filters by status, one or a comma list; rejects unknown statuses with 400', async () => {
    const { key } = await newAccount();
    const open = await create(key, '/v1/deals', { name: 'o' });
    const won = await create(key, '/v1/deals', { name: 'w', status: 'won' });
    const lost = await create(key, '/v1/deals', { name: 'l', status: 'lost' });
    const ids = (status: string) => listIds(key, { status, sort: 'created_at' });

    expect(await ids('open')).toEqual([open.id]);
    expect(await ids('won')).toEqual([won.id]);
    expect(await ids('lost')).toEqual([lost.id]);
    expect(await ids('open,won')).toEqual([open.id, won.id]);
    expect(await ids('lost, open')).toEqual([open.id, lost.id]);
    expect(await ids('open,won,lost')).toEqual([open.id, won.id, lost.id]);

    expect((await json(await put(key, open.id, { status: 'lost' }))).data.status).toBe('lost');
    expect(await ids('open')).toEqual([]);
    expect(await ids('lost')).toEqual([open.id, lost.id]);

    for (const status of ['bogus', 'open,bogus', 'OPEN', '', 'open,,won']) {
      await expectProblem(await call(`/v1/deals?${qs({ status })}`, { key }), 400, 'invalid_query');
    }
  });

  it('filters by contact_id, owner_id and company_id (one id or a list); rejects x and 0', async () => {
    const { id: accountId, key } = await newAccount();
    const u1 = await create(key, '/v1/users', { name: 'U1', email: 'u1@example.com' });
    const u2 = await create(key, '/v1/users', { name: 'U2', email: 'u2@example.com' });
    const c1 = await create(key, '/v1/contacts', { name: 'C1' });
    const c2 = await create(key, '/v1/contacts', { name: 'C2' });
    const co = await insertCompany(accountId, 'Acme', '11222333000181');
    const d1 = await create(key, '/v1/deals', {
      name: 'd1',
      contact_id: c1.id,
      owner_id: u1.id,
      company_id: co,
    });
    const d2 = await create(key, '/v1/deals', { name: 'd2', contact_id: c2.id, owner_id: u2.id });
    const d3 = await create(key, '/v1/deals', { name: 'd3', contact_id: c1.id, owner_id: u2.id });
    await create(key, '/v1/deals', { name: 'd4' });
    const ids = (params: Record<string, string>) => listIds(key, { sort: 'created_at', ...params });

    expect(await ids({ contact_id: String(c1.id) })).toEqual([d1.id, d3.id]);
    expect(await ids({ contact_id: `${c2.id},${c1.id}` })).toEqual([d1.id, d2.id, d3.id]);
    expect(await ids({ owner_id: String(u2.id) })).toEqual([d2.id, d3.id]);
    expect(await ids({ owner_id: `${u1.id},${u2.id}` })).toEqual([d1.id, d2.id, d3.id]);
    expect(await ids({ company_id: String(co) })).toEqual([d1.id]);
    expect(await ids({ contact_id: String(c1.id), owner_id: String(u2.id) })).toEqual([d3.id]);
    expect(await ids({ owner_id: String(u1.id), status: 'won' })).toEqual([]);
    expect(await ids({ contact_id: '999999' })).toEqual([]);

    for (const field of ['contact_id', 'owner_id', 'company_id']) {
      for (const bad of ['x', '0', '1,x', '-2']) {
        await expectProblem(await call(`/v1/deals?${qs({ [field]: bad })}`, { key }), 400, 'invalid_query');
      }
    }
  });

  it('created_at with a YYYY-MM-DD bound covers the whole UTC day', async () => {
    await expectDateBoundsCoverDay(await createdAroundDay(await newAccount(), '/v1/deals', insertDeal));
  });

  it('created_at with a date-time bound honours its offset; unparsable bounds are 400', async () => {
    const account = await newAccount();
    const { before, start, end, after, ids } = await createdAroundDay(account, '/v1/deals', insertDeal);

    expect(await ids({ created_at__gte: '2024-03-05T21:00:00-03:00' })).toEqual([after]);
    expect(await ids({ created_at__lt: '2024-03-05T21:00:00-03:00' })).toEqual([before, start, end]);
    expect(await ids({ created_at__gt: '2024-03-05T00:00:00+00:00' })).toEqual([end, after]);
    expect(await ids({ created_at__lte: '2024-03-05T09:00:00+09:00' })).toEqual([before, start]);

    for (const value of ['2024-13-01', 'yesterday', '2024-03-32', '05/03/2024']) {
      await expectProblem(
        await call(`/v1/deals?${qs({ created_at__gte: value })}`, { key: account.key }),
        400,
        'invalid_query',
      );
    }
  });
});

describe('deals: tenant isolation', () => {
  it("never lists, reads or changes another account's deals", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob', email: 'bob@b.com' });
    const contactB = await create(b.key, '/v1/contacts', { name: 'B contact' });
    const dealB = await create(b.key, '/v1/deals', {
      name: 'B deal',
      owner_id: userB.id,
      contact_id: contactB.id,
      status: 'won',
      value: 99,
    });
    const dealA = await create(a.key, '/v1/deals', { name: 'A deal', status: 'won' });

    expect(await listIds(a.key, {})).toEqual([dealA.id]);
    expect(await listIds(a.key, { owner_id: String(userB.id) })).toEqual([]);
    expect(await listIds(a.key, { contact_id: String(contactB.id) })).toEqual([]);
    expect(await listIds(a.key, { status: 'won' })).toEqual([dealA.id]);
    expect(await listIds(a.key, { created_at__gte: '2000-01-01' })).toEqual([dealA.id]);
    expect(await allIds(a.key, '/v1/deals?sort=updated_at&limit=1')).toEqual([dealA.id]);

    await expectProblem(await call(`/v1/deals/${dealB.id}`, { key: a.key }), 404, 'not_found');
    await expectProblem(await put(a.key, dealB.id, { status: 'lost', value: null }), 404, 'not_found');
    expect(await get(b.key, dealB.id)).toEqual(dealB);
  });

  it("rejects another account's user or contact in owner_id / contact_id with 422", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob', email: 'bob@b.com' });
    const contactB = await create(b.key, '/v1/contacts', { name: 'B contact' });

    const owner = await expectProblem(
      await call('/v1/deals', { method: 'POST', key: a.key, body: { name: 'X', owner_id: userB.id } }),
      422,
      'validation_failed',
    );
    expect(owner.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);
    const contact = await expectProblem(
      await call('/v1/deals', { method: 'POST', key: a.key, body: { name: 'X', contact_id: contactB.id } }),
      422,
      'validation_failed',
    );
    expect(contact.errors).toEqual([expect.objectContaining({ path: 'contact_id' })]);

    const dealA = await create(a.key, '/v1/deals', { name: 'Mine' });
    const both = await expectProblem(
      await put(a.key, dealA.id, { owner_id: userB.id, contact_id: contactB.id }),
      422,
    );
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['contact_id', 'owner_id']);
    expect(await get(a.key, dealA.id)).toEqual(dealA);
    expect(await listIds(a.key, {})).toEqual([dealA.id]);
  });
});
