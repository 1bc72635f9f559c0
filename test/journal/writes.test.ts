import { describe, expect, it } from 'vitest';
import { call, create, newAccount } from '../helpers';
import { entriesOf, versionOf } from './helpers';

describe('the change journal of /v1 writes', () => {
  it('appends created, updated, deleted and restored entries with versions and the key as actor', async () => {
    const { id: accountId, key, keyId } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    let res = await call(`/v1/companies/${company.id}`, { method: 'PUT', key, body: { name: 'Acme SA' } });
    expect(res.status, await res.clone().text()).toBe(200);
    res = await call(`/v1/companies/${company.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    res = await call(`/v1/companies/${company.id}/restore`, { method: 'POST', key });
    expect(res.status, await res.clone().text()).toBe(200);
    const entries = await entriesOf(accountId, 'company', company.id);
    expect(entries.map((e) => [e.type, e.version])).toEqual([
      ['company.created', 1],
      ['company.updated', 2],
      ['company.deleted', 3],
      ['company.restored', 4],
    ]);
    expect(entries.every((e) => /^evt_[0-9a-f]{24}$/.test(e.id))).toBe(true);
    expect(entries[0]?.actor).toEqual({ type: 'api_key', id: keyId });
    expect(entries[1]?.previous?.name).toBe('Acme');
    expect(entries[1]?.data?.name).toBe('Acme SA');
    expect(await versionOf('companies', company.id)).toBe(4);
  });

  it('writes no entry and keeps the version for an update that changes nothing', async () => {
    const { id: accountId, key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    const res = await call(`/v1/companies/${company.id}`, { method: 'PUT', key, body: { name: 'Acme' } });
    expect(res.status).toBe(200);
    expect((await entriesOf(accountId)).map((e) => e.type)).toEqual(['company.created']);
    expect(await versionOf('companies', company.id)).toBe(1);
  });
});
