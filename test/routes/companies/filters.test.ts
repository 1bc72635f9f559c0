import { describe, expect, it } from 'vitest';
import {
  allIds,
  call,
  create,
  createdAroundDay,
  expectDateBoundsCoverDay,
  json,
  newAccount,
  qs,
} from '../../helpers';
import { insertCompanyAt, listIds, newUserId, nextCnpj } from './support';

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

  it('name__contains: partial match, ignoring case and accents, % and _ literal', async () => {
    const { key } = await newAccount();
    const erica = await create(key, '/v1/companies', { name: 'Érica Luz Ltda', cnpj: nextCnpj() });
    const lower = await create(key, '/v1/companies', { name: 'érica', cnpj: nextCnpj() });
    const plain = await create(key, '/v1/companies', { name: 'Erica Plain', cnpj: nextCnpj() });
    const percent = await create(key, '/v1/companies', { name: '100% Natural', cnpj: nextCnpj() });
    const underscore = await create(key, '/v1/companies', { name: 'snake_case SA', cnpj: nextCnpj() });
    const snakeX = await create(key, '/v1/companies', { name: 'snakeXcase SA', cnpj: nextCnpj() });
    const ids = (name__contains: string) => listIds(key, { name__contains, sort: 'created_at' });

    // Accents aside too (issue 34): ÉRICA finds Erica as people type it.
    expect(await ids('ÉRICA')).toEqual([erica.id, lower.id, plain.id]);
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

  it('owner_id: one id or a comma list', async () => {
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

  it('created_at with a date-time bound honours its offset', async () => {
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
