import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PURGE_BATCH } from '../../src/db/trash';
import worker from '../../src/index';
import {
  accountsOnShard,
  call,
  create,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
  roundTrips,
} from '../helpers';
import { deliver, get, ingest } from './webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 86_400_000;

const cron = () =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' }), env);

const remove = (key: string, path: string) => call(path, { method: 'DELETE', key });

/** Moves a trashed row's deletion `days` into the past. */
async function trashedDaysAgo(table: string, id: number, days: number): Promise<void> {
  await env.DB.prepare(`update ${table} set deleted_at = ? where id = ? and deleted_at is not null`)
    .bind(Date.now() - days * DAY, id)
    .run();
}

async function rows(sql: string, ...params: unknown[]): Promise<Json[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...params)
      .all()
  ).results;
}

async function seeded(tag: string) {
  const account = await newAccount();
  const { key } = account;
  const user = await create(key, '/v1/users', { name: 'Ana', email: `ana.${tag}@example.com` });
  const other = await create(key, '/v1/users', { name: 'Bia', email: `bia.${tag}@example.com` });
  const company = await create(key, '/v1/companies', {
    name: 'Auto Lima',
    cnpj: '11.222.333/0001-81',
    owner_id: user.id,
    follower_ids: [user.id, other.id],
  });
  const contact = await create(key, '/v1/contacts', {
    name: 'Bruno',
    company_id: company.id,
    owner_id: user.id,
  });
  const deal = await create(key, '/v1/deals', { name: 'Onix', contact_id: contact.id, owner_id: other.id });
  const task = await create(key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Call',
    category: 'Ligação',
    owner_id: user.id,
  });
  // Live, and pointing at everything that will be purged.
  const kept = await create(key, '/v1/deals', {
    name: 'Kept',
    company_id: company.id,
    contact_id: contact.id,
    owner_id: user.id,
  });
  const keptTask = await create(key, '/v1/tasks', {
    deal_id: kept.id,
    name: 'Keep',
    category: 'Ligação',
    owner_id: user.id,
  });
  return { ...account, user, other, company, contact, deal, task, kept, keptTask };
}

/** Contact by phone, company by CNPJ, and a deal. */
const hookFor = (key: string) =>
  newWebhook(key, {
    fields: [
      { key: 'nome', type: 'string', target: 'contact.name' },
      { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
      { key: 'empresa', type: 'string', target: 'company.name' },
      { key: 'cnpj', type: 'string', target: 'company.cnpj' },
    ],
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'upsert_company' },
      { action: 'create_deal', name: 'Lead {{nome}}' },
    ],
  });

describe('cron: the purge of the trash', () => {
  it('deletes for good what was trashed over 30 days ago, with its dependants, and clears references to it', async () => {
    const s = await seeded('a');
    const recent = await seeded('b');
    for (const [path, id] of [
      ['/v1/deals', s.deal.id],
      ['/v1/contacts', s.contact.id],
      ['/v1/companies', s.company.id],
      ['/v1/users', s.user.id],
    ] as const) {
      expect((await remove(s.key, `${path}/${id}`)).status).toBe(204);
      await trashedDaysAgo(path.slice(4), id, 31);
    }
    // Another account's row trashed 29 days ago: still restorable, so kept.
    expect((await remove(recent.key, `/v1/deals/${recent.deal.id}`)).status).toBe(204);
    // The deal and its task keep one deletion time: the restore brings back the tasks trashed with it.
    const at = Date.now() - 29 * DAY;
    await env.DB.batch(
      ['deals', 'tasks'].map((table) =>
        env.DB.prepare(`update ${table} set deleted_at = ? where id = ?`).bind(
          at,
          table === 'deals' ? recent.deal.id : recent.task.id,
        ),
      ),
    );

    await cron();

    expect(await rows('select id from deals where account_id = ?', s.id)).toEqual([{ id: s.kept.id }]);
    expect(await rows('select id from tasks where account_id = ?', s.id)).toEqual([{ id: s.keptTask.id }]);
    expect(await rows('select id from contacts where account_id = ?', s.id)).toEqual([]);
    expect(await rows('select id from companies where account_id = ?', s.id)).toEqual([]);
    expect(await rows('select id from users where account_id = ?', s.id)).toEqual([{ id: s.other.id }]);
    expect(await rows('select * from company_followers where account_id = ?', s.id)).toEqual([]);
    expect(await rows('select task_id from task_owners where account_id = ?', s.id)).toEqual([]);
    expect(await get(s.key, `/v1/deals/${s.kept.id}`)).toMatchObject({
      company_id: null,
      contact_id: null,
      owner_id: null,
    });
    expect(await get(s.key, `/v1/tasks/${s.keptTask.id}`)).toMatchObject({ owner_ids: [] });
    expect((await list(s.key, '/v1/task-categories')).data).toMatchObject([
      { name: 'Ligação', task_count: 1 },
    ]);
    // Purged is gone: no restore.
    await expectProblem(await call(`/v1/deals/${s.deal.id}/restore`, { method: 'POST', key: s.key }), 404);

    const back = await call(`/v1/deals/${recent.deal.id}/restore`, { method: 'POST', key: recent.key });
    expect(back.status).toBe(200);
    expect(await get(recent.key, `/v1/tasks/${recent.task.id}`)).toMatchObject({ deal_id: recent.deal.id });
  });

  it(`purges at most ${PURGE_BATCH} rows of a table per run, oldest first; the next run takes the rest`, async () => {
    const { id: accountId, key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'D' });
    const first = await create(key, '/v1/tasks', { deal_id: deal.id, name: 'T', category: 'C' });
    const old = Date.now() - 40 * DAY;
    // The rest straight into D1, trashed one millisecond apart after the first.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into tasks (account_id, name, deal_id, category_id, created_at, updated_at, deleted_at)
       select ?, 'T' || i, ?, (select category_id from tasks where id = ?), ?, ?, ? + i from n`,
    )
      .bind(PURGE_BATCH + 4, accountId, deal.id, first.id, old, old, old)
      .run();
    expect((await remove(key, `/v1/tasks/${first.id}`)).status).toBe(204);
    await trashedDaysAgo('tasks', first.id, 41);
    const count = async () =>
      (await rows('select count(*) as n from tasks where account_id = ?', accountId))[0].n;
    expect(await count()).toBe(PURGE_BATCH + 5);
    await cron();
    // The oldest first: the API-made one, trashed 41 days ago, is gone, and the newest 5 remain.
    expect(await rows('select id from tasks where id = ?', first.id)).toEqual([]);
    expect(await count()).toBe(5);
    await cron();
    expect(await count()).toBe(0);
    expect((await list(key, '/v1/task-categories')).data).toMatchObject([{ task_count: 0 }]);
  });
});

describe('webhook events and the trash', () => {
  it('an event matching a trashed contact creates a new one; one naming a trashed CNPJ restores that company', async () => {
    const { key } = await newAccount();
    const hook = await hookFor(key);
    const contact = await create(key, '/v1/contacts', { name: 'Ana', phone: '11987654321' });
    const company = await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    expect((await remove(key, `/v1/contacts/${contact.id}`)).status).toBe(204);
    expect((await remove(key, `/v1/companies/${company.id}`)).status).toBe(204);
    const id = await ingest(hook, {
      nome: 'Ana 2',
      telefone: '11987654321',
      cnpj: '11222333000181',
      __fault: 'send',
    });
    await deliver([id]);
    const contacts = (await list(key, '/v1/contacts')).data;
    expect(contacts).toEqual([
      expect.objectContaining({ name: 'Ana 2', phone: '+5511987654321', company_id: company.id }),
    ]);
    expect(contacts[0].id).not.toBe(contact.id);
    expect(await get(key, `/v1/companies/${company.id}`)).toMatchObject({ name: 'Acme', deleted_at: null });
    expect((await list(key, '/v1/contacts?deleted=true')).data).toMatchObject([
      { id: contact.id, name: 'Ana' },
    ]);
  });
});

describe('LGPD erasure: DELETE /v1/contacts/{id}?erase=true', () => {
  it('removes the contact and every copy of its personal data for good, in one round trip', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await hookFor(key);
    const tester = await newWebhook(key, {
      name: 'Test',
      mode: 'test',
      fields: [{ key: 'telefone', type: 'phone', required: true, target: 'contact.phone' }],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const produced = await ingest(hook, {
      nome: 'Zuleica Quintanilha',
      telefone: '11 97777-6666',
      __fault: 'send',
    });
    await deliver([produced]);
    const [contact] = (await list(key, '/v1/contacts')).data;
    expect(contact).toMatchObject({ name: 'Zuleica Quintanilha', phone: '+5511977776666' });
    const matched = await ingest(tester, { telefone: '(11) 97777-6666', __fault: 'send' });
    await deliver([matched]);
    // Pending, and only naming the phone.
    const named = await ingest(hook, { telefone: '+5511977776666', __fault: 'send' });
    const unrelated = await ingest(hook, { nome: 'Outro', telefone: '11955554444', __fault: 'send' });
    // Refused calls keep the start of their body: one in JSON with the phone, one a form with the
    // email and phone percent-encoded.
    const refused = [
      { body: '{"telefone":"+5511977776666",', type: 'application/json' },
      {
        body: 'email=zuleica%40example.com&telefone=%2b5511977776666&a..b=1',
        type: 'application/x-www-form-urlencoded',
      },
    ];
    for (const { body, type } of refused) {
      const res = await call(hook.path, { method: 'POST', body, headers: { 'Content-Type': type } });
      expect(res.status).toBe(400);
    }
    // A POST with an Idempotency-Key keeps its answer, which shows the contact.
    const again = await call('/v1/contacts', {
      method: 'POST',
      key,
      headers: { 'Idempotency-Key': 'lgpd-1' },
      body: { name: 'Zuleica Quintanilha', email: 'zuleica@example.com' },
    });
    expect(again.status).toBe(201);
    const second = (await json(again)).data;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const deal = (await list(key, `/v1/deals?contact_id=${contact.id}`)).data[0];

    const res = await call(`/v1/contacts/${contact.id}?erase=true`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    expect(roundTrips(res)).toBe(1);
    expect((await call(`/v1/contacts/${second.id}?erase=true`, { method: 'DELETE', key })).status).toBe(204);

    await expectProblem(await call(`/v1/contacts/${contact.id}`, { key }), 404);
    await expectProblem(await call(`/v1/contacts/${contact.id}/restore`, { method: 'POST', key }), 404);
    expect(await get(key, `/v1/deals/${deal.id}`)).toMatchObject({
      contact_id: null,
      name: 'Lead Zuleica Quintanilha',
    });

    // Straight from D1, every table with an account_id (found in the schema, so a new table is
    // covered too): none holds the phone or the email any more, and the name only in the deal's
    // name, which the account's own flow template wrote (docs/api.md: erasure keeps the account's records).
    expect(await rows('select id from contacts where account_id = ?', accountId)).toEqual([]);
    const tables = (
      await rows(
        "select name from sqlite_master where type = 'table' and sql like '%account_id%' and sql not like 'create virtual%'",
      )
    ).map((t) => t.name as string);
    expect(tables).toEqual(
      expect.arrayContaining(['contacts', 'inbound_events', 'idempotency_keys', 'deals']),
    );
    for (const table of tables) {
      const all = JSON.stringify(await rows(`select * from "${table}" where account_id = ?`, accountId));
      const texts = [
        '977776666',
        '97777-6666',
        'zuleica@example.com',
        'zuleica%40example.com',
        // The change journal's deal entries copy the deal, its name included.
        ...(table === 'deals' || table === 'journal_entries' ? [] : ['Zuleica']),
      ];
      for (const text of texts) expect(all, `${table} holds ${text}`).not.toContain(text);
    }
    const notDeals = await rows(
      "select * from journal_entries where account_id = ? and record_type <> 'deal'",
      accountId,
    );
    expect(notDeals.length).toBeGreaterThan(0);
    expect(JSON.stringify(notDeals), 'journal_entries holds Zuleica').not.toContain('Zuleica');
    const events = await rows(
      'select id, payload, headers, preview, status from inbound_events where account_id = ?',
      accountId,
    );
    const byId = new Map(events.map((e) => [e.id, e]));
    for (const id of [produced, matched, named]) {
      expect(byId.get(id)).toMatchObject({ payload: '{}', headers: '{}', preview: null });
    }
    expect(JSON.parse(byId.get(unrelated).payload)).toMatchObject({ nome: 'Outro' });
    const rejected = events.filter((e) => e.status === 'rejected');
    expect(rejected).toHaveLength(refused.length);
    for (const event of rejected) expect(event.payload).toBe('null');
    const kept = await rows(
      "select json_extract(rejection, '$.body') as body, json_extract(rejection, '$.code') as code from inbound_events where account_id = ? and status = 'rejected'",
      accountId,
    );
    expect(kept).toEqual([
      { body: null, code: 'malformed_json' },
      { body: null, code: 'malformed_form' },
    ]);
    expect(await rows('select contact_id from inbound_event_results where event_id = ?', produced)).toEqual([
      { contact_id: null },
    ]);
    // The search index: no match on the name, in any form.
    for (const query of ['"zuleica"', '"quintanilha"', 'name_grams : "zu\u001f"']) {
      const found = await rows(
        'select rowid from contacts_search where contacts_search match ? and rowid between ? and ?',
        query,
        accountId * 2 ** 32,
        accountId * 2 ** 32 + 2 ** 32 - 1,
      );
      expect(found, query).toEqual([]);
    }
    // The POST that created the second contact never runs again: its key stays taken, without its answer.
    const retry = await call('/v1/contacts', {
      method: 'POST',
      key,
      headers: { 'Idempotency-Key': 'lgpd-1' },
      body: { name: 'Zuleica Quintanilha', email: 'zuleica@example.com' },
    });
    await expectProblem(retry, 409);
    expect((await list(key, '/v1/contacts')).data).toEqual([]);
  });

  it("leaves alone the events of other people whose email or phone contains the erased one's", async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Leads', mode: 'test' });
    const others = [
      { email: 'joana@x.com', telefone: '+5511912345678' },
      { contato: 'ana@x.co.uk', fone: '+55119123456789' },
    ];
    const events = [];
    for (const body of others) events.push(await ingest(hook, { ...body, __fault: 'send' }));
    const own = await ingest(hook, { email: 'ANA@x.co', __fault: 'send' });
    const ana = await create(key, '/v1/contacts', { name: 'Ana', email: 'ana@x.co', phone: '+551191234567' });
    expect((await call(`/v1/contacts/${ana.id}?erase=true`, { method: 'DELETE', key })).status).toBe(204);
    const payloads = await rows(
      `select id, payload from inbound_events where id in (${[...events, own].join(',')}) order by id`,
    );
    expect(payloads.map((e) => JSON.parse(e.payload))).toEqual([
      { ...others[0], __fault: 'send' },
      { ...others[1], __fault: 'send' },
      {},
    ]);
  });

  it("erases a contact in the trash too; a missing one or another account's is a 404 that changes nothing", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const contact = await create(a.key, '/v1/contacts', { name: 'Ana', phone: '11987654321' });
    const erase = (key: string) => call(`/v1/contacts/${contact.id}?erase=true`, { method: 'DELETE', key });
    await expectProblem(await erase(b.key), 404, 'not_found');
    expect(await get(a.key, `/v1/contacts/${contact.id}`)).toEqual(contact);
    await expectProblem(await call('/v1/contacts/999999?erase=true', { method: 'DELETE', key: a.key }), 404);
    expect((await remove(a.key, `/v1/contacts/${contact.id}`)).status).toBe(204);
    expect((await erase(a.key)).status).toBe(204);
    expect((await list(a.key, '/v1/contacts?deleted=true')).data).toEqual([]);
    await expectProblem(await erase(a.key), 404, 'not_found');
    // erase=false is a plain delete.
    const other = await create(a.key, '/v1/contacts', { name: 'Bia' });
    expect(
      (await call(`/v1/contacts/${other.id}?erase=false`, { method: 'DELETE', key: a.key })).status,
    ).toBe(204);
    expect((await list(a.key, '/v1/contacts?deleted=true')).data).toMatchObject([{ id: other.id }]);
  });
});
