import { describe, expect, it } from 'vitest';
import { allIds, call, create, expectProblem, type Json, newAccount } from '../../helpers';
import { get, listIds, newUserId, nextCnpj, post, put } from './support';

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
