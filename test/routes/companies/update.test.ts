import { describe, expect, it } from 'vitest';
import { mask } from '../../cnpj';
import {
  create,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  ISO_MS,
  json,
  ms,
  newAccount,
  writable,
} from '../../helpers';
import { companyWithEveryField, get, newUserId, nextCnpj, put } from './support';

describe('companies: update', () => {
  it('PUT is partial: absent fields stay and null clears owner_id, segment and observations', async () => {
    const { key, follower, company } = await companyWithEveryField('Partial', ['follower']);

    const renamed = await put(key, company.id, { name: '  Renamed  ' });
    expect(renamed.status).toBe(200);
    const afterRename = (await json(renamed)).data;
    expect(afterRename).toEqual({ ...company, name: 'Renamed', updated_at: expect.stringMatching(ISO_MS) });

    const cleared = await put(key, company.id, { owner_id: null, segment: null, observations: null });
    expect(cleared.status).toBe(200);
    const afterClear = (await json(cleared)).data;
    expect(afterClear).toEqual({
      ...company,
      name: 'Renamed',
      owner_id: null,
      segment: null,
      observations: null,
      follower_ids: [follower],
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(await get(key, company.id)).toEqual(afterClear);

    const set = (await json(await put(key, company.id, { owner_id: follower, segment: 'Indústria' }))).data;
    expect(set).toMatchObject({
      owner_id: follower,
      segment: 'Indústria',
      observations: null,
      name: 'Renamed',
    });

    const empty = await put(key, company.id, {});
    expect(empty.status).toBe(200);
    expect((await json(empty)).data).toMatchObject({
      name: 'Renamed',
      cnpj: company.cnpj,
      owner_id: follower,
      segment: 'Indústria',
      follower_ids: [follower],
    });
  });

  it('accepts back what GET returns without its read-only fields (and refuses it with them), masked cnpj too', async () => {
    const { key, owner, follower, company } = await companyWithEveryField('Round Trip', [
      'follower',
      'owner',
    ]);
    await create(key, '/v1/deals', { name: 'Open deal', company_id: company.id });
    await create(key, '/v1/contacts', { name: 'Lead', company_id: company.id });
    const got = await get(key, company.id);
    expect(got).toMatchObject({ deal_count: 1, lead_count: 1, follower_ids: [owner, follower] });

    await expectReadOnly(await put(key, company.id, got), [
      'id',
      'deal_count',
      'lead_count',
      'created_at',
      'updated_at',
      'deleted_at',
    ]);
    expect(await get(key, company.id)).toEqual(got);

    const res = await put(key, company.id, writable(got, ['deal_count', 'lead_count']));
    expect(res.status).toBe(200);
    const back = (await json(res)).data;
    expect(back).toEqual({ ...got, updated_at: expect.stringMatching(ISO_MS) });
    expect(ms(back.updated_at)).toBeGreaterThan(ms(got.updated_at));

    const masked = await put(key, company.id, {
      ...writable(back, ['deal_count', 'lead_count']),
      cnpj: mask(back.cnpj),
    });
    expect(masked.status).toBe(200);
    const after = (await json(masked)).data;
    expect(after).toEqual({ ...got, updated_at: expect.stringMatching(ISO_MS) });
    expect(await get(key, company.id)).toEqual(after);
  });

  it('PUT rejects unknown fields and invalid values, and changes nothing', async () => {
    const { key, owner, company } = await companyWithEveryField('Strict', ['owner']);

    await expectUnknownField(await put(key, company.id, { colour: 'red' }), 'colour');

    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ segment: 's'.repeat(256) }, 'segment'],
      [{ observations: 'o'.repeat(10_001) }, 'observations'],
      [{ owner_id: 999_999 }, 'owner_id'],
      [{ owner_id: 'x' }, 'owner_id'],
      [{ follower_ids: null }, 'follower_ids'],
      [{ follower_ids: [owner, owner, 999_999] }, 'follower_ids.2'],
      [{ name: 'Changed', owner_id: 999_999 }, 'owner_id'],
    ] as [Record<string, unknown>, string][]) {
      const problem = await expectProblem(await put(key, company.id, body), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body).slice(0, 80)).toBe(path);
    }
    const notFound = await expectProblem(await put(key, company.id, { owner_id: 999_999 }), 422);
    expect(notFound.errors[0].code).toBe('not_found');
    expect(await get(key, company.id)).toEqual(company);
  });

  it('updated_at strictly increases on every successful PUT while created_at stays', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const company = await create(key, '/v1/companies', { name: 'T', cnpj: nextCnpj() });
    let previous = company.updated_at;
    for (const body of [
      { name: 'T1' },
      { follower_ids: [u1] },
      { follower_ids: [] },
      { segment: 'S' },
      { cnpj: company.cnpj },
      {},
    ]) {
      const res = await put(key, company.id, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const { data } = await json(res);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(ms(data.updated_at), JSON.stringify(body)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(company.created_at);
      previous = data.updated_at;
    }
  });
});
