import { describe, expect, it } from 'vitest';
import {
  call,
  create,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  ISO_MS,
  idsOf,
  type Json,
  json,
  list,
  ms,
  newAccount,
} from '../../helpers';
import { COMPANY_KEYS, get, newUserId, nextCnpj, post, put } from './support';

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
      external_id: null,
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
      external_id: null,
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

  it('answers 404 for its CNPJ in place of its id: a company is addressed by id only', async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Real', cnpj: nextCnpj() });
    await expectProblem(await call(`/v1/companies/${company.cnpj}`, { key }), 404, 'not_found');
    await expectProblem(await put(key, company.cnpj, { name: 'X' }), 404, 'not_found');
    expect(await get(key, company.id)).toEqual(company);
  });
});
