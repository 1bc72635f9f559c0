import { describe, expect, it } from 'vitest';
import { mask } from '../../cnpj';
import { allIds, create, expectProblem, idsOf, type Json, json, list, newAccount, qs } from '../../helpers';
import { get, listIds, nextCnpj, post, put } from './support';

describe('companies: CNPJ', () => {
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
});
