import { describe, expect, it } from 'vitest';
import { create, type Json, json, list, newAccount } from '../../helpers';
import { contacts, deals, get, nextCnpj, put } from './support';

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
