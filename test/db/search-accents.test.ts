// `__contains` ignores accents as people type them (issue 34): `joao` finds "João"; the exact
// filters keep their case-insensitive rule, accents included.
import { describe, expect, it } from 'vitest';
import { ACCENTED, withoutAccents } from '../../src/core/text';
import { call, create, idsOf, json, newAccount, qs, roundTrips } from '../helpers';

const ids = async (key: string, path: string, query: Record<string, string>) => {
  const res = await call(`${path}?${qs(query)}`, { key });
  expect(res.status, JSON.stringify(query)).toBe(200);
  expect(roundTrips(res), JSON.stringify(query)).toBe(1);
  return idsOf(await json(res));
};

describe('__contains without accents', () => {
  it('joao finds João, alimentacao finds Alimentação, and an accent typed finds the plain letter', async () => {
    const { key } = await newAccount();
    const joao = await create(key, '/v1/contacts', { name: 'João da Silva' });
    const jose = await create(key, '/v1/contacts', { name: 'Jose Conceição' });
    const user = await create(key, '/v1/users', { name: 'Conceição Araújo', email: 'c@example.com' });
    const food = await create(key, '/v1/companies', {
      name: 'Padaria Pão Quente',
      cnpj: '11.222.333/0001-81',
      segment: 'Alimentação',
    });
    expect(await ids(key, '/v1/contacts', { name__contains: 'joao' })).toEqual([joao.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'JOAO DA' })).toEqual([joao.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'josé' })).toEqual([jose.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'conceicao' })).toEqual([jose.id]);
    expect(await ids(key, '/v1/users', { name__contains: 'araujo' })).toEqual([user.id]);
    expect(await ids(key, '/v1/companies', { segment__contains: 'alimentacao' })).toEqual([food.id]);
    expect(await ids(key, '/v1/companies', { name__contains: 'pao quente' })).toEqual([food.id]);
    // Short values go through the grams as before: one and two letters, accented or not.
    expect(await ids(key, '/v1/contacts', { name__contains: 'ã', sort: 'created_at' })).toEqual([
      joao.id,
      jose.id,
    ]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'çã' })).toEqual([jose.id]);
    expect(await ids(key, '/v1/companies', { segment__contains: 'ca' })).toEqual([food.id]);
  });

  it('keeps % and _ literal and the exact filters as they were (case-insensitive, accents kept)', async () => {
    const { key } = await newAccount();
    const pct = await create(key, '/v1/contacts', { name: 'Ação 100% já' });
    await create(key, '/v1/contacts', { name: 'Acao 100 ja' });
    expect(await ids(key, '/v1/contacts', { name__contains: '0% ja' })).toEqual([pct.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'a_ao' })).toEqual([]);
    // GLOB's own wildcards are literal too, and the longest value (255 letters, each a class) is read.
    expect(await ids(key, '/v1/contacts', { name__contains: 'a*o' })).toEqual([]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'ac?o' })).toEqual([]);
    expect(await ids(key, '/v1/contacts', { name__contains: '[a]' })).toEqual([]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'aeiouç'.repeat(42).slice(0, 255) })).toEqual([]);
    const food = await create(key, '/v1/companies', {
      name: 'São Paulo Alimentos',
      cnpj: '11.444.777/0001-61',
      segment: 'Alimentação',
    });
    expect(await ids(key, '/v1/companies', { segment: 'ALIMENTAÇÃO' })).toEqual([food.id]);
    expect(await ids(key, '/v1/companies', { segment: 'alimentacao' })).toEqual([]);
    expect(await ids(key, '/v1/companies', { name: 'sao paulo alimentos' })).toEqual([]);
  });

  it('every accented letter it folds, upper or lower case, is found by its base letter', async () => {
    const { key } = await newAccount();
    const letters = ACCENTED.map(([letter]) => letter);
    const word = (letter: string) => `x${letter}yz`;
    const made = [];
    for (const letter of letters) made.push(await create(key, '/v1/contacts', { name: word(letter) }));
    for (const [i, letter] of letters.entries()) {
      const query = withoutAccents(word(letter)).toUpperCase();
      const found = await ids(key, '/v1/contacts', { name__contains: query, limit: '100' });
      expect(found, `${letter} by ${query}`).toContain(made[i]?.id);
      expect(
        await ids(key, '/v1/contacts', { name__contains: word(letter.toUpperCase()), limit: '100' }),
      ).toContain(made[i]?.id);
    }
  }, 60_000);
});
