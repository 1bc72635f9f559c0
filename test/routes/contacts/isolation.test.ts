import { describe, expect, it } from 'vitest';
import { allIds, call, create, expectProblem, newAccount } from '../../helpers';
import { get, listIds, put } from './support';

describe('contacts: tenant isolation', () => {
  it("never lists, reads or changes another account's contacts", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob B', email: 'bob@b.com' });
    const contactB = await create(b.key, '/v1/contacts', {
      name: 'Secret Contact',
      email: 'secret@b.com',
      phone: '(11) 98765-4321',
      owner_id: userB.id,
    });
    const contactA = await create(a.key, '/v1/contacts', { name: 'Mine', phone: '(11) 98765-4321' });

    expect(await listIds(a.key, {})).toEqual([contactA.id]);
    expect(await listIds(a.key, { owner_id: String(userB.id) })).toEqual([]);
    expect(await listIds(a.key, { email: 'secret@b.com' })).toEqual([]);
    expect(await listIds(a.key, { name__contains: 'secret' })).toEqual([]);
    expect(await listIds(a.key, { phone: '+5511987654321' })).toEqual([contactA.id]);
    expect(await listIds(a.key, { created_at__gte: '2000-01-01' })).toEqual([contactA.id]);
    expect(await allIds(a.key, '/v1/contacts?sort=name&limit=1')).toEqual([contactA.id]);

    await expectProblem(await call(`/v1/contacts/${contactB.id}`, { key: a.key }), 404, 'not_found');
    await expectProblem(await put(a.key, contactB.id, { name: 'Hijacked', email: null }), 404, 'not_found');
    await expectProblem(await put(a.key, contactB.id, {}), 404, 'not_found');
    expect(await get(b.key, contactB.id)).toEqual(contactB);
    expect(await listIds(b.key, {})).toEqual([contactB.id]);
  });

  it("rejects another account's user as owner_id with 422", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const userB = await create(b.key, '/v1/users', { name: 'Bob B', email: 'bob@b.com' });
    const post = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key: a.key, body: { name: 'X', owner_id: userB.id } }),
      422,
      'validation_failed',
    );
    expect(post.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);

    const contactA = await create(a.key, '/v1/contacts', { name: 'Mine' });
    const updated = await expectProblem(await put(a.key, contactA.id, { owner_id: userB.id }), 422);
    expect(updated.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);
    expect(await get(a.key, contactA.id)).toEqual(contactA);
    expect(await listIds(a.key, {})).toEqual([contactA.id]);
  });
});
