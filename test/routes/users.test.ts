import { describe, expect, it } from 'vitest';
import { allIds, call, create, expectProblem, type Json, json, newAccount, resource } from '../helpers';

const { get, listIds, put } = resource('/v1/users');

describe('users', () => {
  it('creates, reads, updates and lists users', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/users', {
      method: 'POST',
      key,
      body: { name: ' Ana ', email: 'Ana@Example.com' },
    });
    expect(res.status).toBe(201);
    const { data: user } = await json(res);
    expect(user).toMatchObject({ name: 'Ana', email: 'Ana@Example.com' });
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/users/${user.id}`);
    expect(user.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const got = await json(await call(`/v1/users/${user.id}`, { key }));
    expect(got.data).toEqual(user);

    const put = await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: { name: 'Ana Souza' } });
    expect(put.status).toBe(200);
    const updated = (await json(put)).data;
    expect(updated).toMatchObject({ name: 'Ana Souza', email: 'Ana@Example.com' });
    expect(updated.updated_at > user.updated_at).toBe(true);

    const list = await json(await call('/v1/users', { key }));
    expect(list.data.map((u: { id: number }) => u.id)).toEqual([user.id]);
    expect(list.meta).toEqual({ limit: 25, next_cursor: null });
  });

  it('rejects a second user with the same email in any case with 409', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/users', { name: 'A', email: 'dup@example.com' });
    const res = await call('/v1/users', {
      method: 'POST',
      key,
      body: { name: 'B', email: 'DUP@example.com' },
    });
    const body = await expectProblem(res, 409, 'conflict');
    expect(body.errors[0].path).toBe('email');
  });
});

describe('users: lists', () => {
  it('filters by email, name__contains and created_at, sorts by name both ways and pages to the end', async () => {
    const { key } = await newAccount();
    const names = ['Érica Luz', 'bruno', 'Ana_1', 'Ana%2', 'carla'];
    const users: Json[] = [];
    for (const [i, name] of names.entries())
      users.push(await create(key, '/v1/users', { name, email: `u${i}@Example.com` }));
    const id = (name: string) => users.find((u) => u.name === name)?.id;

    expect(await listIds(key, { email: 'U1@EXAMPLE.COM' })).toEqual([id('bruno')]);
    expect(await listIds(key, { name__contains: 'ÉRI' })).toEqual([id('Érica Luz')]);
    expect(await listIds(key, { name__contains: '_' })).toEqual([id('Ana_1')]);
    expect(await listIds(key, { name__contains: '%' })).toEqual([id('Ana%2')]);
    const first = users[0].created_at.slice(0, 10);
    const last = users[4].created_at.slice(0, 10);
    expect((await listIds(key, { created_at__gte: first, created_at__lte: last })).length).toBe(5);
    expect(await listIds(key, { created_at__lt: first })).toEqual([]);
    expect(await listIds(key, { created_at__gt: last })).toEqual([]);

    const byName = ['Ana%2', 'Ana_1', 'bruno', 'carla', 'Érica Luz'].map(id);
    expect(await allIds(key, '/v1/users?sort=name&limit=2')).toEqual(byName);
    expect(await allIds(key, '/v1/users?sort=-name&limit=2')).toEqual(byName.toReversed());
    expect(await allIds(key, '/v1/users?limit=2')).toEqual(users.map((u) => u.id).toReversed());
  });

  it("name__contains works with a 255-character value (past D1's 50-byte LIKE pattern limit)", async () => {
    const { key } = await newAccount();
    const long = `${'Çá'.repeat(127)}Z`;
    const user = await create(key, '/v1/users', { name: long, email: 'long@example.com' });
    await create(key, '/v1/users', { name: 'short', email: 'short@example.com' });
    expect(await listIds(key, { name__contains: long.toUpperCase() })).toEqual([user.id]);
    expect(await listIds(key, { name__contains: long.slice(1) })).toEqual([user.id]);
  });

  it("never shows or changes another account's users", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const ofB = await create(b.key, '/v1/users', { name: 'Bia', email: 'bia@b.com' });
    expect(await listIds(a.key, { email: 'bia@b.com' })).toEqual([]);
    await expectProblem(await call(`/v1/users/${ofB.id}`, { key: a.key }), 404, 'not_found');
    await expectProblem(await put(a.key, ofB.id, { name: 'Hijacked' }), 404, 'not_found');
    expect((await get(b.key, ofB.id)).name).toBe('Bia');
    // The same email is free in another account.
    expect((await create(a.key, '/v1/users', { name: 'Bia A', email: 'BIA@b.com' })).email).toBe('BIA@b.com');
  });
});
