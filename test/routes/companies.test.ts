import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../cnpj';
import {
  allIds,
  call,
  create,
  createdAroundDay,
  expectDateBoundsCoverDay,
  expectLimitsRefused,
  expectNotFound,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  expectUnknownQueries,
  ISO_MS,
  idsOf,
  insertRow,
  type Json,
  json,
  list,
  ms,
  newAccount,
  newUser,
  pageWithNext,
  qs,
  resource,
  roundTrips,
  writable,
} from '../helpers';
import { deref } from '../openapi';

const { get, listIds, put } = resource('/v1/companies');
const deals = resource('/v1/deals');
const contacts = resource('/v1/contacts');

const post = (key: string, body: unknown) => call('/v1/companies', { method: 'POST', key, body });

let serial = 0;
/** A valid numeric CNPJ, different on every call (canonical form). */
function nextCnpj(): string {
  serial += 1;
  return withCheckDigits(`${20_000_000 + serial}0001`);
}

const COMPANY_KEYS = [
  'cnpj',
  'created_at',
  'deal_count',
  'deleted_at',
  'follower_ids',
  'id',
  'lead_count',
  'name',
  'observations',
  'owner_id',
  'segment',
  'updated_at',
];

/** A company row written straight to D1, so created_at (epoch ms) can be chosen. */
const insertCompanyAt = (
  accountId: number,
  name: string,
  createdAt: number,
  extra: { segment?: string; owner_id?: number; cnpj?: string } = {},
): Promise<number> =>
  insertRow('companies', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    cnpj: extra.cnpj ?? nextCnpj(),
    owner_id: extra.owner_id ?? null,
    segment: extra.segment ?? null,
    segment_norm: extra.segment?.toLowerCase() ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  });

/** `count` users of the account, written straight to D1; their ids in ascending order. */
async function insertUsers(accountId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bulk${i}@example.com`;
    ids.push(
      await insertRow('users', {
        account_id: accountId,
        name: `Bulk ${i}`,
        name_norm: `bulk ${i}`,
        email,
        email_norm: email,
        created_at: 1_700_000_000_000 + i,
        updated_at: 1_700_000_000_000 + i,
      }),
    );
  }
  return ids;
}

/** A user of the account, through the API; its id. */
const newUserId = async (key: string, name: string): Promise<number> => (await newUser(key, name)).id;

describe('companies: create and read', () => {
  it('creates a company with every field: 201, Location, canonical cnpj, and GET returns the same', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'Ana');
    const u2 = await newUserId(key, 'Bia');
    const u3 = await newUserId(key, 'Caio');
    const res = await post(key, {
      name: '  Acme Indústria Ltda  ',
      cnpj: '11.222.333/0001-81',
      owner_id: u2,
      segment: 'Varejo',
      observations: 'Cliente desde 2019.\nPrefere contato por e-mail.',
      follower_ids: [u3, u1, u3, u2],
    });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/companies/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Acme Indústria Ltda',
      cnpj: '11222333000181',
      owner_id: u2,
      segment: 'Varejo',
      observations: 'Cliente desde 2019.\nPrefere contato por e-mail.',
      follower_ids: [u1, u2, u3],
      deal_count: 0,
      lead_count: 0,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      deleted_at: null,
    });
    expect(Object.keys(data).sort()).toEqual(COMPANY_KEYS);
    expect(data.updated_at).toBe(data.created_at);
    expect(Math.abs(ms(data.created_at) - Date.now())).toBeLessThan(60_000);
    expect(await get(key, data.id)).toEqual(data);
    expect((await list(key, '/v1/companies')).data).toEqual([data]);
  });

  it('defaults owner_id, segment and observations to null, follower_ids to [] and counts to 0', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Bare', cnpj: '12345678000195' });
    expect(company).toEqual({
      id: expect.any(Number),
      name: 'Bare',
      cnpj: '12345678000195',
      owner_id: null,
      segment: null,
      observations: null,
      follower_ids: [],
      deal_count: 0,
      lead_count: 0,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      deleted_at: null,
    });
    expect(Object.keys(await get(key, company.id)).sort()).toEqual(COMPANY_KEYS);
  });

  it('accepts explicit nulls for owner_id, segment and observations, and [] for follower_ids', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', {
      name: 'Nulls',
      cnpj: nextCnpj(),
      owner_id: null,
      segment: null,
      observations: null,
      follower_ids: [],
    });
    expect(company).toMatchObject({ owner_id: null, segment: null, observations: null, follower_ids: [] });
  });

  it('requires a name of 1..255 characters after trimming, not null (422 on path name)', async () => {
    const { key } = await newAccount();
    const missing = await expectProblem(await post(key, { cnpj: nextCnpj() }), 422, 'validation_failed');
    expect(missing.errors[0]).toMatchObject({ path: 'name', code: 'required' });

    for (const name of ['', '   ', 'x'.repeat(256), ` ${'y'.repeat(256)} `, null, 42, ['A'], { a: 1 }]) {
      const body = await expectProblem(await post(key, { name, cnpj: nextCnpj() }), 422, 'validation_failed');
      expect(body.errors[0].path, JSON.stringify(name)).toBe('name');
    }
    expect((await list(key, '/v1/companies')).data).toEqual([]);

    expect(
      (await create(key, '/v1/companies', { name: 'z'.repeat(255), cnpj: nextCnpj() })).name,
    ).toHaveLength(255);
    const padded = await create(key, '/v1/companies', { name: `  ${'w'.repeat(255)}  `, cnpj: nextCnpj() });
    expect(padded.name).toBe('w'.repeat(255));
  });

  it('refuses text with a lone UTF-16 surrogate (D1 would store it as invalid UTF-8)', async () => {
    const { key } = await newAccount();
    const raw = (name: string, segment: string) =>
      `{"name":"${name}","cnpj":"${nextCnpj()}","segment":"${segment}","observations":"ok \\u00e9"}`;
    const problem = await expectProblem(
      await call('/v1/companies', { method: 'POST', key, body: raw('\\ud800x', '\\udc00') }),
      422,
      'validation_failed',
    );
    expect(problem.errors.map((e: Json) => e.path)).toEqual(['name', 'segment']);
    expect((await list(key, '/v1/companies')).data).toEqual([]);
    // A well-formed pair is fine: U+1F600 as \ud83d\ude00.
    const ok = await call('/v1/companies', { method: 'POST', key, body: raw('\\ud83d\\ude00', 'x') });
    expect(ok.status).toBe(201);
    expect((await json(ok)).data.name).toBe('\u{1F600}');
  });

  it('requires a cnpj on POST (422 required on path cnpj)', async () => {
    const { key } = await newAccount();
    const body = await expectProblem(await post(key, { name: 'No CNPJ' }), 422, 'validation_failed');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'cnpj', code: 'required' })]);
    const both = await expectProblem(await post(key, {}), 422, 'validation_failed');
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['cnpj', 'name']);
  });

  it.each([
    ['11222333000181', '11222333000181'],
    ['11.222.333/0001-81', '11222333000181'],
    ['12345678000195', '12345678000195'],
    ['12.345.678/0001-95', '12345678000195'],
    ['00000000000191', '00000000000191'],
    ['12ABC34501DE35', '12ABC34501DE35'],
    ['12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['12abc34501de35', '12ABC34501DE35'],
    ['12.abc.345/01De-35', '12ABC34501DE35'],
    ['ABCDEFGHIJKL80', 'ABCDEFGHIJKL80'],
    ['  11.222.333/0001-81  ', '11222333000181'],
    [' 12abc34501de35 ', '12ABC34501DE35'],
  ])('accepts the CNPJ %j and stores it as %s', async (input, canonical) => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Valid', cnpj: input });
    expect(company.cnpj).toBe(canonical);
    expect((await get(key, company.id)).cnpj).toBe(canonical);
  });

  it.each([
    ['11222333000182', 'wrong second check digit'],
    ['11222333000191', 'wrong first check digit'],
    ['11.222.333/0001-82', 'wrong check digit, masked'],
    ['12ABC34501DE36', 'alphanumeric, wrong second check digit'],
    ['12.ABC.345/01DE-45', 'alphanumeric, wrong first check digit, masked'],
    ['12abc34501de36', 'lower case, wrong check digit'],
    ['00000000000000', 'one repeated character'],
    ['00.000.000/0000-00', 'one repeated character, masked'],
    ['11111111111111', 'one repeated character'],
    ['12ABC34501DE3A', 'a letter in a check digit position'],
    ['1122233300018', '13 characters'],
    ['112223330001810', '15 characters'],
    ['', 'empty'],
    ['   ', 'blank'],
    ['11.222.333000181', 'partial mask'],
    ['11222333/0001-81', 'partial mask'],
    ['11.222.333/000181', 'partial mask'],
    ['11-222-333/0001-81', 'wrong mask'],
    ['11 222 333 0001 81', 'inner spaces'],
    ['11.222.333 /0001-81', 'an inner space in the mask'],
    ['11_222_333_0001_81', 'other characters'],
    ['12ÇBC34501DE35', 'a letter outside A-Z'],
    ['12ıBC34501DE10', 'a dotless i (upper-cases to I)'],
  ])('rejects the CNPJ %j (%s) with 422 on path cnpj', async (cnpj) => {
    const { key } = await newAccount();
    const body = await expectProblem(await post(key, { name: 'Invalid', cnpj }), 422, 'validation_failed');
    expect(body.errors[0].path).toBe('cnpj');
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('rejects a cnpj that is not a string (number, null, boolean, array) with 422 on path cnpj', async () => {
    const { key } = await newAccount();
    for (const cnpj of [11222333000181, null, true, ['11222333000181'], { cnpj: '11222333000181' }]) {
      const body = await expectProblem(await post(key, { name: 'Typed', cnpj }), 422, 'validation_failed');
      expect(body.errors[0].path, JSON.stringify(cnpj)).toBe('cnpj');
    }
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('rejects a duplicate CNPJ in the same account with 409 conflict, whatever its spelling', async () => {
    const { key } = await newAccount();
    const numeric = await create(key, '/v1/companies', { name: 'First', cnpj: '11222333000181' });
    const alpha = await create(key, '/v1/companies', { name: 'Alpha', cnpj: '12.abc.345/01de-35' });
    for (const cnpj of [
      '11222333000181',
      '11.222.333/0001-81',
      ' 11.222.333/0001-81 ',
      '12ABC34501DE35',
      '12abc34501de35',
      '12.ABC.345/01DE-35',
    ]) {
      await expectProblem(await post(key, { name: 'Second', cnpj }), 409, 'conflict');
    }
    expect(await allIds(key, '/v1/companies?sort=created_at')).toEqual([numeric.id, alpha.id]);
    expect(await get(key, numeric.id)).toEqual(numeric);
  });

  it('allows the same CNPJ in two different accounts', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const inA = await create(a.key, '/v1/companies', { name: 'A Ltda', cnpj: '11.222.333/0001-81' });
    const inB = await create(b.key, '/v1/companies', { name: 'B Ltda', cnpj: '11222333000181' });
    expect(inA.cnpj).toBe('11222333000181');
    expect(inB.cnpj).toBe('11222333000181');
    expect(inB.id).not.toBe(inA.id);
    const alphaA = await create(a.key, '/v1/companies', { name: 'A2', cnpj: '12ABC34501DE35' });
    const alphaB = await create(b.key, '/v1/companies', { name: 'B2', cnpj: '12abc34501de35' });
    expect(alphaA.cnpj).toBe(alphaB.cnpj);
    expect(await listIds(a.key, { sort: 'created_at' })).toEqual([inA.id, alphaA.id]);
    expect(await listIds(b.key, { sort: 'created_at' })).toEqual([inB.id, alphaB.id]);
  });

  it('accepts observations up to 10,000 characters and rejects 10,001 with 422', async () => {
    const { key } = await newAccount();
    const long = `${'Linha de observação.\n'.repeat(476)}${'x'.repeat(4)}`;
    expect(long).toHaveLength(10_000);
    const company = await create(key, '/v1/companies', {
      name: 'Long',
      cnpj: nextCnpj(),
      observations: long,
    });
    expect(company.observations).toBe(long);
    expect((await get(key, company.id)).observations).toBe(long);

    for (const observations of ['o'.repeat(10_001), 5, true, ['x']]) {
      const body = await expectProblem(
        await post(key, { name: 'Too long', cnpj: nextCnpj(), observations }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('observations');
    }
    expect(idsOf(await list(key, '/v1/companies'))).toEqual([company.id]);
  });

  it('accepts a segment up to 255 characters and rejects longer or non-string ones with 422', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', {
      name: 'Seg',
      cnpj: nextCnpj(),
      segment: 's'.repeat(255),
    });
    expect(company.segment).toBe('s'.repeat(255));
    for (const segment of ['s'.repeat(256), 7, false, ['Varejo']]) {
      const body = await expectProblem(
        await post(key, { name: 'Seg', cnpj: nextCnpj(), segment }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('segment');
    }
  });

  it('rejects an owner_id that is not a user of the account with 422 not_found on owner_id', async () => {
    const { key } = await newAccount();
    const owner = await newUserId(key, 'Owner');
    expect(
      (await create(key, '/v1/companies', { name: 'Owned', cnpj: nextCnpj(), owner_id: owner })).owner_id,
    ).toBe(owner);

    const missing = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), owner_id: 999_999 }),
      422,
      'validation_failed',
    );
    expect(missing.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);

    for (const bad of [0, -1, 1.5, String(owner), true]) {
      const body = await expectProblem(
        await post(key, { name: 'X', cnpj: nextCnpj(), owner_id: bad }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, JSON.stringify(bad)).toBe('owner_id');
    }
    expect((await list(key, '/v1/companies')).data).toHaveLength(1);
  });

  it('collapses duplicate follower_ids and returns them sorted ascending', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    const u2 = await newUserId(key, 'F2');
    const u3 = await newUserId(key, 'F3');
    const company = await create(key, '/v1/companies', {
      name: 'Followed',
      cnpj: nextCnpj(),
      follower_ids: [u3, u2, u3, u1, u2, u3],
    });
    expect(company.follower_ids).toEqual([u1, u2, u3]);
    expect((await get(key, company.id)).follower_ids).toEqual([u1, u2, u3]);
    const single = await create(key, '/v1/companies', {
      name: 'One',
      cnpj: nextCnpj(),
      follower_ids: [u2, u2],
    });
    expect(single.follower_ids).toEqual([u2]);
  });

  it('names the follower that is not a user of the account: follower_ids.N, code not_found', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    const u2 = await newUserId(key, 'F2');

    const third = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(third.errors).toEqual([expect.objectContaining({ path: 'follower_ids.2', code: 'not_found' })]);

    // The index is the one in the body as sent, before duplicates collapse.
    const afterDuplicate = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u2, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(afterDuplicate.errors[0]).toMatchObject({ path: 'follower_ids.2', code: 'not_found' });

    const two = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, 999_998, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(two.errors.map((e: Json) => e.path).sort()).toEqual(['follower_ids.1', 'follower_ids.3']);
    expect(two.errors.every((e: Json) => e.code === 'not_found')).toBe(true);

    const withOwner = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), owner_id: 999_997, follower_ids: [999_996] }),
      422,
    );
    expect(withOwner.errors.map((e: Json) => e.path).sort()).toEqual(['follower_ids.0', 'owner_id']);
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('rejects follower_ids that are null, not an array, or hold non-ids with 422 on the field', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    for (const follower_ids of [null, u1, String(u1), { 0: u1 }]) {
      const body = await expectProblem(
        await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, JSON.stringify(follower_ids)).toBe('follower_ids');
    }
    for (const bad of [0, -1, 1.5, String(u1), null, [u1]]) {
      const body = await expectProblem(
        await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, bad] }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, JSON.stringify(bad)).toBe('follower_ids.1');
    }
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('accepts 100 followers and rejects 101 with 422 on follower_ids', async () => {
    const { id: accountId, key } = await newAccount();
    const users = await insertUsers(accountId, 101);
    const hundred = users.slice(0, 100);
    const company = await create(key, '/v1/companies', {
      name: 'Popular',
      cnpj: nextCnpj(),
      follower_ids: [...hundred].reverse(),
    });
    expect(company.follower_ids).toEqual(hundred);
    expect((await get(key, company.id)).follower_ids).toEqual(hundred);

    const body = await expectProblem(
      await post(key, { name: 'Too popular', cnpj: nextCnpj(), follower_ids: users }),
      422,
      'validation_failed',
    );
    expect(body.errors[0].path).toMatch(/^follower_ids/);
    await expectProblem(await put(key, company.id, { follower_ids: users }), 422, 'validation_failed');
    expect((await get(key, company.id)).follower_ids).toEqual(hundred);
  });

  it('refuses read-only fields (id, timestamps, counts) with 422 read_only and unknown fields with unknown_field', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 424_242,
      created_at: '2001-01-01T00:00:00.000Z',
      updated_at: '2001-01-01T00:00:00.000Z',
      deal_count: 7,
      lead_count: 9,
    };
    await expectReadOnly(
      await post(key, { name: 'RO', cnpj: nextCnpj(), ...readOnly }),
      Object.keys(readOnly),
    );
    expect(idsOf(await list(key, '/v1/companies'))).toEqual([]);
    const company = await create(key, '/v1/companies', { name: 'RO', cnpj: nextCnpj() });
    expect(company).toMatchObject({ deal_count: 0, lead_count: 0 });
    expect(Math.abs(ms(company.created_at) - Date.now())).toBeLessThan(60_000);
    expect(company.updated_at).toBe(company.created_at);

    for (const field of ['account_id', 'cnpj_masked', 'followers', 'email', 'razao_social']) {
      await expectUnknownField(await post(key, { name: 'U', cnpj: nextCnpj(), [field]: 1 }), field);
    }
    expect(idsOf(await list(key, '/v1/companies'))).toEqual([company.id]);
  });

  it('answers 404 for a non-existent id and for malformed path ids', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Real', cnpj: nextCnpj() });
    await expectNotFound(key, '/v1/companies', company.id + 100_000, [
      'abc',
      '0',
      '-1',
      '1.5',
      '01',
      '1e3',
      '99999999999999999',
      company.cnpj,
    ]);
    expect(await get(key, company.id)).toEqual(company);
  });

  it('requires a valid API key', async () => {
    await expectProblem(await call('/v1/companies'), 401, 'unauthorized');
    await expectProblem(
      await call('/v1/companies', {
        method: 'POST',
        body: { name: 'X', cnpj: nextCnpj() },
        key: `crm_${'A'.repeat(43)}`,
      }),
      401,
      'unauthorized',
    );
    await expectProblem(await call('/v1/companies/1'), 401, 'unauthorized');
  });
});

describe('companies: update', () => {
  it('PUT is partial: absent fields stay and null clears owner_id, segment and observations', async () => {
    const { key } = await newAccount();
    const owner = await newUserId(key, 'Owner');
    const follower = await newUserId(key, 'Follower');
    const company = await create(key, '/v1/companies', {
      name: 'Partial',
      cnpj: nextCnpj(),
      owner_id: owner,
      segment: 'Varejo',
      observations: 'Notes',
      follower_ids: [follower],
    });

    const renamed = await put(key, company.id, { name: '  Renamed  ' });
    expect(renamed.status).toBe(200);
    const afterRename = (await json(renamed)).data;
    expect(afterRename).toEqual({ ...company, name: 'Renamed', updated_at: expect.stringMatching(ISO_MS) });

    const cleared = await put(key, company.id, { owner_id: null, segment: null, observations: null });
    expect(cleared.status).toBe(200);
    const afterClear = (await json(cleared)).data;
    expect(afterClear).toEqual({
      ...company,
      name: 'Renamed',
      owner_id: null,
      segment: null,
      observations: null,
      follower_ids: [follower],
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(await get(key, company.id)).toEqual(afterClear);

    const set = (await json(await put(key, company.id, { owner_id: follower, segment: 'Indústria' }))).data;
    expect(set).toMatchObject({
      owner_id: follower,
      segment: 'Indústria',
      observations: null,
      name: 'Renamed',
    });

    const empty = await put(key, company.id, {});
    expect(empty.status).toBe(200);
    expect((await json(empty)).data).toMatchObject({
      name: 'Renamed',
      cnpj: company.cnpj,
      owner_id: follower,
      segment: 'Indústria',
      follower_ids: [follower],
    });
  });

  it('follower_ids on PUT replaces the whole set; absent keeps it; [] clears it', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const u3 = await newUserId(key, 'U3');
    const u4 = await newUserId(key, 'U4');
    const company = await create(key, '/v1/companies', {
      name: 'F',
      cnpj: nextCnpj(),
      follower_ids: [u1, u2],
    });
    expect(company.follower_ids).toEqual([u1, u2]);

    const replaced = await put(key, company.id, { follower_ids: [u4, u3, u4] });
    expect(replaced.status).toBe(200);
    expect((await json(replaced)).data.follower_ids).toEqual([u3, u4]);
    expect((await get(key, company.id)).follower_ids).toEqual([u3, u4]);

    const kept = await put(key, company.id, { name: 'F2', segment: 'Serviços' });
    expect((await json(kept)).data.follower_ids).toEqual([u3, u4]);
    expect((await get(key, company.id)).follower_ids).toEqual([u3, u4]);

    const overlap = await put(key, company.id, { follower_ids: [u1, u4] });
    expect((await json(overlap)).data.follower_ids).toEqual([u1, u4]);

    const cleared = await put(key, company.id, { follower_ids: [] });
    expect(cleared.status).toBe(200);
    expect((await json(cleared)).data.follower_ids).toEqual([]);
    expect((await get(key, company.id)).follower_ids).toEqual([]);

    const again = await put(key, company.id, { follower_ids: [u2] });
    expect((await json(again)).data.follower_ids).toEqual([u2]);
  });

  it('rejects follower_ids: null and a bad follower on PUT, leaving the set as it was', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const company = await create(key, '/v1/companies', { name: 'F', cnpj: nextCnpj(), follower_ids: [u1] });

    const nulled = await expectProblem(
      await put(key, company.id, { follower_ids: null }),
      422,
      'validation_failed',
    );
    expect(nulled.errors[0].path).toBe('follower_ids');

    const bad = await expectProblem(
      await put(key, company.id, { name: 'Changed', follower_ids: [u2, u1, 999_999] }),
      422,
      'validation_failed',
    );
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'follower_ids.2', code: 'not_found' })]);
    expect(await get(key, company.id)).toEqual(company);
  });

  it('cnpj is immutable: the same value in any spelling is 200, another one is 422 immutable', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Imm', cnpj: '12.abc.345/01de-35' });
    expect(company.cnpj).toBe('12ABC34501DE35');
    const other = await create(key, '/v1/companies', { name: 'Other', cnpj: '11222333000181' });

    for (const cnpj of ['12ABC34501DE35', '12.ABC.345/01DE-35', '12abc34501de35', ' 12.abc.345/01De-35 ']) {
      const res = await put(key, company.id, { cnpj });
      expect(res.status, cnpj).toBe(200);
      expect((await json(res)).data.cnpj).toBe('12ABC34501DE35');
    }

    for (const cnpj of [
      nextCnpj(),
      mask(nextCnpj()),
      '11222333000181',
      '11.222.333/0001-81',
      'ABCDEFGHIJKL80',
    ]) {
      const body = await expectProblem(
        await put(key, company.id, { name: 'Moved', cnpj }),
        422,
        'validation_failed',
      );
      expect(body.errors[0], cnpj).toMatchObject({ path: 'cnpj', code: 'immutable' });
    }
    for (const cnpj of ['12ABC34501DE36', '00000000000000', 'abc', null, 12]) {
      const body = await expectProblem(await put(key, company.id, { cnpj }), 422, 'validation_failed');
      expect(body.errors[0].path, JSON.stringify(cnpj)).toBe('cnpj');
    }

    const now = await get(key, company.id);
    expect(now).toMatchObject({ name: 'Imm', cnpj: '12ABC34501DE35' });
    expect((await get(key, other.id)).cnpj).toBe('11222333000181');
    expect(idsOf(await list(key, `/v1/companies?${qs({ cnpj: '12ABC34501DE35' })}`))).toEqual([company.id]);
  });

  it('accepts back what GET returns without its read-only fields (and refuses it with them), masked cnpj too', async () => {
    const { key } = await newAccount();
    const owner = await newUserId(key, 'Owner');
    const follower = await newUserId(key, 'Follower');
    const company = await create(key, '/v1/companies', {
      name: 'Round Trip',
      cnpj: nextCnpj(),
      owner_id: owner,
      segment: 'Tecnologia',
      observations: 'x',
      follower_ids: [follower, owner],
    });
    await create(key, '/v1/deals', { name: 'Open deal', company_id: company.id });
    await create(key, '/v1/contacts', { name: 'Lead', company_id: company.id });
    const got = await get(key, company.id);
    expect(got).toMatchObject({ deal_count: 1, lead_count: 1, follower_ids: [owner, follower] });

    await expectReadOnly(await put(key, company.id, got), [
      'id',
      'deal_count',
      'lead_count',
      'created_at',
      'updated_at',
      'deleted_at',
    ]);
    expect(await get(key, company.id)).toEqual(got);

    const res = await put(key, company.id, writable(got, ['deal_count', 'lead_count']));
    expect(res.status).toBe(200);
    const back = (await json(res)).data;
    expect(back).toEqual({ ...got, updated_at: expect.stringMatching(ISO_MS) });
    expect(ms(back.updated_at)).toBeGreaterThan(ms(got.updated_at));

    const masked = await put(key, company.id, {
      ...writable(back, ['deal_count', 'lead_count']),
      cnpj: mask(back.cnpj),
    });
    expect(masked.status).toBe(200);
    const after = (await json(masked)).data;
    expect(after).toEqual({ ...got, updated_at: expect.stringMatching(ISO_MS) });
    expect(await get(key, company.id)).toEqual(after);
  });

  it('PUT rejects unknown fields and invalid values, and changes nothing', async () => {
    const { key } = await newAccount();
    const owner = await newUserId(key, 'Owner');
    const company = await create(key, '/v1/companies', {
      name: 'Strict',
      cnpj: nextCnpj(),
      owner_id: owner,
      segment: 'S',
      observations: 'O',
      follower_ids: [owner],
    });

    await expectUnknownField(await put(key, company.id, { colour: 'red' }), 'colour');

    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ segment: 's'.repeat(256) }, 'segment'],
      [{ observations: 'o'.repeat(10_001) }, 'observations'],
      [{ owner_id: 999_999 }, 'owner_id'],
      [{ owner_id: 'x' }, 'owner_id'],
      [{ follower_ids: null }, 'follower_ids'],
      [{ follower_ids: [owner, owner, 999_999] }, 'follower_ids.2'],
      [{ name: 'Changed', owner_id: 999_999 }, 'owner_id'],
    ] as [Record<string, unknown>, string][]) {
      const problem = await expectProblem(await put(key, company.id, body), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body).slice(0, 80)).toBe(path);
    }
    const notFound = await expectProblem(await put(key, company.id, { owner_id: 999_999 }), 422);
    expect(notFound.errors[0].code).toBe('not_found');
    expect(await get(key, company.id)).toEqual(company);
  });

  it('updated_at strictly increases on every successful PUT while created_at stays', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const company = await create(key, '/v1/companies', { name: 'T', cnpj: nextCnpj() });
    let previous = company.updated_at;
    for (const body of [
      { name: 'T1' },
      { follower_ids: [u1] },
      { follower_ids: [] },
      { segment: 'S' },
      { cnpj: company.cnpj },
      {},
    ]) {
      const res = await put(key, company.id, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const { data } = await json(res);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(ms(data.updated_at), JSON.stringify(body)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(company.created_at);
      previous = data.updated_at;
    }
  });
});

describe('companies: deal_count and lead_count', () => {
  it('count open deals and linked contacts, following status changes and re-assignments', async () => {
    const { key } = await newAccount();
    const acme = await create(key, '/v1/companies', { name: 'Acme', cnpj: nextCnpj() });
    const globex = await create(key, '/v1/companies', { name: 'Globex', cnpj: nextCnpj() });
    const initech = await create(key, '/v1/companies', { name: 'Initech', cnpj: nextCnpj() });

    /** [deal_count, lead_count] of every company, read through GET one AND through the list. */
    const counts = async (): Promise<Record<string, [number, number]>> => {
      const one: Record<string, [number, number]> = {};
      for (const [label, id] of [
        ['acme', acme.id],
        ['globex', globex.id],
        ['initech', initech.id],
      ] as const) {
        const c = await get(key, id);
        one[label] = [c.deal_count, c.lead_count];
      }
      const listed = (await list(key, '/v1/companies?sort=name')).data.map((c: Json) => [
        c.deal_count,
        c.lead_count,
      ]);
      expect(listed, 'list agrees with GET one').toEqual([one.acme, one.globex, one.initech]);
      return one;
    };

    expect(await counts()).toEqual({ acme: [0, 0], globex: [0, 0], initech: [0, 0] });

    const d1 = await create(key, '/v1/deals', { name: 'd1', company_id: acme.id });
    const d2 = await create(key, '/v1/deals', { name: 'd2', company_id: acme.id, status: 'open' });
    const d3 = await create(key, '/v1/deals', { name: 'd3', company_id: acme.id, status: 'won' });
    await create(key, '/v1/deals', { name: 'd4', company_id: acme.id, status: 'lost' });
    const d5 = await create(key, '/v1/deals', { name: 'd5', company_id: globex.id });
    await create(key, '/v1/deals', { name: 'no company' });
    const c1 = await create(key, '/v1/contacts', { name: 'c1', company_id: acme.id });
    const c2 = await create(key, '/v1/contacts', { name: 'c2', company_id: acme.id });
    const c3 = await create(key, '/v1/contacts', { name: 'c3', company_id: globex.id });
    await create(key, '/v1/contacts', { name: 'no company' });
    expect(await counts()).toEqual({ acme: [2, 2], globex: [1, 1], initech: [0, 0] });

    // Closing deals.
    expect((await deals.put(key, d1.id, { status: 'won' })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 2], globex: [1, 1], initech: [0, 0] });
    expect((await deals.put(key, d2.id, { status: 'lost' })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [0, 2], globex: [1, 1], initech: [0, 0] });
    // Re-opening.
    expect((await deals.put(key, d1.id, { status: 'open' })).status).toBe(200);
    expect((await deals.put(key, d3.id, { status: 'open' })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [2, 2], globex: [1, 1], initech: [0, 0] });

    // Re-assigning deals: open ones move the count, closed ones move nothing.
    expect((await deals.put(key, d1.id, { company_id: globex.id })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 2], globex: [2, 1], initech: [0, 0] });
    expect((await deals.put(key, d2.id, { company_id: initech.id })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 2], globex: [2, 1], initech: [0, 0] });
    expect((await deals.put(key, d5.id, { company_id: null })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 2], globex: [1, 1], initech: [0, 0] });
    expect((await deals.put(key, d2.id, { status: 'open' })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 2], globex: [1, 1], initech: [1, 0] });

    // Re-assigning contacts.
    expect((await contacts.put(key, c1.id, { company_id: globex.id })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 1], globex: [1, 2], initech: [1, 0] });
    expect((await contacts.put(key, c2.id, { company_id: null })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 0], globex: [1, 2], initech: [1, 0] });
    expect((await contacts.put(key, c3.id, { company_id: initech.id })).status).toBe(200);
    expect(await counts()).toEqual({ acme: [1, 0], globex: [1, 1], initech: [1, 1] });

    // A company update does not reset the counts.
    const renamed = (await json(await put(key, globex.id, { name: 'Globex Corp' }))).data;
    expect(renamed).toMatchObject({ deal_count: 1, lead_count: 1 });
  });

  it('counts in a filtered and paged list too', async () => {
    const { key } = await newAccount();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const company = await create(key, '/v1/companies', { name: `Counted ${i}`, cnpj: nextCnpj() });
      ids.push(company.id);
      for (let d = 0; d < i; d++)
        await create(key, '/v1/deals', { name: `d${i}.${d}`, company_id: company.id });
      for (let c = 0; c < 3 - i; c++) {
        await create(key, '/v1/contacts', { name: `c${i}.${c}`, company_id: company.id });
      }
    }
    const seen: [number, number][] = [];
    let url: string | null = '/v1/companies?sort=name&limit=1&name__contains=counted';
    while (url) {
      const page = await list(key, url);
      seen.push(...page.data.map((c: Json): [number, number] => [c.deal_count, c.lead_count]));
      url = page.meta.next_cursor
        ? `/v1/companies?sort=name&limit=1&name__contains=counted&cursor=${encodeURIComponent(page.meta.next_cursor)}`
        : null;
    }
    expect(seen).toEqual([
      [0, 3],
      [1, 2],
      [2, 1],
      [3, 0],
    ]);
  });
});

describe('companies: D1 round trips', () => {
  it('reads one company in 1 round trip and a list of 30 (followers, counts) in as many as a list of 1', async () => {
    const { key } = await newAccount();
    const users = [await newUserId(key, 'U1'), await newUserId(key, 'U2'), await newUserId(key, 'U3')];
    const first = await create(key, '/v1/companies', {
      name: 'Company 00',
      cnpj: nextCnpj(),
      owner_id: users[0],
      follower_ids: users,
    });
    await create(key, '/v1/deals', { name: 'deal', company_id: first.id });
    await create(key, '/v1/contacts', { name: 'lead', company_id: first.id });

    const one = await call(`/v1/companies/${first.id}`, { key });
    expect(one.status).toBe(200);
    expect(roundTrips(one)).toBe(1);
    expect((await json(one)).data).toMatchObject({ deal_count: 1, lead_count: 1, follower_ids: users });

    const listOfOne = await call('/v1/companies', { key });
    expect(listOfOne.status).toBe(200);
    const tripsForOne = roundTrips(listOfOne);
    expect(tripsForOne).toBe(1);
    expect((await json(listOfOne)).data).toHaveLength(1);

    const expected = new Map<number, { followers: number[]; deals: number; leads: number }>();
    expected.set(first.id, { followers: users, deals: 1, leads: 1 });
    for (let i = 1; i < 30; i++) {
      const followers = users.slice(0, i % 4);
      const company = await create(key, '/v1/companies', {
        name: `Company ${String(i).padStart(2, '0')}`,
        cnpj: nextCnpj(),
        follower_ids: followers,
      });
      const dealCount = i % 3;
      const leadCount = i % 2;
      for (let d = 0; d < dealCount; d++)
        await create(key, '/v1/deals', { name: `d${i}`, company_id: company.id });
      if (i % 5 === 0)
        await create(key, '/v1/deals', { name: `won${i}`, company_id: company.id, status: 'won' });
      for (let c = 0; c < leadCount; c++) {
        await create(key, '/v1/contacts', { name: `c${i}`, company_id: company.id });
      }
      expected.set(company.id, { followers, deals: dealCount, leads: leadCount });
    }

    const many = await call('/v1/companies?limit=100', { key });
    expect(many.status).toBe(200);
    expect(roundTrips(many)).toBe(tripsForOne);
    const rows = (await json(many)).data;
    expect(rows).toHaveLength(30);
    for (const row of rows) {
      const want = expected.get(row.id);
      expect(want, `company ${row.id}`).toBeDefined();
      expect([row.follower_ids, row.deal_count, row.lead_count], row.name).toEqual([
        want?.followers,
        want?.deals,
        want?.leads,
      ]);
    }

    const defaultPage = await call('/v1/companies', { key });
    expect(roundTrips(defaultPage)).toBe(1);
    expect((await json(defaultPage)).data).toHaveLength(25);

    const filtered = await call(
      `/v1/companies?${qs({ name__contains: 'company', owner_id: String(users[0]), sort: 'name', limit: '5' })}`,
      { key },
    );
    expect(filtered.status).toBe(200);
    expect(roundTrips(filtered)).toBe(1);
    expect(idsOf(await json(filtered))).toEqual([first.id]);
  });

  it('writes in at most two round trips, followers and owner included', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const created = await post(key, {
      name: 'Writes',
      cnpj: nextCnpj(),
      owner_id: u1,
      segment: 'S',
      observations: 'O',
      follower_ids: [u2, u1],
    });
    expect(created.status).toBe(201);
    const postTrips = roundTrips(created);
    expect(postTrips).toBeGreaterThanOrEqual(1);
    expect(postTrips).toBeLessThanOrEqual(2);
    const company = (await json(created)).data;

    for (const body of [
      { name: 'Writes 2', follower_ids: [u1] },
      { owner_id: u2, cnpj: mask(company.cnpj) },
      { follower_ids: [] },
      { segment: null },
    ]) {
      const res = await put(key, company.id, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const trips = roundTrips(res);
      expect(trips, JSON.stringify(body)).toBeGreaterThanOrEqual(1);
      expect(trips, JSON.stringify(body)).toBeLessThanOrEqual(2);
    }
  });
});

describe('companies: list and pagination', () => {
  it('returns data and meta with the default limit 25 and honours limit 1..100', async () => {
    const { key } = await newAccount();
    expect(await list(key, '/v1/companies')).toEqual({ data: [], meta: { limit: 25, next_cursor: null } });
    const c = await create(key, '/v1/companies', { name: 'Only', cnpj: nextCnpj() });
    expect(await list(key, '/v1/companies')).toEqual({ data: [c], meta: { limit: 25, next_cursor: null } });
    expect((await list(key, '/v1/companies?limit=1')).meta.limit).toBe(1);
    expect((await list(key, '/v1/companies?limit=100')).meta.limit).toBe(100);
    await expectLimitsRefused(key, '/v1/companies');
  });

  it('rejects unknown query parameters with 400 invalid_query naming them', async () => {
    const { key } = await newAccount();
    await expectUnknownQueries(key, '/v1/companies', [
      'foo=bar',
      'status=open',
      'company_id=1',
      'email=a@b.co',
      'updated_at__gte=2024-01-01',
      'cnpj__contains=1122',
      'observations=x',
      'observations__contains=x',
      'deal_count=1',
      'follower_ids=1',
      'segment__gte=a',
      'name__startswith=A',
    ]);
  });

  it('pages with next_cursor and a Link rel="next" header', async () => {
    const { id: accountId, key } = await newAccount();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await insertCompanyAt(accountId, `C${i}`, Date.UTC(2024, 0, 1 + i)));

    const { page: page1 } = await pageWithNext(key, '/v1/companies?limit=2');
    expect(idsOf(page1)).toEqual([ids[4], ids[3]]);
    expect(page1.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    expect(await allIds(key, '/v1/companies?limit=2')).toEqual([...ids].reverse());
  });

  it('sorts by name (case-insensitive) and created_at in both directions; default is -created_at', async () => {
    const { id: accountId, key } = await newAccount();
    const day = (d: number) => Date.UTC(2024, 0, d);
    const bravo = await insertCompanyAt(accountId, 'bravo', day(1));
    const delta = await insertCompanyAt(accountId, 'DELTA', day(2));
    const alpha = await insertCompanyAt(accountId, 'Alpha', day(3));
    const echo = await insertCompanyAt(accountId, 'echo', day(4));
    const charlie = await insertCompanyAt(accountId, 'Charlie', day(5));

    const byName = [alpha, bravo, charlie, delta, echo];
    const byCreated = [bravo, delta, alpha, echo, charlie];
    expect(await listIds(key, { sort: 'name' })).toEqual(byName);
    expect(await listIds(key, { sort: '-name' })).toEqual([...byName].reverse());
    expect(await listIds(key, { sort: 'created_at' })).toEqual(byCreated);
    expect(await listIds(key, { sort: '-created_at' })).toEqual([...byCreated].reverse());
    expect(await listIds(key, {})).toEqual([...byCreated].reverse());

    for (const limit of ['1', '2', '3']) {
      expect(await allIds(key, `/v1/companies?sort=name&limit=${limit}`)).toEqual(byName);
      expect(await allIds(key, `/v1/companies?sort=-name&limit=${limit}`)).toEqual([...byName].reverse());
      expect(await allIds(key, `/v1/companies?sort=created_at&limit=${limit}`)).toEqual(byCreated);
      expect(await allIds(key, `/v1/companies?sort=-created_at&limit=${limit}`)).toEqual(
        [...byCreated].reverse(),
      );
      expect(await allIds(key, `/v1/companies?limit=${limit}`)).toEqual([...byCreated].reverse());
    }
  });

  it('sorts names created through the API case-insensitively, accents and other scripts included', async () => {
    const { key } = await newAccount();
    const names = ['zeta', 'Ábaco', 'Beta', 'alfa', 'ÉPICO', 'Жук', 'émile'];
    const ids: Record<string, number> = {};
    for (const name of names) ids[name] = (await create(key, '/v1/companies', { name, cnpj: nextCnpj() })).id;
    // Lower-cased code-point order: alfa, beta, zeta, ábaco, émile, épico, жук.
    const asc = ['alfa', 'Beta', 'zeta', 'Ábaco', 'émile', 'ÉPICO', 'Жук'].map((n) => ids[n]);
    expect(await allIds(key, '/v1/companies?sort=name&limit=2')).toEqual(asc);
    expect(await allIds(key, '/v1/companies?sort=-name&limit=3')).toEqual([...asc].reverse());
  });

  it('breaks name and created_at ties by id in the sort direction across pages', async () => {
    const { id: accountId, key } = await newAccount();
    const t = Date.UTC(2024, 6, 1);
    const early = [
      await insertCompanyAt(accountId, 'Early', t - 10),
      await insertCompanyAt(accountId, 'aardvark', t - 10),
    ];
    const tied: number[] = [];
    // Same created_at and (case-insensitively) the same name: only the id can order them.
    for (const name of ['Tied', 'TIED', 'tied', 'Tied', 'tIeD', 'Tied', 'TIED']) {
      tied.push(await insertCompanyAt(accountId, name, t));
    }
    const late = await insertCompanyAt(accountId, 'Late', t + 10);

    const byCreated = [...early, ...tied, late];
    const asc = await allIds(key, '/v1/companies?sort=created_at&limit=2');
    expect(asc).toEqual(byCreated);
    expect(new Set(asc).size).toBe(byCreated.length);
    expect(await allIds(key, '/v1/companies?sort=-created_at&limit=2')).toEqual([...byCreated].reverse());
    expect(await allIds(key, '/v1/companies?limit=3')).toEqual([...byCreated].reverse());

    // aardvark < early < late < tied (case-insensitive), the seven "tied" by id.
    const byName = [early[1] as number, early[0] as number, late, ...tied];
    expect(await allIds(key, '/v1/companies?sort=name&limit=2')).toEqual(byName);
    expect(await allIds(key, '/v1/companies?sort=-name&limit=2')).toEqual([...byName].reverse());
  });

  it('rejects an unknown sort, a garbage cursor and a cursor of another sort with 400', async () => {
    const { key } = await newAccount();
    for (const name of ['A', 'B', 'C']) await create(key, '/v1/companies', { name, cnpj: nextCnpj() });
    for (const sort of [
      'unknown',
      'updated_at',
      'cnpj',
      'segment',
      'deal_count',
      'lead_count',
      'id',
      '--name',
    ]) {
      await expectProblem(await call(`/v1/companies?sort=${sort}`, { key }), 400, 'invalid_query');
    }
    const byName = await list(key, '/v1/companies?sort=name&limit=1');
    const cursor = encodeURIComponent(byName.meta.next_cursor);
    expect((await list(key, `/v1/companies?sort=name&limit=1&cursor=${cursor}`)).data[0].name).toBe('B');
    for (const other of ['sort=-name&', 'sort=created_at&', 'sort=-created_at&', '']) {
      await expectProblem(
        await call(`/v1/companies?${other}limit=1&cursor=${cursor}`, { key }),
        400,
        'invalid_cursor',
      );
    }
    await expectProblem(await call('/v1/companies?cursor=garbage!!', { key }), 400, 'invalid_cursor');
  });
});

describe('companies: filters', () => {
  it('name: exact match, case-insensitive for every Unicode letter', async () => {
    const { key } = await newAccount();
    const erica = await create(key, '/v1/companies', { name: 'Érica', cnpj: nextCnpj() });
    const upper = await create(key, '/v1/companies', { name: 'ÉRICA', cnpj: nextCnpj() });
    const lower = await create(key, '/v1/companies', { name: 'érica', cnpj: nextCnpj() });
    const ltda = await create(key, '/v1/companies', { name: 'Érica Ltda', cnpj: nextCnpj() });
    const plain = await create(key, '/v1/companies', { name: 'Erica', cnpj: nextCnpj() });
    const greek = await create(key, '/v1/companies', { name: 'Οδυσσέας', cnpj: nextCnpj() });
    const ids = (name: string) => listIds(key, { name, sort: 'created_at' });

    expect(await ids('ÉRICA')).toEqual([erica.id, upper.id, lower.id]);
    expect(await ids('érica')).toEqual([erica.id, upper.id, lower.id]);
    expect(await ids('Érica')).toEqual([erica.id, upper.id, lower.id]);
    expect(await ids('Erica')).toEqual([plain.id]);
    expect(await ids('érica ltda')).toEqual([ltda.id]);
    expect(await ids('ÉRIC')).toEqual([]);
    expect(await ids('rica')).toEqual([]);
    expect(await ids('ΟΔΥΣΣΈΑΣ')).toEqual([greek.id]);
    expect(await ids('%')).toEqual([]);
  });

  it('name__contains: partial match, case-insensitive, % and _ literal', async () => {
    const { key } = await newAccount();
    const erica = await create(key, '/v1/companies', { name: 'Érica Luz Ltda', cnpj: nextCnpj() });
    const lower = await create(key, '/v1/companies', { name: 'érica', cnpj: nextCnpj() });
    const plain = await create(key, '/v1/companies', { name: 'Erica Plain', cnpj: nextCnpj() });
    const percent = await create(key, '/v1/companies', { name: '100% Natural', cnpj: nextCnpj() });
    const underscore = await create(key, '/v1/companies', { name: 'snake_case SA', cnpj: nextCnpj() });
    const snakeX = await create(key, '/v1/companies', { name: 'snakeXcase SA', cnpj: nextCnpj() });
    const ids = (name__contains: string) => listIds(key, { name__contains, sort: 'created_at' });

    expect(await ids('ÉRICA')).toEqual([erica.id, lower.id]);
    expect(await ids('RICA')).toEqual([erica.id, lower.id, plain.id]);
    expect(await ids('luz ltda')).toEqual([erica.id]);
    expect(await ids('%')).toEqual([percent.id]);
    expect(await ids('_')).toEqual([underscore.id]);
    expect(await ids('snake_case')).toEqual([underscore.id]);
    expect(await ids('CASE sa')).toEqual([underscore.id, snakeX.id]);
    expect(await ids('zzz')).toEqual([]);
  });

  it('cnpj: exact match with or without mask; an invalid value matches nothing', async () => {
    const { key } = await newAccount();
    const acme = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11.222.333/0001-81' });
    const alpha = await create(key, '/v1/companies', { name: 'Alpha', cnpj: '12ABC34501DE35' });
    await create(key, '/v1/companies', { name: 'Other', cnpj: '12345678000195' });

    for (const cnpj of ['11222333000181', '11.222.333/0001-81', ' 11222333000181 ']) {
      expect(await listIds(key, { cnpj }), cnpj).toEqual([acme.id]);
    }
    for (const cnpj of ['12ABC34501DE35', '12abc34501de35', '12.ABC.345/01DE-35', '12.abc.345/01de-35']) {
      expect(await listIds(key, { cnpj }), cnpj).toEqual([alpha.id]);
    }
    for (const cnpj of [
      '11222333000182',
      '11222333',
      '1122233300018',
      '11.222.333000181',
      '00000000000000',
      'abc',
      '11 222 333 0001 81',
      '%',
    ]) {
      const res = await call(`/v1/companies?${qs({ cnpj })}`, { key });
      expect(res.status, cnpj).toBe(200);
      expect((await json(res)).data, cnpj).toEqual([]);
    }
    expect(await listIds(key, { cnpj: '11444777000161' })).toEqual([]);
  });

  it('owner_id: one id or a comma list; rejects x and 0 with 400', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const u3 = await newUserId(key, 'U3');
    const c1 = await create(key, '/v1/companies', { name: 'C1', cnpj: nextCnpj(), owner_id: u1 });
    const c2 = await create(key, '/v1/companies', { name: 'C2', cnpj: nextCnpj(), owner_id: u2 });
    const c3 = await create(key, '/v1/companies', { name: 'C3', cnpj: nextCnpj(), owner_id: u3 });
    // A follower is not an owner.
    await create(key, '/v1/companies', { name: 'Nobody', cnpj: nextCnpj(), follower_ids: [u1, u2, u3] });
    const ids = (owner_id: string) => listIds(key, { owner_id, sort: 'created_at' });

    expect(await ids(String(u2))).toEqual([c2.id]);
    expect(await ids(`${u3},${u1}`)).toEqual([c1.id, c3.id]);
    expect(await ids(`${u1}, ${u2}, ${u3}`)).toEqual([c1.id, c2.id, c3.id]);
    expect(await ids('999999')).toEqual([]);
    for (const bad of ['x', '0', '-1', '1.5', '', '3,,7', '3,x']) {
      await expectProblem(
        await call(`/v1/companies?${qs({ owner_id: bad })}`, { key }),
        400,
        'invalid_query',
      );
    }
  });

  it('segment: exact match, case-insensitive; segment__contains: partial, case-insensitive', async () => {
    const { key } = await newAccount();
    const make = async (name: string, segment: string | null) =>
      (await create(key, '/v1/companies', { name, cnpj: nextCnpj(), segment })).id;
    const varejo = await make('a', 'Varejo');
    const VAREJO = await make('b', 'VAREJO');
    const online = await make('c', 'Varejo Online');
    const industria = await make('d', 'Indústria');
    const quimica = await make('e', 'INDÚSTRIA Química');
    await make('f', null);
    const ids = (params: Record<string, string>) => listIds(key, { sort: 'created_at', ...params });

    expect(await ids({ segment: 'varejo' })).toEqual([varejo, VAREJO]);
    expect(await ids({ segment: 'VAREJO ONLINE' })).toEqual([online]);
    expect(await ids({ segment: 'indústria' })).toEqual([industria]);
    expect(await ids({ segment: 'INDÚSTRIA' })).toEqual([industria]);
    expect(await ids({ segment: 'Vare' })).toEqual([]);
    expect(await ids({ segment__contains: 'varejo' })).toEqual([varejo, VAREJO, online]);
    expect(await ids({ segment__contains: 'ÚSTRIA' })).toEqual([industria, quimica]);
    expect(await ids({ segment__contains: 'química' })).toEqual([quimica]);
    expect(await ids({ segment__contains: 'line' })).toEqual([online]);
    expect(await ids({ segment__contains: '%' })).toEqual([]);
    expect(await ids({ segment__contains: 'zzz' })).toEqual([]);
    // Segments are stored trimmed, and so are exact filters; a partial one is taken as sent.
    expect(await ids({ segment: ' Varejo  ' })).toEqual([varejo, VAREJO]);
    expect(await ids({ name: ' c ' })).toEqual([online]);
    expect(await ids({ segment__contains: ' online' })).toEqual([online]);
    expect(await ids({ segment__contains: 'online ' })).toEqual([]);
  });

  it('created_at with a YYYY-MM-DD bound covers the whole UTC day', async () => {
    await expectDateBoundsCoverDay(
      await createdAroundDay(await newAccount(), '/v1/companies', insertCompanyAt),
    );
  });

  it('created_at with a date-time bound honours its offset; unparsable bounds are 400', async () => {
    const account = await newAccount();
    const { before, start, end, after, ids } = await createdAroundDay(
      account,
      '/v1/companies',
      insertCompanyAt,
    );

    expect(await ids({ created_at__gte: '2024-03-05T21:00:00-03:00' })).toEqual([after]);
    expect(await ids({ created_at__lt: '2024-03-05T21:00:00-03:00' })).toEqual([before, start, end]);
    expect(await ids({ created_at__gt: '2024-03-05T00:00:00Z' })).toEqual([end, after]);
    expect(await ids({ created_at__lte: '2024-03-05T09:00:00+09:00' })).toEqual([before, start]);

    for (const value of ['2024-13-01', '2024-02-30', 'yesterday', '05/03/2024', '']) {
      for (const op of ['gte', 'lte', 'gt', 'lt']) {
        await expectProblem(
          await call(`/v1/companies?${qs({ [`created_at__${op}`]: value })}`, { key: account.key }),
          400,
          'invalid_query',
        );
      }
    }
  });

  it('combines filters with AND, also with sorting and paging', async () => {
    const { id: accountId, key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const day = (d: number) => Date.UTC(2024, 4, d, 12);
    const rows = {
      a: await insertCompanyAt(accountId, 'Alpha Varejo', day(1), { owner_id: u1, segment: 'Varejo' }),
      b: await insertCompanyAt(accountId, 'Beta Varejo', day(2), { owner_id: u2, segment: 'Varejo' }),
      c: await insertCompanyAt(accountId, 'Gamma Varejo', day(3), { owner_id: u1, segment: 'Varejo Online' }),
      d: await insertCompanyAt(accountId, 'Delta Tech', day(4), { owner_id: u1, segment: 'Tecnologia' }),
      e: await insertCompanyAt(accountId, 'Epsilon Varejo', day(5), { segment: 'varejo' }),
      f: await insertCompanyAt(accountId, 'Zeta', day(6), { owner_id: u1, cnpj: '11222333000181' }),
    };
    const ids = (params: Record<string, string>) => listIds(key, { sort: 'created_at', ...params });

    expect(await ids({ owner_id: String(u1), segment: 'VAREJO' })).toEqual([rows.a]);
    expect(await ids({ owner_id: String(u1), segment__contains: 'varejo' })).toEqual([rows.a, rows.c]);
    expect(await ids({ owner_id: `${u1},${u2}`, segment: 'varejo' })).toEqual([rows.a, rows.b]);
    expect(await ids({ name__contains: 'varejo', created_at__gte: '2024-05-02' })).toEqual([
      rows.b,
      rows.c,
      rows.e,
    ]);
    expect(
      await ids({ name__contains: 'varejo', created_at__gt: '2024-05-01', created_at__lt: '2024-05-05' }),
    ).toEqual([rows.b, rows.c]);
    expect(await ids({ name: 'delta tech', owner_id: String(u1) })).toEqual([rows.d]);
    expect(await ids({ name: 'delta tech', owner_id: String(u2) })).toEqual([]);
    expect(await ids({ cnpj: '11.222.333/0001-81', owner_id: String(u1) })).toEqual([rows.f]);
    expect(await ids({ cnpj: '11.222.333/0001-81', owner_id: String(u2) })).toEqual([]);
    expect(await ids({ cnpj: '11222333000181', name__contains: 'alpha' })).toEqual([]);
    expect(await ids({ segment: 'varejo', created_at__lte: '2024-05-01' })).toEqual([rows.a]);

    const filter = qs({ segment__contains: 'VAREJO', owner_id: String(u1) });
    expect(await allIds(key, `/v1/companies?${filter}&sort=name&limit=1`)).toEqual([rows.a, rows.c]);
    expect(await allIds(key, `/v1/companies?${qs({ name__contains: 'a' })}&sort=-name&limit=2`)).toEqual([
      rows.f,
      rows.c,
      rows.e,
      rows.d,
      rows.b,
      rows.a,
    ]);
    expect(
      await allIds(key, `/v1/companies?${qs({ segment__contains: 'varejo' })}&sort=-created_at&limit=2`),
    ).toEqual([rows.e, rows.c, rows.b, rows.a]);
  });
});

describe('companies: tenant isolation', () => {
  it("never lists, reads or changes another account's companies", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await newUserId(b.key, 'Bob');
    const companyB = await create(b.key, '/v1/companies', {
      name: 'Secret Ltda',
      cnpj: '11.444.777/0001-61',
      owner_id: userB,
      segment: 'Segredo',
      follower_ids: [userB],
    });
    const companyA = await create(a.key, '/v1/companies', { name: 'Mine', cnpj: '12345678000195' });

    expect(await listIds(a.key, {})).toEqual([companyA.id]);
    expect(await listIds(a.key, { cnpj: '11444777000161' })).toEqual([]);
    expect(await listIds(a.key, { cnpj: '11.444.777/0001-61' })).toEqual([]);
    expect(await listIds(a.key, { name: 'secret ltda' })).toEqual([]);
    expect(await listIds(a.key, { name__contains: 'secret' })).toEqual([]);
    expect(await listIds(a.key, { segment: 'segredo' })).toEqual([]);
    expect(await listIds(a.key, { segment__contains: 'gred' })).toEqual([]);
    expect(await listIds(a.key, { owner_id: String(userB) })).toEqual([]);
    expect(await listIds(a.key, { created_at__gte: '2000-01-01' })).toEqual([companyA.id]);
    expect(await allIds(a.key, '/v1/companies?sort=name&limit=1')).toEqual([companyA.id]);

    await expectProblem(await call(`/v1/companies/${companyB.id}`, { key: a.key }), 404, 'not_found');
    await expectProblem(await put(a.key, companyB.id, { name: 'Hijacked' }), 404, 'not_found');
    await expectProblem(await put(a.key, companyB.id, {}), 404, 'not_found');
    await expectProblem(await put(a.key, companyB.id, { follower_ids: [] }), 404, 'not_found');
    expect(await get(b.key, companyB.id)).toEqual(companyB);

    // A's company is not reachable from B either, and B's existence does not block A's CNPJ.
    await expectProblem(await call(`/v1/companies/${companyA.id}`, { key: b.key }), 404, 'not_found');
    const sameCnpj = await create(a.key, '/v1/companies', { name: 'Same CNPJ', cnpj: '11444777000161' });
    expect(await listIds(a.key, { cnpj: '11444777000161' })).toEqual([sameCnpj.id]);
    expect(await listIds(b.key, { cnpj: '11444777000161' })).toEqual([companyB.id]);
  });

  it("rejects another account's user as owner_id or follower with 422", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userA = await newUserId(a.key, 'Ana');
    const userB = await newUserId(b.key, 'Bob');

    const owner = await expectProblem(
      await post(a.key, { name: 'X', cnpj: nextCnpj(), owner_id: userB }),
      422,
      'validation_failed',
    );
    expect(owner.errors).toEqual([expect.objectContaining({ path: 'owner_id', code: 'not_found' })]);

    const follower = await expectProblem(
      await post(a.key, { name: 'X', cnpj: nextCnpj(), follower_ids: [userA, userA, userB] }),
      422,
      'validation_failed',
    );
    expect(follower.errors).toEqual([expect.objectContaining({ path: 'follower_ids.2', code: 'not_found' })]);

    const companyA = await create(a.key, '/v1/companies', {
      name: 'Mine',
      cnpj: nextCnpj(),
      owner_id: userA,
      follower_ids: [userA],
    });
    const both = await expectProblem(
      await put(a.key, companyA.id, { owner_id: userB, follower_ids: [userB] }),
      422,
      'validation_failed',
    );
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['follower_ids.0', 'owner_id']);
    expect(await get(a.key, companyA.id)).toEqual(companyA);
    expect(await listIds(a.key, {})).toEqual([companyA.id]);
  });

  it("another account's deals and contacts cannot point at a company, so they never count", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const companyA = await create(a.key, '/v1/companies', { name: 'Mine', cnpj: nextCnpj() });
    const deal = await expectProblem(
      await call('/v1/deals', { method: 'POST', key: b.key, body: { name: 'D', company_id: companyA.id } }),
      422,
    );
    expect(deal.errors[0].path).toBe('company_id');
    const contact = await expectProblem(
      await call('/v1/contacts', {
        method: 'POST',
        key: b.key,
        body: { name: 'C', company_id: companyA.id },
      }),
      422,
    );
    expect(contact.errors[0].path).toBe('company_id');
    expect(await get(a.key, companyA.id)).toMatchObject({ deal_count: 0, lead_count: 0 });
  });
});

describe('companies: OpenAPI', () => {
  async function document(): Promise<Json> {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    return json(res);
  }

  const requestSchema = (doc: Json, path: string, method: string): Json =>
    deref(doc, doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema);

  /** The properties a client may write: every property not marked readOnly. */
  const writable = (doc: Json, schema: Json): string[] =>
    Object.entries<Json>(schema?.properties ?? {})
      .filter(([, property]) => deref(doc, property)?.readOnly !== true)
      .map(([name]) => name)
      .sort();

  it('describes the Company schema with exactly its properties', async () => {
    const doc = await document();
    const company = doc.components?.schemas?.Company;
    expect(company, 'components.schemas.Company').toBeDefined();
    expect(Object.keys(company.properties).sort()).toEqual(COMPANY_KEYS);
    const props = company.properties;
    expect(deref(doc, props.follower_ids).type).toBe('array');
    expect(deref(doc, props.follower_ids).items.type).toBe('integer');
    expect(deref(doc, props.deal_count).type).toBe('integer');
    expect(deref(doc, props.lead_count).type).toBe('integer');
    expect(JSON.stringify(deref(doc, props.cnpj))).toContain('string');
  });

  it('documents GET/POST /v1/companies and GET/PUT /v1/companies/{id}', async () => {
    const doc = await document();
    for (const [method, path] of [
      ['get', '/v1/companies'],
      ['post', '/v1/companies'],
      ['get', '/v1/companies/{id}'],
      ['put', '/v1/companies/{id}'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    const post201 = doc.paths['/v1/companies'].post.responses['201'];
    const created = deref(doc, post201.content['application/json'].schema);
    expect(deref(doc, created.properties.data)).toEqual(doc.components.schemas.Company);
    expect(doc.paths['/v1/companies'].post.responses['409'], 'POST documents 409').toBeDefined();
    expect(doc.paths['/v1/companies'].post.responses['422'], 'POST documents 422').toBeDefined();
    expect(doc.paths['/v1/companies/{id}'].put.responses['422'], 'PUT documents 422').toBeDefined();
  });

  it('write bodies have exactly the writable fields; counts are read-only or absent; POST requires name and cnpj', async () => {
    const doc = await document();
    const createBody = requestSchema(doc, '/v1/companies', 'post');
    const updateBody = requestSchema(doc, '/v1/companies/{id}', 'put');
    const fields = ['cnpj', 'follower_ids', 'name', 'observations', 'owner_id', 'segment'];
    for (const [label, schema] of [
      ['create', createBody],
      ['update', updateBody],
    ] as const) {
      expect(schema, `${label} body schema`).toBeDefined();
      expect(writable(doc, schema), label).toEqual(fields);
      for (const count of ['deal_count', 'lead_count', 'id', 'created_at', 'updated_at']) {
        const property = deref(doc, schema.properties?.[count]);
        expect(property === undefined || property.readOnly === true, `${label}.${count}`).toBe(true);
      }
    }
    expect([...(createBody.required ?? [])].sort()).toEqual(['cnpj', 'name']);
    expect(updateBody.required ?? []).toEqual([]);
  });

  it('lists exactly the filters, sort and paging parameters of GET /v1/companies', async () => {
    const doc = await document();
    const params = (doc.paths['/v1/companies']?.get?.parameters ?? []).map((p: Json) => deref(doc, p));
    const query = params.filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
    expect(query.sort()).toEqual(
      [
        'cnpj',
        'created_at__gt',
        'created_at__gte',
        'created_at__lt',
        'created_at__lte',
        'cursor',
        'deleted',
        'limit',
        'name',
        'name__contains',
        'owner_id',
        'segment',
        'segment__contains',
        'sort',
      ].sort(),
    );
    const sort = params.find((p: Json) => p.name === 'sort');
    expect([...(deref(doc, sort.schema).enum ?? [])].sort()).toEqual(
      ['-created_at', '-name', 'created_at', 'name'].sort(),
    );
  });
});
