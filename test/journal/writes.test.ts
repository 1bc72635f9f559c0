import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import { accountsOnShard, call, create, newAccount, newWebhook } from '../helpers';
import { runEvent } from '../queue/webhook-support';
import { runImport } from '../routes/bulk/import-support';
import { entriesOf, versionOf } from './helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

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

describe('the change journal of batch writes and imports', () => {
  it('a batch appends one entry per record it writes, none for an upsert that changes nothing', async () => {
    const { id: accountId, key, keyId } = await newAccount();
    const beta = withCheckDigits('990000010001');
    const items = [
      { op: 'create', data: { name: 'Acme', cnpj: '11222333000181' } },
      { op: 'upsert', data: { name: 'Beta', cnpj: beta, external_id: 'B-1' } },
    ];
    const batch = (body: object) => call('/v1/companies/batch', { method: 'POST', key, body });
    const first = await batch({ items });
    expect(first.status, await first.clone().text()).toBe(200);
    const res = await batch({
      items: [
        { op: 'upsert', data: { name: 'Beta SA', cnpj: beta, external_id: 'B-1' } },
        { op: 'upsert', data: { name: 'Acme', cnpj: '11.222.333/0001-81' } },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const entries = await entriesOf(accountId, 'company');
    expect(entries.map((e) => [e.type, e.version, e.data?.name])).toEqual([
      ['company.created', 1, 'Acme'],
      ['company.created', 1, 'Beta'],
      ['company.updated', 2, 'Beta SA'],
    ]);
    expect(entries.every((e) => e.actor.type === 'api_key' && e.actor.id === keyId)).toBe(true);
    // An atomic batch that fails leaves no entry.
    const failed = await batch({
      atomic: true,
      items: [
        { op: 'create', data: { name: 'Gama', cnpj: withCheckDigits('990000020001') } },
        { op: 'update', id: 999999, data: { name: 'X' } },
      ],
    });
    expect(failed.status).toBe(404);
    expect(await entriesOf(accountId, 'company')).toHaveLength(3);
  });

  it('an import appends an entry per record its chunks write, the importing key as actor', async () => {
    const { id: accountId, key, keyId } = await newAccount();
    const done = await runImport(
      key,
      'resource=contacts',
      'Nome;E-mail\r\nAna;ana@example.com\r\nBia;bia@example.com\r\n',
    );
    expect(done).toMatchObject({ status: 'completed', counts: { created: 2 } });
    const entries = await entriesOf(accountId, 'contact');
    expect(entries.map((e) => [e.type, e.version, e.data?.name])).toEqual([
      ['contact.created', 1, 'Ana'],
      ['contact.created', 1, 'Bia'],
    ]);
    expect(entries[0]?.actor).toEqual({ type: 'api_key', id: keyId });
  });
});

describe('the change journal of inbound webhook flows', () => {
  const fields = [
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'telefone', type: 'phone', target: 'contact.phone' },
    { key: 'cnpj', type: 'cnpj', target: 'company.cnpj' },
    { key: 'empresa', type: 'string', target: 'company.name' },
  ];
  const flows = [
    { action: 'upsert_company' },
    { action: 'upsert_contact', match_on: ['phone'] },
    { action: 'create_deal', name: 'Lead {{nome}}' },
    { action: 'create_task', name: 'Ligar', category: 'Follow-up' },
  ];

  it('appends one entry per record an event writes, with the webhook and event as actor', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, { fields, flows });
    const body = { nome: 'Ana', telefone: '11987654321', cnpj: '11222333000181', empresa: 'Acme' };
    const first = await runEvent(key, hook, body);
    expect(first.status).toBe('processed');
    const created = await entriesOf(accountId);
    expect(created.map((e) => e.type).sort()).toEqual([
      'company.created',
      'contact.created',
      'deal.created',
      'task.created',
    ]);
    for (const entry of created) {
      expect(entry.actor).toEqual({ type: 'webhook', id: hook.id, event_id: first.id });
      expect(entry.version).toBe(1);
    }
    // The contact is linked to the company in the same batch: its one entry already holds it.
    const contact = created.find((e) => e.record_type === 'contact');
    expect(contact?.data?.companyId).toBe(first.result.company_id);

    // The same person again, with a new name: the contact and company are updated, a new deal and task made.
    const second = await runEvent(key, hook, { ...body, nome: 'Ana Souza', empresa: 'Acme SA' });
    expect(second.status).toBe('processed');
    const contactEntries = await entriesOf(accountId, 'contact', first.result.contact_id);
    expect(contactEntries.map((e) => [e.type, e.version])).toEqual([
      ['contact.created', 1],
      ['contact.updated', 2],
    ]);
    expect(contactEntries[1]?.previous?.name).toBe('Ana');
    expect(contactEntries[1]?.data?.name).toBe('Ana Souza');
    expect(contactEntries[1]?.actor).toEqual({ type: 'webhook', id: hook.id, event_id: second.id });

    // Nothing new: no contact or company entry, their versions stay.
    await runEvent(key, hook, { ...body, nome: 'Ana Souza', empresa: 'Acme SA' });
    console.log(
      await versionOf('contacts', first.result.contact_id),
      JSON.stringify(
        (
          await env.DB.prepare(
            "select seq, account_id, type, record_id, version from journal_entries where record_type = 'contact'",
          ).all()
        ).results,
      ),
    );
    expect(await entriesOf(accountId, 'contact')).toHaveLength(2);
    expect(await entriesOf(accountId, 'company')).toHaveLength(2);
    expect(await versionOf('contacts', first.result.contact_id)).toBe(2);
  });
});

describe('the change journal of LGPD erasure', () => {
  it('appends contact.erased with no data, blanks the earlier entries and journals the deals that lose it', async () => {
    const { id: accountId, key, keyId } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Zuleica', phone: '+55 11 97777-6666' });
    await call(`/v1/contacts/${contact.id}`, { method: 'PUT', key, body: { email: 'z@example.com' } });
    const deal = await create(key, '/v1/deals', { name: 'Deal', contact_id: contact.id });
    const res = await call(`/v1/contacts/${contact.id}?erase=true`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    const entries = await entriesOf(accountId, 'contact', contact.id);
    expect(entries.map((e) => [e.type, e.version, e.data, e.previous])).toEqual([
      ['contact.created', 1, null, null],
      ['contact.updated', 2, null, null],
      ['contact.erased', 3, null, null],
    ]);
    expect(JSON.stringify(await entriesOf(accountId))).not.toContain('6666');
    const dealEntries = await entriesOf(accountId, 'deal', deal.id);
    expect(dealEntries.map((e) => [e.type, e.version, e.previous?.contactId, e.data?.contactId])).toEqual([
      ['deal.created', 1, undefined, contact.id],
      ['deal.updated', 2, contact.id, null],
    ]);
    expect(dealEntries[1]?.actor).toEqual({ type: 'api_key', id: keyId });
  });
});

describe('a write that fails leaves no entry', () => {
  it('a refused create, a refused update and an update of a trashed record append nothing', async () => {
    const { id: accountId, key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    // A duplicate CNPJ fails inside the write batch (the unique index): the batch rolls back.
    let res = await call('/v1/companies', {
      method: 'POST',
      key,
      body: { name: 'Twin', cnpj: '11222333000181' },
    });
    expect(res.status).toBe(409);
    res = await call(`/v1/companies/${company.id}`, { method: 'PUT', key, body: { owner_id: 999999999 } });
    expect(res.status).toBe(422);
    expect((await call(`/v1/companies/${company.id}`, { method: 'DELETE', key })).status).toBe(204);
    res = await call(`/v1/companies/${company.id}`, { method: 'PUT', key, body: { name: 'Ghost' } });
    expect(res.status).toBe(404);
    expect((await entriesOf(accountId)).map((e) => e.type)).toEqual(['company.created', 'company.deleted']);
    expect(await versionOf('companies', company.id)).toBe(2);
  });

  it('refuses __proto__ and constructor as field names before any write: no entry', async () => {
    const { id: accountId, key } = await newAccount();
    for (const name of ['__proto__', 'constructor']) {
      const body = JSON.parse(`{"name": "D", "custom_fields": {"${name}": "x"}}`);
      const res = await call('/v1/deals', { method: 'POST', key, body });
      expect(res.status).toBe(422);
    }
    expect(await entriesOf(accountId)).toEqual([]);
  });
});
