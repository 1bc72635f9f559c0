import { describe, expect, it } from 'vitest';
import { allIds, create, idsOf, newAccount, pageWithNext } from '../../helpers';
import { insertCompanyAt, listIds, nextCnpj } from './support';

describe('companies: list and pagination', () => {
  it('pages with next_cursor and a Link rel="next" header', async () => {
    const { id: accountId, key } = await newAccount();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await insertCompanyAt(accountId, `C${i}`, Date.UTC(2024, 0, 1 + i)));

    const { page: page1 } = await pageWithNext(key, '/v1/companies?limit=2');
    expect(idsOf(page1)).toEqual([ids[4], ids[3]]);
    expect(page1.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    expect(await allIds(key, '/v1/companies?limit=2')).toEqual([...ids].reverse());
  });

  it('sorts by name (case-insensitive) and created_at in both directions; default is -created_at', async () => {
    const { id: accountId, key } = await newAccount();
    const day = (d: number) => Date.UTC(2024, 0, d);
    const bravo = await insertCompanyAt(accountId, 'bravo', day(1));
    const delta = await insertCompanyAt(accountId, 'DELTA', day(2));
    const alpha = await insertCompanyAt(accountId, 'Alpha', day(3));
    const echo = await insertCompanyAt(accountId, 'echo', day(4));
    const charlie = await insertCompanyAt(accountId, 'Charlie', day(5));

    const byName = [alpha, bravo, charlie, delta, echo];
    const byCreated = [bravo, delta, alpha, echo, charlie];
    expect(await listIds(key, { sort: 'name' })).toEqual(byName);
    expect(await listIds(key, { sort: '-name' })).toEqual([...byName].reverse());
    expect(await listIds(key, { sort: 'created_at' })).toEqual(byCreated);
    expect(await listIds(key, { sort: '-created_at' })).toEqual([...byCreated].reverse());
    expect(await listIds(key, {})).toEqual([...byCreated].reverse());

    for (const limit of ['1', '2', '3']) {
      expect(await allIds(key, `/v1/companies?sort=name&limit=${limit}`)).toEqual(byName);
      expect(await allIds(key, `/v1/companies?sort=-name&limit=${limit}`)).toEqual([...byName].reverse());
      expect(await allIds(key, `/v1/companies?sort=created_at&limit=${limit}`)).toEqual(byCreated);
      expect(await allIds(key, `/v1/companies?sort=-created_at&limit=${limit}`)).toEqual(
        [...byCreated].reverse(),
      );
      expect(await allIds(key, `/v1/companies?limit=${limit}`)).toEqual([...byCreated].reverse());
    }
  });

  it('sorts names created through the API case-insensitively, accents and other scripts included', async () => {
    const { key } = await newAccount();
    const names = ['zeta', 'Ábaco', 'Beta', 'alfa', 'ÉPICO', 'Жук', 'émile'];
    const ids: Record<string, number> = {};
    for (const name of names) ids[name] = (await create(key, '/v1/companies', { name, cnpj: nextCnpj() })).id;
    // Lower-cased code-point order: alfa, beta, zeta, ábaco, émile, épico, жук.
    const asc = ['alfa', 'Beta', 'zeta', 'Ábaco', 'émile', 'ÉPICO', 'Жук'].map((n) => ids[n]);
    expect(await allIds(key, '/v1/companies?sort=name&limit=2')).toEqual(asc);
    expect(await allIds(key, '/v1/companies?sort=-name&limit=3')).toEqual([...asc].reverse());
  });

  it('breaks name and created_at ties by id in the sort direction across pages', async () => {
    const { id: accountId, key } = await newAccount();
    const t = Date.UTC(2024, 6, 1);
    const early = [
      await insertCompanyAt(accountId, 'Early', t - 10),
      await insertCompanyAt(accountId, 'aardvark', t - 10),
    ];
    const tied: number[] = [];
    // Same created_at and (case-insensitively) the same name: only the id can order them.
    for (const name of ['Tied', 'TIED', 'tied', 'Tied', 'tIeD', 'Tied', 'TIED']) {
      tied.push(await insertCompanyAt(accountId, name, t));
    }
    const late = await insertCompanyAt(accountId, 'Late', t + 10);

    const byCreated = [...early, ...tied, late];
    const asc = await allIds(key, '/v1/companies?sort=created_at&limit=2');
    expect(asc).toEqual(byCreated);
    expect(new Set(asc).size).toBe(byCreated.length);
    expect(await allIds(key, '/v1/companies?sort=-created_at&limit=2')).toEqual([...byCreated].reverse());
    expect(await allIds(key, '/v1/companies?limit=3')).toEqual([...byCreated].reverse());

    // aardvark < early < late < tied (case-insensitive), the seven "tied" by id.
    const byName = [early[1] as number, early[0] as number, late, ...tied];
    expect(await allIds(key, '/v1/companies?sort=name&limit=2')).toEqual(byName);
    expect(await allIds(key, '/v1/companies?sort=-name&limit=2')).toEqual([...byName].reverse());
  });
});
