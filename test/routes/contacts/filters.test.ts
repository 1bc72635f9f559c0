import { describe, expect, it } from 'vitest';
import {
  call,
  create,
  createdAroundDay,
  expectDateBoundsCoverDay,
  expectProblem,
  insertCompany,
  newAccount,
  qs,
} from '../../helpers';
import { insertContact, listIds } from './support';

describe('contacts: filters', () => {
  it('filters by owner_id, one id or a comma list', async () => {
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
  });

  it('filters by company_id, one id or a comma list', async () => {
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

  it('name__contains ignores case and accents (issue 34)', async () => {
    const { key } = await newAccount();
    const erica = await create(key, '/v1/contacts', { name: 'Érica Luz' });
    const lower = await create(key, '/v1/contacts', { name: 'érica' });
    const plain = await create(key, '/v1/contacts', { name: 'Erica Plain' });
    const joao = await create(key, '/v1/contacts', { name: 'JOÃO Çedilha' });

    expect(await listIds(key, { name__contains: 'ÉRICA', sort: 'created_at' })).toEqual([
      erica.id,
      lower.id,
      plain.id,
    ]);
    expect(await listIds(key, { name__contains: 'érica', sort: 'created_at' })).toEqual([
      erica.id,
      lower.id,
      plain.id,
    ]);
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
