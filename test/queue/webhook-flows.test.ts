import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  accountWithDeal,
  call,
  create,
  type Json,
  list,
  newAccount,
  newWebhook,
} from '../helpers';
import { deliver, get, ingest, NO_RECORDS, recordCounts, runEvent } from './webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const CNPJ = { masked: '11.222.333/0001-81', bare: '11222333000181' };

const users = async (key: string, n: number): Promise<number[]> => {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await create(key, '/v1/users', { name: `User ${i}`, email: `user${i}@x.com` })).id);
  }
  return ids;
};

/** The account's deals, or task owner rows, per owner: owner id -> how many. */
async function ownerCounts(
  table: 'deals' | 'task_owners',
  accountId: number,
): Promise<Record<number, number>> {
  const column = table === 'deals' ? 'owner_id' : 'user_id';
  const { results } = await env.DB.prepare(
    `SELECT ${column} AS owner, count(*) AS n FROM ${table} WHERE account_id = ? GROUP BY ${column}`,
  )
    .bind(accountId)
    .all<{ owner: number; n: number }>();
  return Object.fromEntries(results.map((r) => [r.owner, r.n]));
}

describe('upsert_contact', () => {
  const fields = [
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'telefone', type: 'phone', target: 'contact.phone' },
    { key: 'email', type: 'email', target: 'contact.email' },
    { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
    { key: 'cor', type: 'string', target: 'contact.custom_fields.cor' },
  ];

  it('matches a contact by phone in any spelling, updates the mapped fields and merges custom fields', async () => {
    const { id: accountId, key } = await newAccount();
    const existing = await create(key, '/v1/contacts', {
      name: 'Ana',
      phone: '+55 (11) 98765-4321',
      email: 'ana@old.com',
      custom_fields: { origem: 'loja', veiculo: 'Gol' },
    });
    const hook = await newWebhook(key, {
      fields,
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const first = await runEvent(key, hook, {
      nome: 'Ana Souza',
      telefone: '11987654321',
      email: 'Ana.Souza@New.com',
      veiculo: 'Onix',
      cor: 'preto',
    });
    expect(first).toMatchObject({ status: 'processed', result: { contact_id: existing.id } });
    const updated = await get(key, `/v1/contacts/${existing.id}`);
    expect(updated).toMatchObject({
      name: 'Ana Souza',
      phone: '+5511987654321',
      email: 'Ana.Souza@New.com',
      custom_fields: { origem: 'loja', veiculo: 'Onix', cor: 'preto' },
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(existing.updated_at));

    for (const telefone of ['011 98765-4321', '0055 11 98765 4321', '+55 11 98765-4321', '(11) 98765 4321']) {
      const event = await runEvent(key, hook, { telefone, cor: telefone });
      expect(event, telefone).toMatchObject({ status: 'processed', result: { contact_id: existing.id } });
    }
    expect(await get(key, `/v1/contacts/${existing.id}`)).toMatchObject({
      // Fields an event does not carry are left as they were.
      name: 'Ana Souza',
      email: 'Ana.Souza@New.com',
      custom_fields: { origem: 'loja', veiculo: 'Onix', cor: '(11) 98765 4321' },
    });
    expect((await recordCounts(accountId)).contacts).toBe(1);
  });

  it('matches a contact by email whatever its case', async () => {
    const { id: accountId, key } = await newAccount();
    const existing = await create(key, '/v1/contacts', { name: 'Ana', email: 'Ana.Souza@Example.com' });
    const hook = await newWebhook(key, {
      fields,
      flows: [{ action: 'upsert_contact', match_on: ['email'] }],
    });
    const event = await runEvent(key, hook, { email: 'ANA.SOUZA@example.COM', veiculo: 'Onix' });
    expect(event).toMatchObject({ status: 'processed', result: { contact_id: existing.id } });
    expect(await get(key, `/v1/contacts/${existing.id}`)).toMatchObject({
      name: 'Ana',
      email: 'ANA.SOUZA@example.COM',
      custom_fields: { veiculo: 'Onix' },
    });
    expect((await recordCounts(accountId)).contacts).toBe(1);
  });

  it('matches on the first key of match_on the event has a value for, and creates a contact when it finds none', async () => {
    const { id: accountId, key } = await newAccount();
    const [owner] = await users(key, 1);
    const byPhone = await create(key, '/v1/contacts', { name: 'Por Telefone', phone: '11987654321' });
    const byEmail = await create(key, '/v1/contacts', {
      name: 'Por Email',
      phone: '21987654321',
      email: 'ana@x.com',
    });
    const hook = await newWebhook(key, {
      fields,
      flows: [{ action: 'upsert_contact', match_on: ['email', 'phone'], owner: { user_id: owner } }],
    });
    const both = await runEvent(key, hook, { email: 'ana@x.com', telefone: '11987654321' });
    expect(both.result.contact_id).toBe(byEmail.id);
    const phoneOnly = await runEvent(key, hook, { telefone: '11987654321' });
    expect(phoneOnly.result.contact_id).toBe(byPhone.id);
    // The email decides, and no contact has it: a new contact, though one has the phone.
    const newEmail = await runEvent(key, hook, {
      nome: 'Nova',
      email: 'nova@x.com',
      telefone: '11987654321',
    });
    expect(newEmail.status).toBe('processed');
    expect([byPhone.id, byEmail.id]).not.toContain(newEmail.result.contact_id);
    expect(await get(key, `/v1/contacts/${newEmail.result.contact_id}`)).toMatchObject({
      name: 'Nova',
      email: 'nova@x.com',
      phone: '+5511987654321',
      owner_id: owner,
    });
    // An updated contact keeps its owner: only a created one gets the action's.
    expect((await get(key, `/v1/contacts/${byEmail.id}`)).owner_id).toBeNull();
    // Nothing to match on: every such event creates its own contact.
    const a = await runEvent(key, hook, { nome: 'Sem chave' });
    const b = await runEvent(key, hook, { nome: 'Sem chave' });
    expect(a.result.contact_id).not.toBe(b.result.contact_id);
    expect((await recordCounts(accountId)).contacts).toBe(5);
  });
});

describe('upsert_company', () => {
  const fields = [
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'telefone', type: 'phone', target: 'contact.phone' },
    { key: 'empresa', type: 'string', target: 'company.name' },
    { key: 'cnpj', type: 'string', target: 'company.cnpj' },
  ];

  it('finds a company by canonical CNPJ, masked or bare, and links the contact to it whatever the action order', async () => {
    const { id: accountId, key } = await newAccount();
    const acme = await create(key, '/v1/companies', { name: 'Acme', cnpj: CNPJ.masked });
    // upsert_company runs first, yet the contact, written after it, is linked.
    const hook = await newWebhook(key, {
      fields,
      flows: [{ action: 'upsert_company' }, { action: 'upsert_contact', match_on: ['phone'] }],
    });
    const first = await runEvent(key, hook, {
      nome: 'Ana',
      telefone: '11987654321',
      empresa: 'Acme SA',
      cnpj: CNPJ.bare,
    });
    expect(first).toMatchObject({ status: 'processed', result: { company_id: acme.id } });
    expect(await get(key, `/v1/contacts/${first.result.contact_id}`)).toMatchObject({ company_id: acme.id });
    expect(await get(key, `/v1/companies/${acme.id}`)).toMatchObject({
      name: 'Acme SA',
      cnpj: CNPJ.bare,
      lead_count: 1,
    });

    // Masked this time, without a name: the same company, its name kept.
    const second = await runEvent(key, hook, { nome: 'Bia', telefone: '11912345678', cnpj: CNPJ.masked });
    expect(second.result.company_id).toBe(acme.id);
    expect(await get(key, `/v1/companies/${acme.id}`)).toMatchObject({ name: 'Acme SA', lead_count: 2 });

    // An alphanumeric CNPJ in lower case with the mask is created in canonical form, then found bare.
    const created = await runEvent(key, hook, {
      nome: 'Caio',
      telefone: '11955554444',
      empresa: 'Nova',
      cnpj: '12.abc.345/01de-35',
    });
    const company = await get(key, `/v1/companies/${created.result.company_id}`);
    expect(company).toMatchObject({ name: 'Nova', cnpj: '12ABC34501DE35', lead_count: 1 });
    const again = await runEvent(key, hook, {
      nome: 'Caio',
      telefone: '11955554444',
      cnpj: '12ABC34501DE35',
    });
    expect(again.result).toMatchObject({ company_id: company.id, contact_id: created.result.contact_id });
    expect(await recordCounts(accountId)).toMatchObject({ companies: 2, contacts: 3 });
  });

  it('skips upsert_company for an event without a CNPJ, and leaves the contact without a company', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, {
      fields,
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }, { action: 'upsert_company' }],
    });
    const event = await runEvent(key, hook, { nome: 'Ana', telefone: '11987654321', empresa: 'Acme' });
    expect(event).toMatchObject({ status: 'processed', result: { company_id: null } });
    expect((await get(key, `/v1/contacts/${event.result.contact_id}`)).company_id).toBeNull();
    expect(await recordCounts(accountId)).toMatchObject({ companies: 0, contacts: 1 });
  });
});

describe('create_deal', () => {
  it('creates a deal linked to the contact and the company, named from nested keys, with its owner and mapped fields', async () => {
    const { key } = await newAccount();
    const [owner] = await users(key, 1);
    const hook = await newWebhook(key, {
      fields: [
        { key: 'lead.nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'lead.telefone', type: 'phone', target: 'contact.phone' },
        { key: 'lead.veiculo.modelo', type: 'string' },
        { key: 'lead.veiculo.ano', type: 'number' },
        { key: 'empresa.cnpj', type: 'string', target: 'company.cnpj' },
        { key: 'empresa.nome', type: 'string', target: 'company.name' },
        { key: 'valor', type: 'number', target: 'deal.value' },
        { key: 'utm.source', type: 'string', target: 'deal.custom_fields.origem' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'upsert_company' },
        {
          action: 'create_deal',
          name: '{{lead.nome}} – {{ lead.veiculo.modelo }} {{lead.veiculo.ano}}',
          owner: { user_id: owner },
        },
      ],
    });
    const event = await runEvent(key, hook, {
      lead: { nome: 'Ana Souza', telefone: '11987654321', veiculo: { modelo: 'Onix', ano: 2024 } },
      empresa: { cnpj: CNPJ.masked, nome: 'Acme' },
      valor: 89900.5,
      utm: { source: 'google' },
    });
    const { contact_id, company_id, deal_id } = event.result;
    expect(await get(key, `/v1/deals/${deal_id}`)).toMatchObject({
      name: 'Ana Souza – Onix 2024',
      contact_id,
      company_id,
      owner_id: owner,
      status: 'open',
      value: 89900.5,
      custom_fields: { origem: 'google' },
    });
    expect(await get(key, `/v1/companies/${company_id}`)).toMatchObject({ deal_count: 1, lead_count: 1 });
  });

  it('names the deal from the field mapped to deal.name when it has no template, and needs no contact', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [{ key: 'titulo', type: 'string', required: true, target: 'deal.name' }],
      flows: [{ action: 'create_deal' }],
    });
    const event = await runEvent(key, hook, { titulo: 'Frota de 10 carros' });
    expect(event.result).toEqual({
      contact_id: null,
      company_id: null,
      deal_id: expect.any(Number),
      task_ids: [],
    });
    expect(await get(key, `/v1/deals/${event.result.deal_id}`)).toMatchObject({
      name: 'Frota de 10 carros',
      contact_id: null,
      company_id: null,
      owner_id: null,
    });
    expect(await recordCounts(accountId)).toEqual({ ...NO_RECORDS, deals: 1 });
  });
});

describe('create_task', () => {
  it('files tasks under their category, made on first use and then matched case-insensitively', async () => {
    const { id: accountId, key, dealId } = await accountWithDeal();
    await create(key, '/v1/tasks', { deal_id: dealId, name: 'Manual', category: 'Pós-venda' });
    const hook = await newWebhook(key, {
      fields: [{ key: 'tipo', type: 'string', required: true }],
      flows: [
        { action: 'create_deal', name: 'Lead' },
        { action: 'create_task', name: 'Revisão', category: 'PÓS-VENDA' },
        { action: 'create_task', name: 'Outra', category: '{{tipo}}' },
      ],
    });
    const first = await runEvent(key, hook, { tipo: 'Retorno' });
    const [revisao, outra] = await Promise.all(
      first.result.task_ids.map((id: number) => get(key, `/v1/tasks/${id}`)),
    );
    expect(revisao).toMatchObject({ name: 'Revisão', category: 'Pós-venda', deal_id: first.result.deal_id });
    expect(outra).toMatchObject({ name: 'Outra', category: 'Retorno' });
    const second = await runEvent(key, hook, { tipo: 'retorno' });
    expect((await get(key, `/v1/tasks/${second.result.task_ids[1]}`)).category).toBe('Retorno');
    const categories = (await list(key, '/v1/task-categories')).data;
    expect(categories.map((c: Json) => [c.name, c.task_count])).toEqual([
      ['Pós-venda', 3],
      ['Retorno', 2],
    ]);
    expect((await recordCounts(accountId)).task_categories).toBe(2);
  });

  it('dates tasks from received_at or a date field, plus days and hours, and gives them their owner', async () => {
    const { key } = await newAccount();
    const [ana, bia] = await users(key, 2);
    const hook = await newWebhook(key, {
      fields: [
        { key: 'data_compra', type: 'date' },
        { key: 'visita', type: 'date' },
      ],
      flows: [
        { action: 'create_deal', name: 'Lead' },
        {
          action: 'create_task',
          name: 'Ligar',
          category: 'Contato',
          description: 'Em até 2 dias',
          due: { from: 'received_at', days: 2, hours: 3 },
          owner: { user_id: ana },
        },
        {
          action: 'create_task',
          name: 'Revisão',
          category: 'Pós-venda',
          due: { from: 'data_compra', days: 365 },
          owner: { round_robin: [bia] },
        },
        { action: 'create_task', name: 'Preparar', category: 'Visita', due: { from: 'visita', hours: -2 } },
        { action: 'create_task', name: 'Sem prazo', category: 'Contato' },
      ],
    });
    const event = await runEvent(key, hook, { data_compra: '2024-3-5', visita: '2024-03-10T15:30:00.000Z' });
    const tasks = await Promise.all(event.result.task_ids.map((id: number) => get(key, `/v1/tasks/${id}`)));
    const receivedAt = Date.parse(event.received_at);
    expect(tasks.map((t) => [t.name, t.due_date, t.owner_ids, t.deal_id])).toEqual([
      ['Ligar', new Date(receivedAt + (2 * 24 + 3) * 3_600_000).toISOString(), [ana], event.result.deal_id],
      // A date with no time is that day in the account's zone (São Paulo by default, UTC-3).
      ['Revisão', '2025-03-05T03:00:00.000Z', [bia], event.result.deal_id],
      ['Preparar', '2024-03-10T13:30:00.000Z', [], event.result.deal_id],
      ['Sem prazo', null, [], event.result.deal_id],
    ]);
    expect(tasks[0].description).toBe('Em até 2 dias');

    // Without the date a due date counts from, the task has none.
    const undated = await runEvent(key, hook, {});
    const revisao = await get(key, `/v1/tasks/${undated.result.task_ids[1]}`);
    expect(revisao).toMatchObject({ name: 'Revisão', due_date: null, owner_ids: [bia] });
  });

  it('skips the tasks of a deal that its condition skipped', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'interesse', type: 'string' },
      ],
      flows: [
        {
          action: 'create_deal',
          name: 'Lead de {{nome}}',
          when: { field: 'interesse', op: 'equals', value: 'sim' },
        },
        { action: 'create_task', name: 'Ligar', category: 'Contato' },
      ],
    });
    const skipped = await runEvent(key, hook, { nome: 'Ana', interesse: 'não' });
    expect(skipped).toMatchObject({
      status: 'processed',
      result: { contact_id: null, company_id: null, deal_id: null, task_ids: [] },
    });
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
    const ran = await runEvent(key, hook, { nome: 'Ana', interesse: 'sim' });
    expect(ran.result.task_ids).toHaveLength(1);
    expect(await get(key, `/v1/deals/${ran.result.deal_id}`)).toMatchObject({ name: 'Lead de Ana' });
    expect(await recordCounts(accountId)).toEqual({ ...NO_RECORDS, deals: 1, tasks: 1, task_categories: 1 });
  });
});

describe('when conditions', () => {
  it('runs an action only when its condition holds: exists, equals, not_equals, contains', async () => {
    const { key } = await newAccount();
    const conditions: Record<string, Json> = {
      exists: { field: 'origem', op: 'exists' },
      equals: { field: 'interesse', op: 'equals', value: 'sim' },
      'equals number': { field: 'valor', op: 'equals', value: 100 },
      'equals boolean': { field: 'newsletter', op: 'equals', value: true },
      not_equals: { field: 'interesse', op: 'not_equals', value: 'não' },
      contains: { field: 'origem', op: 'contains', value: 'Google' },
    };
    const hook = await newWebhook(key, {
      fields: [
        { key: 'origem', type: 'string' },
        { key: 'interesse', type: 'string' },
        { key: 'valor', type: 'number' },
        { key: 'newsletter', type: 'boolean' },
      ],
      flows: [
        { action: 'create_deal', name: 'Lead' },
        ...Object.entries(conditions).map(([name, when]) => ({
          action: 'create_task',
          name,
          category: 'Teste',
          when,
        })),
      ],
    });
    /** The names of the tasks (so the conditions) that ran for this body. */
    const held = async (body: Json) => {
      const event = await runEvent(key, hook, body);
      expect(event.status).toBe('processed');
      const tasks = await Promise.all(event.result.task_ids.map((id: number) => get(key, `/v1/tasks/${id}`)));
      return tasks.map((t) => t.name);
    };
    expect(await held({ origem: 'ads.GOOGLE.com', interesse: 'sim', valor: 100, newsletter: true })).toEqual([
      'exists',
      'equals',
      'equals number',
      'equals boolean',
      'not_equals',
      'contains',
    ]);
    expect(await held({ origem: 'facebook', interesse: 'não', valor: 99, newsletter: false })).toEqual([
      'exists',
    ]);
    // Absent: it does not exist or contain anything, equals nothing, and differs from anything.
    expect(await held({})).toEqual(['not_equals']);
    // An empty string does not count as present; equals compares exactly (case and type).
    expect(await held({ origem: '', interesse: 'Sim', valor: 100.5 })).toEqual(['not_equals']);
  });
});

describe('round-robin owners', () => {
  const flows = (owners: number[]) => [
    { action: 'create_deal', name: 'Lead', owner: { round_robin: owners } },
    { action: 'create_task', name: 'Ligar', category: 'Contato', owner: { round_robin: owners } },
  ];

  it('hands events to the owners in turn, one after another', async () => {
    const { id: accountId, key } = await newAccount();
    const owners = await users(key, 3);
    const hook = await newWebhook(key, { fields: [], flows: flows(owners) });
    const order: number[] = [];
    for (let i = 0; i < 9; i++) {
      const event = await runEvent(key, hook, { n: i });
      order.push((await get(key, `/v1/deals/${event.result.deal_id}`)).owner_id);
    }
    const [a, b, c] = owners as [number, number, number];
    expect(order).toEqual([a, b, c, a, b, c, a, b, c]);
    const three = { [a]: 3, [b]: 3, [c]: 3 };
    expect(await ownerCounts('deals', accountId)).toEqual(three);
    expect(await ownerCounts('task_owners', accountId)).toEqual(three);
  });

  it('takes a turn only for a record it creates: an updated contact or company keeps its owner and uses no turn', async () => {
    const { key } = await newAccount();
    const [a, b] = (await users(key, 2)) as [number, number];
    const known = await create(key, '/v1/contacts', { name: 'Conhecido', phone: '11900000000' });
    const acme = await create(key, '/v1/companies', { name: 'Acme', cnpj: CNPJ.masked });
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
        { key: 'empresa', type: 'string', target: 'company.name' },
        { key: 'cnpj', type: 'string', target: 'company.cnpj' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'], owner: { round_robin: [a, b] } },
        { action: 'upsert_company', owner: { round_robin: [a, b] } },
      ],
    });
    // New, known, new, known, new: the known contact and company are updated between the creations.
    const knownLead = { telefone: '11900000000', cnpj: CNPJ.bare };
    const bodies = [
      { nome: 'Novo 1', telefone: '11911110001', empresa: 'Nova 1', cnpj: '11444777000161' },
      knownLead,
      { nome: 'Novo 2', telefone: '11911110002', empresa: 'Nova 2', cnpj: '12345678000195' },
      knownLead,
      { nome: 'Novo 3', telefone: '11911110003', empresa: 'Nova 3', cnpj: '98765432000198' },
    ];
    const created: Json[] = [];
    for (const body of bodies) {
      const event = await runEvent(key, hook, body);
      expect(event.status).toBe('processed');
      if (body !== knownLead) created.push(event.result);
    }
    const contactOwners = await Promise.all(
      created.map(async (r) => (await get(key, `/v1/contacts/${r.contact_id}`)).owner_id),
    );
    const companyOwners = await Promise.all(
      created.map(async (r) => (await get(key, `/v1/companies/${r.company_id}`)).owner_id),
    );
    expect(contactOwners).toEqual([a, b, a]);
    expect(companyOwners).toEqual([a, b, a]);
    expect((await get(key, `/v1/contacts/${known.id}`)).owner_id).toBeNull();
    expect((await get(key, `/v1/companies/${acme.id}`)).owner_id).toBeNull();
  });

  it('gives each owner exactly a third of nine events processed concurrently in one batch', async () => {
    const { id: accountId, key } = await newAccount();
    const owners = await users(key, 3);
    const hook = await newWebhook(key, { fields: [], flows: flows(owners) });
    const ids: number[] = [];
    for (let i = 0; i < 9; i++) ids.push(await ingest(hook, { n: i, __fault: 'send' }));
    const result = await deliver(ids);
    expect(result.explicitAcks).toHaveLength(9);
    const [a, b, c] = owners as [number, number, number];
    const three = { [a]: 3, [b]: 3, [c]: 3 };
    expect(await ownerCounts('deals', accountId)).toEqual(three);
    expect(await ownerCounts('task_owners', accountId)).toEqual(three);
  });
});

describe('test mode', () => {
  it('previews what the flows would write, writes nothing, and does not advance the rotation', async () => {
    const { id: accountId, key } = await newAccount();
    const [a, b] = await users(key, 2);
    const existing = await create(key, '/v1/contacts', { name: 'Ana', phone: '11987654321' });
    const hook = await newWebhook(key, {
      mode: 'test',
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
        { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
        { key: 'empresa', type: 'string', target: 'company.name' },
        { key: 'cnpj', type: 'string', target: 'company.cnpj' },
        { key: 'interesse', type: 'string' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'], owner: { user_id: b } },
        { action: 'upsert_company' },
        { action: 'create_deal', name: '{{nome}} - {{veiculo}}', owner: { round_robin: [a, b] } },
        {
          action: 'create_task',
          name: 'Ligar',
          category: 'Contato',
          due: { from: 'received_at', days: 1 },
          owner: { user_id: a },
        },
        {
          action: 'create_task',
          name: 'Visita',
          category: 'Visita',
          when: { field: 'interesse', op: 'equals', value: 'visita' },
        },
      ],
    });
    const before = await recordCounts(accountId);
    const fresh = await runEvent(key, hook, {
      nome: 'Bia',
      telefone: '21 98888-7777',
      veiculo: 'Onix',
      empresa: 'Acme',
      cnpj: CNPJ.masked,
    });
    expect(fresh).toMatchObject({ status: 'test', attempts: 1, error: null, result: null });
    expect(fresh.processed_at).toEqual(expect.any(String));
    expect(fresh.preview).toEqual({
      contact: {
        action: 'create',
        fields: { name: 'Bia', phone: '+5521988887777', custom_fields: { veiculo: 'Onix' }, owner_id: b },
      },
      company: { action: 'create', fields: { name: 'Acme', cnpj: CNPJ.bare } },
      deal: { action: 'create', fields: { name: 'Bia - Onix', owner_id: a } },
      tasks: [
        {
          action: 'create',
          fields: {
            name: 'Ligar',
            category: 'Contato',
            due_date: new Date(Date.parse(fresh.received_at) + 86_400_000).toISOString(),
            owner_id: a,
          },
        },
      ],
      skipped: [{ index: 4, action: 'create_task', reason: 'its condition does not hold' }],
    });

    const known = await runEvent(key, hook, {
      telefone: '(11) 98765-4321',
      veiculo: 'Kwid',
      interesse: 'visita',
    });
    expect(known.preview).toMatchObject({
      contact: {
        action: 'update',
        id: existing.id,
        fields: { phone: '+5511987654321', custom_fields: { veiculo: 'Kwid' } },
      },
      // The rotation did not move: the first owner again.
      deal: { action: 'create', fields: { owner_id: a } },
      tasks: [
        { fields: { name: 'Ligar' } },
        { fields: { name: 'Visita', category: 'Visita', due_date: null } },
      ],
      skipped: [{ index: 1, action: 'upsert_company', reason: 'the event has no CNPJ' }],
    });
    expect(known.preview).not.toHaveProperty('company');

    expect(await recordCounts(accountId)).toEqual(before);
    expect(await get(key, `/v1/contacts/${existing.id}`)).toEqual(existing);
    const rotations = await env.DB.prepare('SELECT count(*) AS n FROM webhook_rotations WHERE webhook_id = ?')
      .bind(hook.id)
      .first<{ n: number }>();
    expect(rotations?.n).toBe(0);

    // In production the rotation starts from its first owner: the test events took no turn.
    const res = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { mode: 'production' },
    });
    expect(res.status).toBe(200);
    const live = await runEvent(key, hook, { nome: 'Caio', telefone: '31 97777-6666' });
    expect(live.status).toBe('processed');
    expect((await get(key, `/v1/deals/${live.result.deal_id}`)).owner_id).toBe(a);
  });
});

describe('tenant isolation', () => {
  it("never touches another account's contact or company with the same phone, email or CNPJ", async () => {
    const mine = await newAccount('A');
    const theirs = await newAccount('B');
    const theirCompany = await create(theirs.key, '/v1/companies', { name: 'Deles', cnpj: CNPJ.masked });
    const theirContact = await create(theirs.key, '/v1/contacts', {
      name: 'Deles',
      phone: '11987654321',
      email: 'ana@x.com',
      company_id: theirCompany.id,
      custom_fields: { origem: 'B' },
    });
    const theirsBefore = await recordCounts(theirs.id);
    const hook = await newWebhook(mine.key, {
      fields: [
        { key: 'nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'telefone', type: 'phone', target: 'contact.phone' },
        { key: 'email', type: 'email', target: 'contact.email' },
        { key: 'origem', type: 'string', target: 'contact.custom_fields.origem' },
        { key: 'empresa', type: 'string', target: 'company.name' },
        { key: 'cnpj', type: 'string', target: 'company.cnpj' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone', 'email'] },
        { action: 'upsert_company' },
        { action: 'create_deal', name: 'Lead {{nome}}' },
      ],
    });
    const body = {
      nome: 'Ana',
      telefone: '+5511987654321',
      email: 'ANA@x.com',
      origem: 'A',
      empresa: 'Minha',
    };
    const event = await runEvent(mine.key, hook, { ...body, cnpj: CNPJ.bare });
    expect(event.status).toBe('processed');
    const { contact_id, company_id, deal_id } = event.result;
    expect(contact_id).not.toBe(theirContact.id);
    expect(company_id).not.toBe(theirCompany.id);
    expect(await get(mine.key, `/v1/contacts/${contact_id}`)).toMatchObject({
      name: 'Ana',
      company_id,
      custom_fields: { origem: 'A' },
    });
    expect(await get(mine.key, `/v1/companies/${company_id}`)).toMatchObject({
      name: 'Minha',
      cnpj: CNPJ.bare,
    });
    expect(await get(mine.key, `/v1/deals/${deal_id}`)).toMatchObject({ contact_id, company_id });
    expect(await recordCounts(mine.id)).toEqual({ ...NO_RECORDS, contacts: 1, companies: 1, deals: 1 });

    // Their rows are as they were, and they cannot see ours.
    expect(await get(theirs.key, `/v1/contacts/${theirContact.id}`)).toEqual(theirContact);
    expect(await get(theirs.key, `/v1/companies/${theirCompany.id}`)).toEqual({
      ...theirCompany,
      lead_count: 1,
    });
    expect(await recordCounts(theirs.id)).toEqual(theirsBefore);
    expect((await call(`/v1/contacts/${contact_id}`, { key: theirs.key })).status).toBe(404);
    // A second event of ours now finds our own contact and company, still not theirs.
    const again = await runEvent(mine.key, hook, { ...body, cnpj: CNPJ.masked });
    expect(again.result).toMatchObject({ contact_id, company_id });
  });
});
