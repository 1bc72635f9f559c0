import { describe, expect, it } from 'vitest';
import { create, expectProblem, type Json, json, list, newAccount } from '../../helpers';
import { get, insertUsers, newUserId, nextCnpj, post, put } from './support';

describe('companies: followers', () => {
  it('collapses duplicate follower_ids and returns them sorted ascending', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    const u2 = await newUserId(key, 'F2');
    const u3 = await newUserId(key, 'F3');
    const company = await create(key, '/v1/companies', {
      name: 'Followed',
      cnpj: nextCnpj(),
      follower_ids: [u3, u2, u3, u1, u2, u3],
    });
    expect(company.follower_ids).toEqual([u1, u2, u3]);
    expect((await get(key, company.id)).follower_ids).toEqual([u1, u2, u3]);
    const single = await create(key, '/v1/companies', {
      name: 'One',
      cnpj: nextCnpj(),
      follower_ids: [u2, u2],
    });
    expect(single.follower_ids).toEqual([u2]);
  });

  it('names the follower that is not a user of the account: follower_ids.N, code not_found', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    const u2 = await newUserId(key, 'F2');

    const third = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(third.errors).toEqual([expect.objectContaining({ path: 'follower_ids.2', code: 'not_found' })]);

    // The index is the one in the body as sent, before duplicates collapse.
    const afterDuplicate = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u2, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(afterDuplicate.errors[0]).toMatchObject({ path: 'follower_ids.2', code: 'not_found' });

    const two = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, 999_998, u2, 999_999] }),
      422,
      'validation_failed',
    );
    expect(two.errors.map((e: Json) => e.path).sort()).toEqual(['follower_ids.1', 'follower_ids.3']);
    expect(two.errors.every((e: Json) => e.code === 'not_found')).toBe(true);

    const withOwner = await expectProblem(
      await post(key, { name: 'X', cnpj: nextCnpj(), owner_id: 999_997, follower_ids: [999_996] }),
      422,
    );
    expect(withOwner.errors.map((e: Json) => e.path).sort()).toEqual(['follower_ids.0', 'owner_id']);
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('rejects follower_ids that are null, not an array, or hold non-ids with 422 on the field', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'F1');
    for (const follower_ids of [null, u1, String(u1), { 0: u1 }]) {
      const body = await expectProblem(
        await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, JSON.stringify(follower_ids)).toBe('follower_ids');
    }
    for (const bad of [0, -1, 1.5, String(u1), null, [u1]]) {
      const body = await expectProblem(
        await post(key, { name: 'X', cnpj: nextCnpj(), follower_ids: [u1, bad] }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, JSON.stringify(bad)).toBe('follower_ids.1');
    }
    expect((await list(key, '/v1/companies')).data).toEqual([]);
  });

  it('accepts 100 followers and rejects 101 with 422 on follower_ids', async () => {
    const { id: accountId, key } = await newAccount();
    const users = await insertUsers(accountId, 101);
    const hundred = users.slice(0, 100);
    const company = await create(key, '/v1/companies', {
      name: 'Popular',
      cnpj: nextCnpj(),
      follower_ids: [...hundred].reverse(),
    });
    expect(company.follower_ids).toEqual(hundred);
    expect((await get(key, company.id)).follower_ids).toEqual(hundred);

    const body = await expectProblem(
      await post(key, { name: 'Too popular', cnpj: nextCnpj(), follower_ids: users }),
      422,
      'validation_failed',
    );
    expect(body.errors[0].path).toMatch(/^follower_ids/);
    await expectProblem(await put(key, company.id, { follower_ids: users }), 422, 'validation_failed');
    expect((await get(key, company.id)).follower_ids).toEqual(hundred);
  });

  it('follower_ids on PUT replaces the whole set; absent keeps it; [] clears it', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const u3 = await newUserId(key, 'U3');
    const u4 = await newUserId(key, 'U4');
    const company = await create(key, '/v1/companies', {
      name: 'F',
      cnpj: nextCnpj(),
      follower_ids: [u1, u2],
    });
    expect(company.follower_ids).toEqual([u1, u2]);

    const replaced = await put(key, company.id, { follower_ids: [u4, u3, u4] });
    expect(replaced.status).toBe(200);
    expect((await json(replaced)).data.follower_ids).toEqual([u3, u4]);
    expect((await get(key, company.id)).follower_ids).toEqual([u3, u4]);

    const kept = await put(key, company.id, { name: 'F2', segment: 'Serviços' });
    expect((await json(kept)).data.follower_ids).toEqual([u3, u4]);
    expect((await get(key, company.id)).follower_ids).toEqual([u3, u4]);

    const overlap = await put(key, company.id, { follower_ids: [u1, u4] });
    expect((await json(overlap)).data.follower_ids).toEqual([u1, u4]);

    const cleared = await put(key, company.id, { follower_ids: [] });
    expect(cleared.status).toBe(200);
    expect((await json(cleared)).data.follower_ids).toEqual([]);
    expect((await get(key, company.id)).follower_ids).toEqual([]);

    const again = await put(key, company.id, { follower_ids: [u2] });
    expect((await json(again)).data.follower_ids).toEqual([u2]);
  });

  it('rejects follower_ids: null and a bad follower on PUT, leaving the set as it was', async () => {
    const { key } = await newAccount();
    const u1 = await newUserId(key, 'U1');
    const u2 = await newUserId(key, 'U2');
    const company = await create(key, '/v1/companies', { name: 'F', cnpj: nextCnpj(), follower_ids: [u1] });

    const nulled = await expectProblem(
      await put(key, company.id, { follower_ids: null }),
      422,
      'validation_failed',
    );
    expect(nulled.errors[0].path).toBe('follower_ids');

    const bad = await expectProblem(
      await put(key, company.id, { name: 'Changed', follower_ids: [u2, u1, 999_999] }),
      422,
      'validation_failed',
    );
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'follower_ids.2', code: 'not_found' })]);
    expect(await get(key, company.id)).toEqual(company);
  });
});
