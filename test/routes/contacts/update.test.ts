import { describe, expect, it } from 'vitest';
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
import { get, put } from './support';

describe('contacts: update', () => {
  it('PUT is partial: absent fields stay and null clears nullable fields', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'O', email: 'o@example.com' });
    const contact = await create(key, '/v1/contacts', {
      name: 'Partial',
      email: 'p@example.com',
      phone: '+1 415 555 2671',
      owner_id: owner.id,
      custom_fields: { k: 'v' },
    });

    const renamed = await put(key, contact.id, { name: '  Renamed  ' });
    expect(renamed.status).toBe(200);
    const afterRename = (await json(renamed)).data;
    expect(afterRename).toEqual({
      ...contact,
      name: 'Renamed',
      updated_at: expect.stringMatching(ISO_MS),
    });

    const cleared = await put(key, contact.id, { email: null, phone: null, owner_id: null });
    expect(cleared.status).toBe(200);
    const afterClear = (await json(cleared)).data;
    expect(afterClear).toMatchObject({
      id: contact.id,
      name: 'Renamed',
      email: null,
      phone: null,
      owner_id: null,
      custom_fields: { k: 'v' },
      created_at: contact.created_at,
    });
    expect(await get(key, contact.id)).toEqual(afterClear);

    const phoned = (await json(await put(key, contact.id, { phone: '(21) 3456-7890' }))).data;
    expect(phoned.phone).toBe('+552134567890');

    const empty = await put(key, contact.id, {});
    expect(empty.status).toBe(200);
    expect((await json(empty)).data).toMatchObject({ name: 'Renamed', phone: '+552134567890', email: null });
  });

  it('PUT replaces custom_fields whole', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'CF', custom_fields: { a: 1, b: 'two' } });
    const res = await put(key, contact.id, { custom_fields: { c: true } });
    expect(res.status).toBe(200);
    expect((await json(res)).data.custom_fields).toEqual({ c: true });
    expect((await get(key, contact.id)).custom_fields).toEqual({ c: true });

    const emptied = (await json(await put(key, contact.id, { custom_fields: {} }))).data;
    expect(emptied.custom_fields).toEqual({});

    await expectProblem(await put(key, contact.id, { custom_fields: { x: { y: 1 } } }), 422);
    expect((await get(key, contact.id)).custom_fields).toEqual({});
  });

  it('updated_at strictly increases on every PUT while created_at stays', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'T' });
    let previous = contact.updated_at;
    for (let i = 0; i < 4; i++) {
      const res = await put(key, contact.id, { name: `T${i}` });
      expect(res.status).toBe(200);
      const { data } = await json(res);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(ms(data.updated_at)).toBeGreaterThan(ms(previous));
      expect(data.created_at).toBe(contact.created_at);
      previous = data.updated_at;
    }
  });

  it('PUT refuses read-only fields, unknown fields and invalid values', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'RO', email: 'ro@example.com' });
    await expectReadOnly(
      await put(key, contact.id, { id: contact.id + 1, created_at: '2000-01-01T00:00:00.000Z', name: 'RO2' }),
      ['id', 'created_at'],
    );
    expect(await get(key, contact.id)).toEqual(contact);
    const res = await put(key, contact.id, { ...writable(contact), name: 'RO2' });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ id: contact.id, name: 'RO2', created_at: contact.created_at });
    expect(ms(data.updated_at)).toBeGreaterThan(ms(contact.updated_at));

    await expectUnknownField(await put(key, contact.id, { colour: 'red' }), 'colour');

    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ name: '  ' }, 'name'],
      [{ email: 'nope' }, 'email'],
      [{ phone: 'abc' }, 'phone'],
      [{ owner_id: 999_999 }, 'owner_id'],
      [{ company_id: 999_999 }, 'company_id'],
    ] as [Record<string, unknown>, string][]) {
      const problem = await expectProblem(await put(key, contact.id, body), 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
    expect(await get(key, contact.id)).toEqual(data);
  });
});
