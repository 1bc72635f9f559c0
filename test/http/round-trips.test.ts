import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import { call, type Json, json, qs, roundTrips } from '../helpers';
import { eachFilter, eachSort, lists, pathOf, secondRows, seededAccount } from '../lists';

/** Round trips of a request that must succeed with `status`. */
async function tripsOf(path: string, options: Parameters<typeof call>[1], status: number): Promise<number> {
  const res = await call(path, options);
  expect(res.status, `${options?.method ?? 'GET'} ${path}: ${await res.clone().text()}`).toBe(status);
  return roundTrips(res);
}

describe('D1 round trips (Server-Timing)', () => {
  it('GET /health: none', async () => {
    expect(await tripsOf('/health', {}, 200)).toBe(0);
  });

  it('every list: exactly one, auth included, for each filter, all filters together, each sort and the next page', async () => {
    const seeded = await seededAccount();
    const { key, ids } = seeded;
    await secondRows(seeded);

    for (const list of lists) {
      const one = async (params: Record<string, string>) => {
        const path = `${pathOf(list, ids)}?${qs(params)}`;
        expect(await tripsOf(path, { key }, 200), path).toBe(1);
      };
      const filters = eachFilter(list, ids);
      for (const filter of filters) await one(filter);
      const all = Object.assign({}, ...filters);
      await one(all);
      for (const sort of eachSort(list)) await one({ ...all, sort });

      const first = await call(`${pathOf(list, ids)}?limit=1`, { key });
      const cursor: string = (await json(first)).meta.next_cursor;
      expect(cursor, list.path).toEqual(expect.any(String));
      await one({ limit: '1', cursor });
    }
  });

  it('every GET of one row: exactly one, found or not', async () => {
    const { key, ids } = await seededAccount();
    const rows: [string, number][] = [
      ['users', ids.user],
      ['companies', ids.company],
      ['contacts', ids.contact],
      ['deals', ids.deal],
      ['tasks', ids.task],
    ];
    for (const [resource, id] of rows) {
      expect(await tripsOf(`/v1/${resource}/${id}`, { key }, 200), resource).toBe(1);
      expect(await tripsOf(`/v1/${resource}/999999`, { key }, 404), resource).toBe(1);
    }
  });

  it('every POST and PUT: at most two, with every reference and child row they can carry', async () => {
    const { key, ids } = await seededAccount();
    const writes: [string, Json, Json][] = [
      ['users', { name: 'Caio', email: 'caio@example.com' }, { name: 'Caio R', email: 'caio.r@example.com' }],
      [
        'companies',
        {
          name: 'Gama',
          cnpj: '12.ABC.345/01DE-35',
          owner_id: ids.user,
          segment: 'Frota',
          follower_ids: [ids.user],
        },
        { name: 'Gama SA', owner_id: null, segment: 'Frotas', observations: 'x', follower_ids: [] },
      ],
      [
        'contacts',
        { name: 'Duda', company_id: ids.company, owner_id: ids.user, phone: '(11) 98765-4321' },
        { name: 'Duda M', company_id: null, owner_id: ids.user, custom_fields: { a: 1 } },
      ],
      [
        'deals',
        { name: 'Cruze', company_id: ids.company, contact_id: ids.contact, owner_id: ids.user, value: 1 },
        { status: 'won', contact_id: null, owner_id: ids.user },
      ],
      [
        'tasks',
        {
          deal_id: ids.deal,
          name: 'Visit',
          category: 'Visita',
          owner_id: ids.user,
          due_date: '2026-01-01T00:00Z',
        },
        { category: 'Reunião', owner_id: null, is_completed: true, due_date: null },
      ],
    ];
    for (const [resource, post, put] of writes) {
      const posted = await call(`/v1/${resource}`, { method: 'POST', key, body: post });
      expect(posted.status, resource).toBe(201);
      expect(roundTrips(posted), `POST ${resource}`).toBeLessThanOrEqual(2);
      const { id } = (await json(posted)).data;
      expect(
        await tripsOf(`/v1/${resource}/${id}`, { method: 'PUT', key, body: put }, 200),
      ).toBeLessThanOrEqual(2);
      // Refused writes stop after the first round trip.
      expect(
        await tripsOf(`/v1/${resource}/999999`, { method: 'PUT', key, body: { name: 'X' } }, 404),
      ).toBeLessThanOrEqual(2);
    }
    const badRef = { name: 'E', owner_id: 999999 };
    expect(await tripsOf('/v1/contacts', { method: 'POST', key, body: badRef }, 422)).toBe(1);
  });

  it('every batch: at most two for 100 items with relations by natural key; an export: one for its first page', async () => {
    const { key, ids } = await seededAccount();
    const items: Record<string, (i: number) => Json> = {
      users: (i) => ({ op: 'upsert', data: { name: `U${i}`, email: `u${i}@example.com` } }),
      companies: (i) => ({
        op: 'upsert',
        data: {
          name: `C${i}`,
          external_id: `C-${i}`,
          cnpj: withCheckDigits(`${50_000_000 + i}0001`),
          follower_ids: [ids.user],
          owner: { email: 'ana@example.com' },
        },
      }),
      contacts: (i) => ({
        op: 'upsert',
        data: { name: `P${i}`, email: `p${i}@example.com`, company: { cnpj: '11222333000181' } },
      }),
      deals: (i) => ({
        op: 'upsert',
        data: { name: `D${i}`, external_id: `D-${i}`, contact: { email: 'bruno@example.com' } },
      }),
      tasks: (i) => ({
        op: 'create',
        data: { name: `T${i}`, category: `K${i}`, deal_id: ids.deal, owner: { email: 'ana@example.com' } },
      }),
    };
    for (const [resource, item] of Object.entries(items)) {
      const body = { items: Array.from({ length: 100 }, (_, i) => item(i)) };
      expect(await tripsOf(`/v1/${resource}/batch`, { method: 'POST', key, body }, 200), resource).toBe(2);
      expect(await tripsOf(`/v1/${resource}/export`, { key }, 200), resource).toBe(1);
    }
  });
});
