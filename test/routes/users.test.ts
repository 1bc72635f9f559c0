import { describe, expect, it } from 'vitest';
import { call, create, expectProblem, json, newAccount } from '../helpers';

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
