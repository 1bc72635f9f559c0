import { describe, expect, it } from 'vitest';
import {
  call,
  create,
  expectProblem,
  expectReadOnly,
  ISO_MS,
  idsOf,
  insertCompany,
  type Json,
  json,
  list,
  ms,
  newAccount,
} from '../../helpers';
import { get } from './support';

describe('contacts: create and read', () => {
  it('creates a contact with every field: 201, Location, E.164 phone, and GET returns the same', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'Owner', email: 'owner@example.com' });
    const res = await call('/v1/contacts', {
      method: 'POST',
      key,
      body: {
        name: '  Maria Silva  ',
        email: 'Maria@Example.com',
        phone: '(11) 98765-4321',
        owner_id: owner.id,
        custom_fields: { source: 'web', score: 7, vip: true, note: null },
      },
    });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test/v1/contacts/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Maria Silva',
      email: 'Maria@Example.com',
      phone: '+5511987654321',
      company_id: null,
      owner_id: owner.id,
      custom_fields: { source: 'web', score: 7, vip: true, note: null },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      external_id: null,
      deleted_at: null,
    });
    expect(data.updated_at).toBe(data.created_at);
    expect(await get(key, data.id)).toEqual(data);
  });

  it('defaults every optional field to null and custom_fields to {}', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Bare' });
    expect(contact).toMatchObject({
      name: 'Bare',
      email: null,
      phone: null,
      company_id: null,
      owner_id: null,
      custom_fields: {},
    });
  });

  it('requires a name of 1..255 characters after trimming (422 on path name)', async () => {
    const { key } = await newAccount();
    const missing = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { email: 'a@b.co' } }),
      422,
      'validation_failed',
    );
    expect(missing.errors[0]).toMatchObject({ path: 'name', code: 'required' });

    for (const name of ['', '   ', 'x'.repeat(256), 42, null]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toBe('name');
    }
    expect((await create(key, '/v1/contacts', { name: 'y'.repeat(255) })).name).toHaveLength(255);
  });

  it('normalises Brazilian and international phone numbers to E.164', async () => {
    const { key } = await newAccount();
    const cases: [string, string][] = [
      ['(11) 98765-4321', '+5511987654321'],
      ['+55 11 98765-4321', '+5511987654321'],
      ['011 98765-4321', '+5511987654321'],
      ['+1 415 555 2671', '+14155552671'],
    ];
    for (const [input, expected] of cases) {
      const contact = await create(key, '/v1/contacts', { name: `Phone ${input}`, phone: input });
      expect(contact.phone, input).toBe(expected);
      expect((await get(key, contact.id)).phone, input).toBe(expected);
    }
  });

  it('rejects unreadable phone numbers with 422 on path phone', async () => {
    const { key } = await newAccount();
    for (const phone of ['abc', '123', '+', '(11) 9876', 12345678901]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'P', phone } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(phone)).toBe('phone');
    }
    const list = await json(await call('/v1/contacts', { key }));
    expect(list.data).toEqual([]);
  });

  it('rejects an invalid email with 422 on path email and accepts null', async () => {
    const { key } = await newAccount();
    for (const email of ['not-an-email', 'a@', '', 7]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'E', email } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(email)).toBe('email');
    }
    expect((await create(key, '/v1/contacts', { name: 'E', email: null })).email).toBeNull();
  });

  it('rejects a company_id or owner_id that is not a row of the account with 422 on the field', async () => {
    const { key } = await newAccount();
    const company = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', company_id: 999_999 } }),
      422,
      'validation_failed',
    );
    expect(company.errors).toEqual([expect.objectContaining({ path: 'company_id' })]);

    const owner = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', owner_id: 999_999 } }),
      422,
      'validation_failed',
    );
    expect(owner.errors).toEqual([expect.objectContaining({ path: 'owner_id' })]);

    const both = await expectProblem(
      await call('/v1/contacts', {
        method: 'POST',
        key,
        body: { name: 'C', owner_id: 999_998, company_id: 999_997 },
      }),
      422,
    );
    expect(both.errors.map((e: Json) => e.path).sort()).toEqual(['company_id', 'owner_id']);

    for (const bad of [0, -1, 1.5, '3']) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'C', owner_id: bad } }),
        422,
      );
      expect(body.errors[0].path).toBe('owner_id');
    }
    expect((await json(await call('/v1/contacts', { key }))).data).toEqual([]);
  });

  it('accepts a company_id of the account', async () => {
    const { id: accountId, key } = await newAccount();
    const companyId = await insertCompany(accountId, 'Acme Ltda', '11222333000181');
    const contact = await create(key, '/v1/contacts', { name: 'At Acme', company_id: companyId });
    expect(contact.company_id).toBe(companyId);
  });

  it('accepts flat custom_fields and rejects nested values with 422', async () => {
    const { key } = await newAccount();
    const fields = { a: 'x', b: 1.5, c: false, d: null };
    expect((await create(key, '/v1/contacts', { name: 'CF', custom_fields: fields })).custom_fields).toEqual(
      fields,
    );
    for (const custom_fields of [{ nested: { deep: 1 } }, { list: [1, 2] }, 'text', [1]]) {
      const body = await expectProblem(
        await call('/v1/contacts', { method: 'POST', key, body: { name: 'CF', custom_fields } }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path).toMatch(/^custom_fields/);
    }
  });

  it('rejects a __proto__ custom field with 422 instead of silently dropping it', async () => {
    const { key } = await newAccount();
    for (const raw of [
      '{"name":"CF","custom_fields":{"__proto__":"a","b":1}}',
      '{"name":"CF","custom_fields":{"__proto__":{"c":1}}}',
    ]) {
      const body = await expectProblem(await call('/v1/contacts', { method: 'POST', key, body: raw }), 422);
      expect(body.errors[0].path).toMatch(/^custom_fields/);
    }
    expect((await json(await call('/v1/contacts', { key }))).data).toEqual([]);
  });

  it('refuses read-only fields with 422 read_only and unknown fields with 422 unknown_field', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 987_654,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'RO', ...readOnly } }),
      Object.keys(readOnly),
    );
    const contact = await create(key, '/v1/contacts', { name: 'RO' });
    expect(Math.abs(ms(contact.created_at) - Date.now())).toBeLessThan(60_000);

    const unknown = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'U', nickname: 'u', account_id: 1 } }),
      422,
      'validation_failed',
    );
    expect(unknown.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'nickname', code: 'unknown_field' }),
        expect.objectContaining({ path: 'account_id', code: 'unknown_field' }),
      ]),
    );
    expect(idsOf(await list(key, '/v1/contacts'))).toEqual([contact.id]);
  });
});
