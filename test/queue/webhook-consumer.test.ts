import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { said } from '../../src/core/said';
import { retryDelaySeconds } from '../../src/queue/consumer';
import {
  accountsOnShard,
  call,
  capturingLogs,
  create,
  expectProblem,
  type Json,
  json,
  newAccount,
  newWebhook,
} from '../helpers';
import {
  countRows,
  deliver,
  eventLog,
  eventOf,
  get,
  ingest,
  NO_RECORDS,
  recordCounts,
  runEvent,
} from './webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const LEAD_FIELDS = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
];

const LEAD_FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: '{{nome}} - {{veiculo}}' },
  { action: 'create_task', name: 'Ligar para {{nome}}', category: 'Follow-up' },
];

/** An account with a webhook that makes a contact, a deal and a task of each lead. */
async function leadSetup(config: { fields?: Json[]; flows?: Json[] } = {}) {
  const account = await newAccount();
  const hook = await newWebhook(account.key, { fields: LEAD_FIELDS, flows: LEAD_FLOWS, ...config });
  return { ...account, hook };
}

// `__fault: 'send'` keeps these events off the real queue: each test delivers them itself.
const lead = (extra: Json = {}) => ({
  nome: 'Ana Souza',
  telefone: '(11) 98765-4321',
  veiculo: 'Onix',
  __fault: 'send',
  ...extra,
});

const ONE_LEAD = { ...NO_RECORDS, contacts: 1, deals: 1, tasks: 1, task_categories: 1 };

const EMAIL_REQUIRED = [...LEAD_FIELDS, { key: 'email', type: 'email', required: true }];

async function setFields(key: string, hook: { id: number }, fields: Json[]): Promise<void> {
  const res = await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { fields } });
  expect(res.status).toBe(200);
}

/** An event that fails: the mapping gains a required field between its ingest and its delivery. */
async function failedEvent(
  key: string,
  hook: { id: number; path: string },
  body: Json = lead(),
): Promise<number> {
  const id = await ingest(hook, body);
  await setFields(key, hook, EMAIL_REQUIRED);
  await deliver([id]);
  await setFields(key, hook, LEAD_FIELDS);
  return id;
}

/**
 * Makes every insert into `table` for this account raise `message`: a real SQLite error inside the
 * consumer's batch. Returns what drops the trigger again.
 */
async function failing(table: string, accountId: number, message: string): Promise<() => Promise<void>> {
  const name = `fail_${table}_${accountId}`;
  await env.DB.exec(
    `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} WHEN NEW.account_id = ${accountId} BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  );
  return async () => {
    await env.DB.exec(`DROP TRIGGER ${name}`);
  };
}

/** The event's row in D1, with what the API does not show: when it is due on the queue. */
async function eventRow(id: number) {
  return env.DB.prepare('SELECT status, attempts, error, queued_at FROM inbound_events WHERE id = ?')
    .bind(id)
    .first<{ status: string; attempts: number; error: string | null; queued_at: number }>();
}

/** Asserts the event is processed with exactly one set of records, and returns its result. */
async function expectOneLead(
  key: string,
  accountId: number,
  hookId: number,
  eventId: number,
  counts = ONE_LEAD,
) {
  const event = await eventOf(key, hookId, eventId);
  expect(event).toMatchObject({ status: 'processed', error: null, processed_at: expect.any(String) });
  expect(await recordCounts(accountId)).toEqual(counts);
  const { contact_id, deal_id, task_ids } = event.result;
  expect(await get(key, `/v1/contacts/${contact_id}`)).toMatchObject({
    name: 'Ana Souza',
    phone: '+5511987654321',
    custom_fields: { veiculo: 'Onix' },
  });
  expect(await get(key, `/v1/deals/${deal_id}`)).toMatchObject({ name: 'Ana Souza - Onix', contact_id });
  expect(task_ids).toHaveLength(1);
  expect(await get(key, `/v1/tasks/${task_ids[0]}`)).toMatchObject({
    name: 'Ligar para Ana Souza',
    deal_id,
    category: 'Follow-up',
  });
  return event;
}

describe('one event, one atomic batch', () => {
  it('writes nothing when a record fails mid-batch, fails the event, and a replay then writes it all once', async () => {
    const account = await newAccount();
    const owner = await create(account.key, '/v1/users', { name: 'Dona', email: 'dona@x.com' });
    const hook = await newWebhook(account.key, {
      fields: LEAD_FIELDS,
      flows: [...LEAD_FLOWS.slice(0, 2), { ...LEAD_FLOWS[2], owner: { user_id: owner.id } }],
    });
    const id = await ingest(hook, lead());
    // The task's owner leaves the account between the check and the write: once the contact and
    // the deal are inserted, in the same batch, so the task owner row breaks its foreign key.
    const trigger = `vanish_${account.id}`;
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} AFTER INSERT ON deals WHEN NEW.account_id = ${account.id} BEGIN DELETE FROM users WHERE id = ${owner.id}; END`,
    );
    try {
      const result = await deliver([id]);
      expect(result.explicitAcks).toEqual(['m0']);
      expect(result.retryMessages).toEqual([]);
    } finally {
      await env.DB.exec(`DROP TRIGGER ${trigger}`);
    }
    const event = await eventOf(account.key, hook.id, id);
    expect(event).toMatchObject({ status: 'failed', attempts: 1, result: null, processed_at: null });
    expect(event.error).toMatch(/^A record could not be written: .*FOREIGN KEY constraint failed/);
    // Neither the contact nor the deal inserted before the failure is left, nor the category.
    expect(await recordCounts(account.id)).toEqual(NO_RECORDS);
    // The rollback took the deletion with it: the owner is still a user, so a replay succeeds.
    expect((await get(account.key, `/v1/users/${owner.id}`)).id).toBe(owner.id);
    const replay = await call(`/v1/inbound-webhooks/${hook.id}/events/${id}/replay`, {
      method: 'POST',
      key: account.key,
    });
    expect(replay.status).toBe(202);
    await deliver([id]);
    const done = await expectOneLead(account.key, account.id, hook.id, id, { ...ONE_LEAD, task_owners: 1 });
    expect(done.attempts).toBe(2);
    expect(await get(account.key, `/v1/tasks/${done.result.task_ids[0]}`)).toMatchObject({
      owner_ids: [owner.id],
    });
  });

  it('rolls back a batch that a transient error breaks after its first writes; the retry writes one set', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    const restore = await failing('tasks', accountId, 'disk hiccup');
    try {
      const { value: first, logged } = await capturingLogs(() => deliver([id]));
      expect(logged).toEqual([transient(id, expect.stringContaining('disk hiccup'))]);
      expect(first.explicitAcks).toEqual([]);
      expect(first.retries).toEqual([{ msgId: 'm0', delaySeconds: 10 }]);
    } finally {
      await restore();
    }
    expect(await eventOf(key, hook.id, id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: expect.stringContaining('disk hiccup'),
      result: null,
    });
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
    const second = await deliver([{ id, attempts: 2 }]);
    expect(second.explicitAcks).toEqual(['m0']);
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(2);
  });
});

describe('at-least-once delivery', () => {
  it('makes a redelivered processed event a no-op', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    await deliver([id]);
    const first = await expectOneLead(key, accountId, hook.id, id);
    const again = await deliver([
      { id, attempts: 1 },
      { id, attempts: 3 },
    ]);
    expect(again.explicitAcks.sort()).toEqual(['m0', 'm1']);
    expect(again.retryMessages).toEqual([]);
    const second = await expectOneLead(key, accountId, hook.id, id);
    expect(second).toEqual(first);
    expect(second.attempts).toBe(1);
  });

  it('writes each record once when one batch holds the same message twice', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    const result = await deliver([
      { id, msg: 'a' },
      { id, msg: 'b' },
    ]);
    expect(result.explicitAcks.sort()).toEqual(['a', 'b']);
    expect(result.retryMessages).toEqual([]);
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(1);
  });

  it('writes each record once when two consumers get the same message at the same time', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    const results = await Promise.all([deliver([id]), deliver([id]), deliver([id])]);
    for (const result of results) {
      expect(result.explicitAcks).toEqual(['m0']);
      expect(result.retryMessages).toEqual([]);
    }
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(1);
  });

  it('gives two concurrent events with the same new phone one contact, with both events applied to it', async () => {
    const {
      key,
      id: accountId,
      hook,
    } = await leadSetup({
      fields: [...LEAD_FIELDS, { key: 'origem', type: 'string', target: 'contact.custom_fields.origem' }],
    });
    const first = await ingest(hook, lead({ veiculo: 'Onix' }));
    const second = await ingest(hook, lead({ veiculo: undefined, origem: 'site' }));
    const result = await deliver([first, second]);
    expect(result.explicitAcks.sort()).toEqual(['m0', 'm1']);
    const events = await Promise.all([first, second].map((id) => eventOf(key, hook.id, id)));
    expect(events.map((e) => e.status)).toEqual(['processed', 'processed']);
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, deals: 2, tasks: 2 });
    const contactId = events[0].result.contact_id;
    expect(events[1].result.contact_id).toBe(contactId);
    const contact = await get(key, `/v1/contacts/${contactId}`);
    // Whichever event ran second found the contact the first created and merged its fields into it.
    expect(contact.custom_fields).toEqual({ veiculo: 'Onix', origem: 'site' });
  });

  it('gives two concurrent events with the same new CNPJ one company, named as the later event says', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, {
      fields: [
        { key: 'cnpj', type: 'string', required: true, target: 'company.cnpj' },
        { key: 'empresa', type: 'string', required: true, target: 'company.name' },
      ],
      flows: [{ action: 'upsert_company' }, { action: 'create_deal', name: 'Lead {{empresa}}' }],
    });
    const first = await ingest(hook, { cnpj: '11.222.333/0001-81', empresa: 'Acme', __fault: 'send' });
    const second = await ingest(hook, { cnpj: '11222333000181', empresa: 'Acme Ltda', __fault: 'send' });
    const result = await deliver([first, second]);
    expect(result.explicitAcks.sort()).toEqual(['m0', 'm1']);
    const events = await Promise.all([first, second].map((id) => eventOf(account.key, hook.id, id)));
    expect(events.map((e) => e.status)).toEqual(['processed', 'processed']);
    expect(events[1].result.company_id).toBe(events[0].result.company_id);
    expect(await recordCounts(account.id)).toMatchObject({ companies: 1, deals: 2 });
    // Deal ids tell the order the two batches ran in: the later one's name is the company's.
    const later = events.reduce((a, b) => (a.result.deal_id > b.result.deal_id ? a : b));
    expect(await get(account.key, `/v1/companies/${later.result.company_id}`)).toMatchObject({
      name: later.payload.empresa,
      deal_count: 2,
    });
  });

  it('acks a message whose event does not exist', async () => {
    const result = await deliver([987_654_321]);
    expect(result.explicitAcks).toEqual(['m0']);
    expect(result.retryMessages).toEqual([]);
  });

  it('leaves failed and test events as they are when their message comes again', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const failed = await failedEvent(key, hook);
    const before = await eventOf(key, hook.id, failed);
    expect(before).toMatchObject({ status: 'failed', attempts: 1 });
    const res = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { mode: 'test' },
    });
    expect(res.status).toBe(200);
    const previewed = await ingest(hook, lead());
    await deliver([previewed]);
    const test = await eventOf(key, hook.id, previewed);
    expect(test).toMatchObject({ status: 'test', attempts: 1 });
    const again = await deliver([failed, previewed]);
    expect(again.explicitAcks.sort()).toEqual(['m0', 'm1']);
    expect(await eventOf(key, hook.id, failed)).toEqual(before);
    expect(await eventOf(key, hook.id, previewed)).toEqual(test);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
  });
});

/** What the consumer logs when an event's attempt fails for a reason worth a retry. */
const transient = (id: number, cause: unknown) => ({
  level: 'error',
  request_id: `event:${id}`,
  error: 'Error',
  cause,
});

describe('transient failures', () => {
  it('retries after 10, 20, 40 s and so on, capped at 160 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelaySeconds)).toEqual([10, 20, 40, 80, 160, 160, 160]);
  });

  it('retries an event whose first attempt fails, noting the error, and the retry processes it once', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    // As if posted with "__fault": "consumer", which a test cannot post without the real queue
    // delivering it too: the first attempt throws.
    await env.DB.prepare(
      `UPDATE inbound_events SET payload = json_set(payload, '$.__fault', 'consumer') WHERE id = ?`,
    )
      .bind(id)
      .run();
    const failedAt = Date.now();
    const { value: first, logged } = await capturingLogs(() => deliver([id]));
    expect(logged).toEqual([transient(id, 'Injected transient fault')]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retries).toEqual([{ msgId: 'm0', delaySeconds: 10 }]);
    expect(await eventOf(key, hook.id, id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'Injected transient fault',
      processed_at: null,
      result: null,
    });
    // Due again with the retry: the cron leaves it to the queue until well after that.
    expect((await eventRow(id))?.queued_at).toBeGreaterThanOrEqual(failedAt + 10_000);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);

    const second = await deliver([{ id, attempts: 2 }]);
    expect(second.explicitAcks).toEqual(['m0']);
    expect(second.retryMessages).toEqual([]);
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(2);
  });

  it('delays each retry longer by attempt, then the dead-letter queue fails the event with the last error', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    const restore = await failing('contacts', accountId, 'database is busy');
    try {
      // max_retries = 5: six deliveries in all, each one failing.
      for (const [attempt, delaySeconds] of [10, 20, 40, 80, 160, 160].entries()) {
        const before = Date.now();
        const { value: result, logged } = await capturingLogs(() => deliver([{ id, attempts: attempt + 1 }]));
        const after = Date.now();
        expect(logged).toEqual([transient(id, expect.stringContaining('database is busy'))]);
        expect(result.retries).toEqual([{ msgId: 'm0', delaySeconds }]);
        const row = await eventRow(id);
        expect(row).toMatchObject({
          status: 'pending',
          attempts: attempt + 1,
          error: expect.stringContaining('database is busy'),
        });
        // Due again when the retry is: the cron leaves it to the queue until then.
        expect(row?.queued_at).toBeGreaterThanOrEqual(before + delaySeconds * 1000);
        expect(row?.queued_at).toBeLessThanOrEqual(after + delaySeconds * 1000);
      }
    } finally {
      await restore();
    }
    const dead = await deliver([{ id, attempts: 1 }], 'crm-events-dlq');
    expect(dead.explicitAcks).toEqual(['m0']);
    expect(dead.retryMessages).toEqual([]);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'failed', attempts: 6, result: null });
    expect(event.error).toMatch(/^Gave up after 6 attempts: .*database is busy/);
    // As data too, and its English made from it says the same.
    expect(event).toMatchObject({
      error_code: 'gave_up',
      error_params: { attempts: 6, last: expect.stringContaining('database is busy') },
    });
    expect(said('gave_up', event.error_params).message).toBe(event.error);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
  });

  it('leaves an event the dead-letter queue names alone once it is processed, and drops junk there', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    await deliver([id]);
    const processed = await expectOneLead(key, accountId, hook.id, id);
    const dead = await deliver([id], 'crm-events-dlq');
    expect(dead.explicitAcks).toEqual(['m0']);
    expect(await eventOf(key, hook.id, id)).toEqual(processed);
    expect(await recordCounts(accountId)).toEqual(ONE_LEAD);
  });

  it('through the real queue: a first attempt that fails is retried after its delay and processed', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead({ __fault: 'consumer' }));
    const seen = new Set<string>();
    const { logged } = await capturingLogs(async () => {
      for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
        const event = await eventOf(key, hook.id, id);
        seen.add(`${event.status}:${event.attempts}:${event.error}`);
        if (event.status !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    expect(logged).toEqual([transient(id, 'Injected transient fault')]);
    // The real consumer saw the injected fault once, then the queue redelivered it.
    expect(seen).toContain('pending:1:Injected transient fault');
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(2);
  }, 60_000);
});

describe('permanent errors fail the event at once', () => {
  /** Delivers the event; asserts it was acked (not retried), failed on its first attempt, and wrote nothing. */
  async function expectFailed(key: string, accountId: number, hookId: number, id: number, error: RegExp) {
    const result = await deliver([id]);
    expect(result.explicitAcks).toEqual(['m0']);
    expect(result.retryMessages).toEqual([]);
    const event = await eventOf(key, hookId, id);
    expect(event).toMatchObject({ status: 'failed', attempts: 1, result: null, processed_at: null });
    expect(event.error).toMatch(error);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);
  }

  it('fails an event that must create a contact with no name, email or phone, yet updates a matched contact without a name', async () => {
    const {
      key,
      id: accountId,
      hook,
    } = await leadSetup({
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'email', type: 'email', target: 'contact.email' },
        { key: 'telefone', type: 'phone', target: 'contact.phone' },
        { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
      ],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const id = await ingest(hook, { veiculo: 'Onix', __fault: 'send' });
    await expectFailed(
      key,
      accountId,
      hook.id,
      id,
      /^contact\.name: needed to create a contact, and the event has no name, email or phone/,
    );

    const contact = await create(key, '/v1/contacts', { name: 'Já Existe', phone: '11987654321' });
    const matched = await ingest(hook, lead({ nome: undefined, veiculo: 'Kwid' }));
    await deliver([matched]);
    const event = await eventOf(key, hook.id, matched);
    expect(event).toMatchObject({ status: 'processed', result: { contact_id: contact.id } });
    expect(event.warnings.map((w: Json) => w.code)).not.toContain('contact_named_from');
    expect(await get(key, `/v1/contacts/${contact.id}`)).toMatchObject({
      name: 'Já Existe',
      custom_fields: { veiculo: 'Kwid' },
    });
  });

  it('fails an event that no longer fits a mapping changed after it arrived', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    const res = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { fields: [...LEAD_FIELDS, { key: 'email', type: 'email', required: true }] },
    });
    expect(res.status).toBe(200);
    await expectFailed(key, accountId, hook.id, id, /^The mapping changed .*email: This field is required/);
    // The failure as data on /v1 too: its code, and each field error with its own code.
    expect(await eventOf(key, hook.id, id)).toMatchObject({
      error_code: 'mapping_changed',
      error_params: { errors: [{ path: 'email', code: 'required', message: 'This field is required.' }] },
    });
  });
});

describe('a value a flow cannot use loses no lead: the action runs without it or is skipped, with a warning', () => {
  it('names a contact to create without a name after its email, else its phone (normalised), with a contact_named_from warning', async () => {
    const {
      key,
      id: accountId,
      hook,
    } = await leadSetup({
      fields: [...LEAD_FIELDS, { key: 'email', type: 'email', target: 'contact.email' }],
    });
    const byPhone = await runEvent(key, hook, lead({ nome: undefined }));
    expect(byPhone).toMatchObject({ status: 'processed' });
    expect(byPhone.warnings).toContainEqual({
      path: 'flows.0',
      code: 'contact_named_from',
      params: { by: 'phone', value: '+5511987654321' },
      message: expect.stringContaining('named after its phone, +5511987654321'),
    });
    expect(await get(key, `/v1/contacts/${byPhone.result.contact_id}`)).toMatchObject({
      name: '+5511987654321',
      phone: '+5511987654321',
      custom_fields: { veiculo: 'Onix' },
    });

    const byEmail = await runEvent(
      key,
      hook,
      lead({ nome: undefined, telefone: '11912345678', email: ' Bia@Exemplo.com.br ' }),
    );
    expect(byEmail).toMatchObject({ status: 'processed' });
    expect(byEmail.warnings.map((w: Json) => w.code)).toContain('contact_named_from');
    const named = await get(key, `/v1/contacts/${byEmail.result.contact_id}`);
    expect(named.name).toBe(named.email);
    expect(named.name).toMatch(/^bia@exemplo\.com\.br$/i);
    expect(await countRows('contacts', accountId)).toBe(2);

    // A later event with the name renames the contact as usual.
    const later = await runEvent(key, hook, lead({ nome: 'Bia Lima', telefone: '11912345678' }));
    expect(later.result.contact_id).toBe(byEmail.result.contact_id);
    expect((await get(key, `/v1/contacts/${byEmail.result.contact_id}`)).name).toBe('Bia Lima');
  });

  it('writes the records of an owner who is no longer a user without them, and goes on round robin without them', async () => {
    const account = await newAccount();
    const gone = await create(account.key, '/v1/users', { name: 'Saiu', email: 'saiu@x.com' });
    const stays = await create(account.key, '/v1/users', { name: 'Fica', email: 'fica@x.com' });
    const trashed = await create(account.key, '/v1/users', { name: 'Lixo', email: 'lixo@x.com' });
    const hook = await newWebhook(account.key, {
      fields: LEAD_FIELDS,
      flows: [
        { ...LEAD_FLOWS[0], owner: { user_id: trashed.id } },
        { ...LEAD_FLOWS[1], owner: { round_robin: [gone.id, stays.id] } },
        { ...LEAD_FLOWS[2], owner: { user_id: gone.id } },
      ],
    });
    const id = await ingest(hook, lead());
    // Users have no hard DELETE in the API: removed straight from D1; the other goes to the trash.
    await env.DB.prepare('DELETE FROM users WHERE id = ?').bind(gone.id).run();
    expect((await call(`/v1/users/${trashed.id}`, { method: 'DELETE', key: account.key })).status).toBe(204);
    await deliver([id]);
    const event = await expectOneLead(account.key, account.id, hook.id, id);
    expect(event.warnings).toEqual([
      {
        path: 'flows.0.owner',
        code: 'owner_unavailable',
        params: { action: expect.any(String), index: 0, user_ids: [trashed.id], left: 0 },
        message: expect.stringContaining(`No user ${trashed.id}`),
      },
      {
        path: 'flows.1.owner',
        code: 'owner_unavailable',
        params: { action: expect.any(String), index: 1, user_ids: [gone.id], left: 1 },
        message: expect.stringContaining('went on without them'),
      },
      {
        path: 'flows.2.owner',
        code: 'owner_unavailable',
        params: { action: expect.any(String), index: 2, user_ids: [gone.id], left: 0 },
        message: expect.stringContaining('without an owner'),
      },
    ]);
    const { contact_id, deal_id, task_ids } = event.result;
    expect((await get(account.key, `/v1/contacts/${contact_id}`)).owner_id).toBeNull();
    expect((await get(account.key, `/v1/deals/${deal_id}`)).owner_id).toBe(stays.id);
    expect((await get(account.key, `/v1/tasks/${task_ids[0]}`)).owner_ids).toEqual([]);
  });

  it('skips upsert_company for an invalid CNPJ, or a new CNPJ without a company name, and writes the rest', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, {
      fields: [
        ...LEAD_FIELDS,
        { key: 'cnpj', type: 'string', target: 'company.cnpj' },
        { key: 'empresa', type: 'string', target: 'company.name' },
      ],
      flows: [LEAD_FLOWS[0], { action: 'upsert_company' }, ...LEAD_FLOWS.slice(1)],
    });
    const unknown = await ingest(hook, lead({ cnpj: '11.222.333/0001-81' }));
    await deliver([unknown]);
    const first = await expectOneLead(account.key, account.id, hook.id, unknown);
    expect(first.result.company_id).toBeNull();
    expect(first.warnings).toEqual([
      {
        path: 'flows.1',
        code: 'step_skipped',
        params: { action: 'upsert_company', index: 1, reason: { code: 'no_company_name', params: {} } },
        message: expect.stringContaining('no company name'),
      },
    ]);
    const invalid = await ingest(hook, lead({ cnpj: '11.222.333/0001-82', empresa: 'Acme' }));
    await deliver([invalid]);
    const second = await eventOf(account.key, hook.id, invalid);
    expect(second).toMatchObject({ status: 'processed', result: { company_id: null } });
    expect(second.warnings).toEqual([
      {
        path: 'flows.1',
        code: 'step_skipped',
        params: {
          action: 'upsert_company',
          index: 1,
          reason: {
            code: 'unusable',
            params: {
              record: 'company',
              field: 'cnpj',
              cause: expect.objectContaining({ code: 'invalid', params: { expected: 'cnpj' } }),
            },
          },
        },
        message: expect.stringMatching(/cnpj is unusable \(Expected a valid CNPJ/),
      },
    ]);
    expect(await recordCounts(account.id)).toMatchObject({ contacts: 1, companies: 0, deals: 2, tasks: 2 });
  });

  it('skips a task whose rendered name does not fit, and a deal with an empty name with its tasks', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, {
      fields: [...LEAD_FIELDS, { key: 'apelido', type: 'string' }, { key: 'obs', type: 'string' }],
      flows: [
        LEAD_FLOWS[0],
        { action: 'create_deal', name: '{{apelido}}' },
        { action: 'create_task', name: 'Ligar: {{obs}}', category: 'Follow-up' },
        { action: 'create_task', name: 'Visitar', category: 'Visita' },
      ],
    });
    const long = await ingest(hook, lead({ apelido: 'Aninha', obs: 'x'.repeat(250) }));
    await deliver([long]);
    const first = await eventOf(account.key, hook.id, long);
    expect(first).toMatchObject({ status: 'processed', result: { task_ids: [expect.any(Number)] } });
    expect(first.warnings).toEqual([
      {
        path: 'flows.2',
        code: 'step_skipped',
        params: expect.objectContaining({ action: 'create_task', index: 2 }),
        message: expect.stringMatching(/task's name is unusable.*255/),
      },
    ]);
    expect((await get(account.key, `/v1/tasks/${first.result.task_ids[0]}`)).name).toBe('Visitar');
    const empty = await ingest(hook, lead({ obs: 'curta' }));
    await deliver([empty]);
    const second = await eventOf(account.key, hook.id, empty);
    expect(second).toMatchObject({ status: 'processed', result: { deal_id: null, task_ids: [] } });
    expect(second.warnings.map((w: Json) => [w.path, w.code])).toEqual([
      ['flows.1', 'step_skipped'],
      ['flows.2', 'step_skipped'],
      ['flows.3', 'step_skipped'],
    ]);
    expect(await recordCounts(account.id)).toMatchObject({ contacts: 1, deals: 1, tasks: 1 });
  });
});

describe('event log and replay', () => {
  it('lists events newest first with their outcome, filtered by status and paged', async () => {
    const { key, hook } = await leadSetup();
    const processed = await ingest(hook, lead());
    await deliver([processed]);
    const failed = await failedEvent(key, hook, lead({ telefone: '11 3456-7890' }));
    const pending = await ingest(hook, lead({ telefone: '+1 415 555 0100' }));

    const all = await eventLog(key, hook.id);
    expect(all.map((e) => e.id)).toEqual([pending, failed, processed]);
    const [p, f, ok] = all;
    expect(p).toEqual({
      id: pending,
      webhook_id: hook.id,
      status: 'pending',
      attempts: 0,
      error: null,
      error_code: null,
      error_params: null,
      received_at: expect.stringMatching(/Z$/),
      processed_at: null,
      payload: lead({ telefone: '+1 415 555 0100' }),
      result: null,
      preview: null,
      warnings: [],
      rejection: null,
      history: [],
    });
    expect(f).toMatchObject({ status: 'failed', attempts: 1, error: expect.any(String), result: null });
    expect(ok).toMatchObject({
      status: 'processed',
      attempts: 1,
      error: null,
      processed_at: expect.stringMatching(/Z$/),
      result: {
        contact_id: expect.any(Number),
        company_id: null,
        deal_id: expect.any(Number),
        task_ids: [expect.any(Number)],
      },
    });

    expect((await eventLog(key, hook.id, 'status=failed')).map((e) => e.id)).toEqual([failed]);
    expect((await eventLog(key, hook.id, 'status=processed')).map((e) => e.id)).toEqual([processed]);
    expect((await eventLog(key, hook.id, 'status=test')).map((e) => e.id)).toEqual([]);
    const page = await json(await call(`/v1/inbound-webhooks/${hook.id}/events?limit=2`, { key }));
    expect(page.data.map((e: Json) => e.id)).toEqual([pending, failed]);
    const rest = await json(
      await call(
        `/v1/inbound-webhooks/${hook.id}/events?limit=2&cursor=${encodeURIComponent(page.meta.next_cursor)}`,
        { key },
      ),
    );
    expect(rest.data.map((e: Json) => e.id)).toEqual([processed]);
    expect(rest.meta.next_cursor).toBeNull();
  });

  it('replays a failed event once its cause is fixed; only failed events of the account can be replayed', async () => {
    const { key, id: accountId, hook } = await leadSetup();
    const id = await ingest(hook, lead());
    await setFields(key, hook, EMAIL_REQUIRED);
    await deliver([id]);
    expect(await eventOf(key, hook.id, id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^The mapping changed .*email/),
    });
    const replay = () => call(`/v1/inbound-webhooks/${hook.id}/events/${id}/replay`, { method: 'POST', key });

    // Fixed: the email is optional again.
    await setFields(key, hook, LEAD_FIELDS);
    const res = await replay();
    expect(res.status).toBe(202);
    expect((await json(res)).data).toMatchObject({ id, status: 'pending', error: null, attempts: 1 });
    // Pending again: a second replay is a conflict until it has failed again.
    await expectProblem(await replay(), 409, 'conflict');
    await deliver([{ id, attempts: 1 }]);
    expect((await expectOneLead(key, accountId, hook.id, id)).attempts).toBe(2);
    await expectProblem(await replay(), 409, 'conflict');

    await expectProblem(
      await call(`/v1/inbound-webhooks/${hook.id}/events/${id + 1000}/replay`, { method: 'POST', key }),
      404,
      'not_found',
    );
    const other = await newWebhook(key, { fields: LEAD_FIELDS, flows: LEAD_FLOWS });
    await expectProblem(
      await call(`/v1/inbound-webhooks/${other.id}/events/${id}/replay`, { method: 'POST', key }),
      404,
      'not_found',
    );
  });

  it('does not let another account replay or read a failed event', async () => {
    const { key, hook } = await leadSetup();
    const id = await failedEvent(key, hook);
    const stranger = await newAccount('Other');
    await expectProblem(
      await call(`/v1/inbound-webhooks/${hook.id}/events/${id}/replay`, {
        method: 'POST',
        key: stranger.key,
      }),
      404,
      'not_found',
    );
    await expectProblem(
      await call(`/v1/inbound-webhooks/${hook.id}/events`, { key: stranger.key }),
      404,
      'not_found',
    );
    expect(await eventOf(key, hook.id, id)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
