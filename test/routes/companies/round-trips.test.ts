import { describe, expect, it } from 'vitest';
import { mask } from '../../cnpj';
import { call, create, idsOf, json, newAccount, qs, roundTrips } from '../../helpers';
import { newUserId, nextCnpj, post, put } from './support';

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
