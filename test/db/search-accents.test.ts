// `__contains` ignores accents as people type them (issue 34): `joao` finds "João"; the exact
// filters keep their case-insensitive rule, accents included.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ACCENTED, withoutAccents } from '../../src/core/text';
import { accountsOnShard, call, create, idsOf, json, newAccount, qs, roundTrips } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

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

describe('the stored folds (name_fold, segment_fold)', () => {
  const stale = async (table: string, column: string) => {
    const { results } = await env.DB.prepare(
      `SELECT id, ${column}_norm AS norm, ${column}_fold AS fold FROM ${table}`,
    ).all<{
      id: number;
      norm: string | null;
      fold: string | null;
    }>();
    expect(results.length).toBeGreaterThan(0);
    return results.filter((r) => r.fold !== (r.norm === null ? null : withoutAccents(r.norm)));
  };

  it('follow every write, through the API or raw SQL, and the search reads them', async () => {
    const { id: accountId, key } = await newAccount();
    const company = await create(key, '/v1/companies', {
      name: 'Magalhães Ltda',
      cnpj: '11.222.333/0001-81',
      segment: 'Alimentação',
    });
    await create(key, '/v1/users', { name: 'Conceição Araújo', email: 'c@example.com' });
    const contact = await create(key, '/v1/contacts', { name: 'João' });
    const renamed = await call(`/v1/companies/${company.id}`, {
      method: 'PUT',
      key,
      body: { name: 'Açaí Magalhães', segment: 'Construção' },
    });
    expect(renamed.status).toBe(200);
    await call(`/v1/contacts/${contact.id}`, { method: 'PUT', key, body: { name: 'Sebastião' } });
    // Written by SQL that knows nothing of the folds: an insert, and a change of the normalised text.
    await env.DB.prepare(
      "INSERT INTO companies (account_id, name, name_norm, cnpj, segment, segment_norm, created_at, updated_at) VALUES (?1, 'Ótica Ímpar', 'ótica ímpar', '12345678000195', 'Saúde', 'saúde', ?2, ?2)",
    )
      .bind(accountId, Date.now() + 60_000)
      .run();
    const raw = await env.DB.prepare("SELECT id FROM companies WHERE name_norm = 'ótica ímpar'").first<{
      id: number;
    }>();
    await env.DB.prepare("UPDATE contacts SET name_norm = 'estêvão' WHERE id = ?").bind(contact.id).run();
    for (const [table, column] of [
      ['users', 'name'],
      ['contacts', 'name'],
      ['companies', 'name'],
      ['companies', 'segment'],
    ] as const) {
      expect(await stale(table, column), `${table}.${column}_fold`).toEqual([]);
    }
    expect(await ids(key, '/v1/companies', { name__contains: 'acai magalhaes' })).toEqual([company.id]);
    expect(await ids(key, '/v1/companies', { segment__contains: 'construcao' })).toEqual([company.id]);
    expect(await ids(key, '/v1/companies', { name__contains: 'otica' })).toEqual([raw?.id]);
    expect(await ids(key, '/v1/companies', { segment__contains: 'saude' })).toEqual([raw?.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'estevao' })).toEqual([contact.id]);
    expect(await ids(key, '/v1/contacts', { name__contains: 'sebastiao' })).toEqual([]);
  });
});
