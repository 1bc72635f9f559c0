import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { messageShard } from '../../src/core/message-shard';
import { idSpan, shardCount } from '../../src/db/shards';
import worker from '../../src/index';
import { isImportMessage } from '../../src/model/import-messages';
import { isDeliveryMessage, isFanoutMessage } from '../../src/outbound/messages';
import { isEventMessage } from '../../src/webhooks/log/event-messages';
import { withCheckDigits } from '../cnpj';
import {
  adminHeaders,
  CONTACT_BY_PHONE,
  call,
  callWithEnv,
  capturingLogs,
  create,
  d1OfRow,
  emptyMigrationDb,
  expectProblem,
  type Json,
  json,
  newAccount,
  newWebhook,
  postEvent,
  roundTrips,
} from '../helpers';
import { panel, signIn } from '../panel/browser';

// Shards (src/db/shards.ts, docs/scaling.md): the suite's Worker has 3 (vitest.config.ts).

const inRange = (table: string, shard: number, id: number) =>
  id >= shard * idSpan(table) && id < (shard + 1) * idSpan(table);

/** An account on `shard` with a company, a contact and a webhook. */
async function seeded(shard: number) {
  const account = await newAccount(`Shard ${shard}`, shard);
  const cnpj = withCheckDigits(`${String(Date.now() % 1e9).padStart(9, '0')}${shard}01`.slice(-12));
  const company = await create(account.key, '/v1/companies', { name: `Empresa ${shard}`, cnpj });
  const contact = await create(account.key, '/v1/contacts', {
    name: `Pessoa ${shard}`,
    company_id: company.id,
  });
  const hook = await newWebhook(account.key);
  return { ...account, company, contact, hook };
}

describe('shards', () => {
  it('are the bindings DB, DB_1, DB_2 here', () => {
    expect(shardCount(env)).toBe(3);
  });

  it("give each shard's rows ids of its own range: rows made on shards 0, 1 and 2 never share an id", async () => {
    const made = await Promise.all([0, 1, 2].map(seeded));
    for (const [shard, s] of made.entries()) {
      expect(inRange('accounts', shard, s.id)).toBe(true);
      expect(inRange('api_keys', shard, s.keyId)).toBe(true);
      expect(inRange('companies', shard, s.company.id)).toBe(true);
      expect(inRange('contacts', shard, s.contact.id)).toBe(true);
      expect(inRange('inbound_webhooks', shard, s.hook.id)).toBe(true);
    }
    for (const ids of [
      made.map((s) => s.id),
      made.map((s) => s.keyId),
      made.map((s) => s.company.id),
      made.map((s) => s.contact.id),
      made.map((s) => s.hook.id),
    ])
      expect(new Set(ids).size).toBe(3);
  });

  it('put the shard in every credential: keys, webhook URLs and panel sessions (none for shard 0)', async () => {
    const [zero, two] = await Promise.all([seeded(0), seeded(2)]);
    expect(zero.key).toMatch(/^crm_[A-Za-z0-9_-]{43}$/);
    expect(two.key).toMatch(/^crm_s2_[A-Za-z0-9_-]{43}$/);
    expect(zero.hook.path).toMatch(/^\/hooks\/whk_[A-Za-z0-9_-]{43}$/);
    expect(two.hook.path).toMatch(/^\/hooks\/whk_s2_[A-Za-z0-9_-]{43}$/);
    // A key made with the key of a shard 2 account is a shard 2 key.
    const made = await call('/v1/api-keys', { method: 'POST', key: two.key, body: { name: 'More' } });
    expect((await json(made)).data.key).toMatch(/^crm_s2_/);
    expect(await signIn(zero.key)).toMatch(/^crm_session=[A-Za-z0-9_-]{43}$/);
    const cookie = await signIn(two.key);
    expect(cookie).toMatch(/^crm_session=s2_[A-Za-z0-9_-]{43}$/);
    expect((await panel('/panel/webhooks', { cookie })).status).toBe(200);
  });

  it('cost no round trip: a read on shard 2 is 1 with its key check, a write 2, an ingest 2', async () => {
    const s = await seeded(2);
    expect(roundTrips(await call(`/v1/companies/${s.company.id}`, { key: s.key }))).toBe(1);
    expect(roundTrips(await call('/v1/companies', { key: s.key }))).toBe(1);
    const written = await call('/v1/contacts', { method: 'POST', key: s.key, body: { name: 'Outra' } });
    expect(written.status).toBe(201);
    expect(roundTrips(written)).toBe(2);
    const ingested = await postEvent(s.hook.path, { nome: 'Ana' });
    expect(ingested.status).toBe(204);
    expect(roundTrips(ingested)).toBe(2);
  });

  it('treat a credential naming a shard the Worker lacks, or another shard than its own, as unknown: 401 and 404, never a 500', async () => {
    const s = await seeded(1);
    const random = s.key.slice('crm_s1_'.length);
    for (const key of [`crm_s9_${random}`, `crm_s2_${random}`, `crm_${random}`, `crm_s0_${random}`]) {
      await expectProblem(await call('/v1/companies', { key }), 401, 'unauthorized');
    }
    const token = s.hook.path.slice('/hooks/whk_s1_'.length);
    for (const path of [`/hooks/whk_s9_${token}`, `/hooks/whk_s2_${token}`, `/hooks/whk_${token}`]) {
      const res = await postEvent(path, { nome: 'Ana' });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('');
    }
    const cookie = await signIn(s.key);
    const moved = cookie.replace('=s1_', '=s9_');
    const res = await panel('/panel/webhooks', { cookie: moved });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/panel/sign-in');
  });

  it('keep tenants apart across shards: an id of a shard 1 account is a 404 to a shard 2 key, as today', async () => {
    const a = await seeded(1);
    const b = await seeded(2);
    await expectProblem(await call(`/v1/companies/${a.company.id}`, { key: b.key }), 404, 'not_found');
    await expectProblem(await call(`/v1/contacts/${a.contact.id}`, { key: b.key }), 404, 'not_found');
    const put = await call(`/v1/companies/${a.company.id}`, {
      method: 'PUT',
      key: b.key,
      body: { name: 'X' },
    });
    await expectProblem(put, 404, 'not_found');
    const del = await call(`/v1/contacts/${a.contact.id}`, { method: 'DELETE', key: b.key });
    await expectProblem(del, 404, 'not_found');
    // In an id field of a write (a relation): refused exactly as another account's id on the same shard.
    const same = await seeded(2);
    const relation = (companyId: number) =>
      call('/v1/contacts', { method: 'POST', key: b.key, body: { name: 'Rel', company_id: companyId } });
    const across = await relation(a.company.id);
    const beside = await relation(same.company.id);
    expect(across.status).toBe(beside.status);
    const words = async (res: Response) =>
      ((await json(res)).errors as Json[]).map(({ path, code }) => ({ path, code }));
    expect(await words(across)).toEqual(await words(beside));
    // The panel: the shard 2 session meets the shard 1 account's contact and webhook as it meets
    // another account's on its own shard.
    const cookie = await signIn(b.key);
    const pairs = [
      [`/panel/contacts/${a.contact.id}`, `/panel/contacts/${same.contact.id}`],
      [`/panel/webhooks/${a.hook.id}`, `/panel/webhooks/${same.hook.id}`],
    ];
    for (const [across, beside] of pairs) {
      const res = await panel(across as string, { cookie });
      expect(res.status).toBe(404);
      expect(res.status).toBe((await panel(beside as string, { cookie })).status);
    }
    // The other account's rows are untouched.
    const read = await json(await call(`/v1/companies/${a.company.id}`, { key: a.key }));
    expect(read.data.name).toBe('Empresa 1');
  });

  it('read every queue message by the shard it names; one sent before shards means shard 0', () => {
    expect(messageShard({ event_id: 1 })).toBe(0);
    expect(messageShard({ event_id: 1, shard: 2 })).toBe(2);
    for (const shard of [-1, 1.5, '1', null]) {
      expect(messageShard({ event_id: 1, shard })).toBeUndefined();
      expect(isEventMessage({ event_id: 1, shard })).toBe(false);
      expect(isDeliveryMessage({ delivery_id: 1, shard })).toBe(false);
      expect(isFanoutMessage({ fanout: true, shard })).toBe(false);
      expect(isImportMessage({ kind: 'import_chunk', shard })).toBe(false);
    }
    expect(isEventMessage({ event_id: 1 })).toBe(true);
    expect(isDeliveryMessage({ delivery_id: 1, shard: 1 })).toBe(true);
  });

  it('process a webhook post of a shard 2 account through the real queue, on shard 2', async () => {
    const s = await newAccount('Fila', 2);
    const hook = await newWebhook(s.key, CONTACT_BY_PHONE);
    expect((await postEvent(hook.path, { nome: 'Rafaela', telefone: '11987654321' })).status).toBe(204);
    let contacts: Json[] = [];
    for (let tries = 0; tries < 120 && contacts.length === 0; tries++) {
      contacts = (await json(await call('/v1/contacts', { key: s.key }))).data;
      if (!contacts.length) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(contacts.map((c) => c.name)).toEqual(['Rafaela']);
    expect(inRange('contacts', 2, contacts[0].id)).toBe(true);
  });
});

describe('the directory and the admin API', () => {
  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    call(path, { ...init, headers: adminHeaders() });

  it('puts a new account on the least-filled shard (ties: the lowest), or on the one named', async () => {
    const before = (await json(await admin('/admin/shards'))).data as Json[];
    const fewest = Math.min(...before.map((s) => s.accounts));
    const expected = before.find((s) => s.accounts === fewest).shard;
    const made = await json(await admin('/admin/accounts', { method: 'POST', body: { name: 'Menor' } }));
    expect(made.data.account.shard).toBe(expected);
    const named = await json(
      await admin('/admin/accounts', { method: 'POST', body: { name: 'Dois', shard: 2 } }),
    );
    expect(named.data.account).toMatchObject({ shard: 2, state: 'active' });
    const after = (await json(await admin('/admin/shards'))).data as Json[];
    expect(after.map((s) => s.accounts)).toEqual(
      before.map((s) => s.accounts + (s.shard === expected ? 1 : 0) + (s.shard === 2 ? 1 : 0)),
    );
  });

  it('refuses a shard the Worker lacks with 422, and a shard that is no number with 422', async () => {
    for (const shard of [3, 63, -1, 1.5, '1']) {
      const res = await admin('/admin/accounts', { method: 'POST', body: { name: 'Nenhum', shard } });
      const problem = await expectProblem(res, 422, 'validation_failed');
      expect(problem.errors.map((e: Json) => e.path)).toEqual(['shard']);
    }
  });

  it('shows an account with its shard, lists accounts across shards in id order, and each shard', async () => {
    const made = await Promise.all([0, 1, 2].map((shard) => newAccount(`Lista ${shard}`, shard)));
    for (const [shard, account] of made.entries()) {
      const got = await json(await admin(`/admin/accounts/${account.id}`));
      expect(got.data).toMatchObject({ id: account.id, name: `Lista ${shard}`, shard, state: 'active' });
    }
    await expectProblem(await admin('/admin/accounts/999999'), 404, 'not_found');
    const listed: Json[] = [];
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page: Json = await json(
        await admin(`/admin/accounts?limit=7${cursor ? `&cursor=${cursor}` : ''}`),
      );
      listed.push(...page.data);
      cursor = page.meta.next_cursor;
    }
    const ids = listed.map((a) => a.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    for (const [shard, account] of made.entries()) {
      expect(listed.find((a) => a.id === account.id)).toMatchObject({ shard, name: `Lista ${shard}` });
    }
    const shards = (await json(await admin('/admin/shards'))).data as Json[];
    expect(shards.map((s) => s.shard)).toEqual([0, 1, 2]);
    for (const s of shards) {
      expect(s.accounts).toBeGreaterThanOrEqual(1);
      expect(s.rows.accounts).toBeGreaterThanOrEqual(1);
      expect(s.bytes).toBeGreaterThan(0);
    }
  });

  it('issues and revokes further keys on the shard of the account', async () => {
    const account = await newAccount('Chaves', 1);
    const issued = await json(
      await admin(`/admin/accounts/${account.id}/api-keys`, { method: 'POST', body: { name: 'Outra' } }),
    );
    expect(issued.data.key).toMatch(/^crm_s1_/);
    expect((await call('/v1/me', { key: issued.data.key })).status).toBe(200);
    expect((await admin(`/admin/api-keys/${issued.data.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectProblem(await call('/v1/me', { key: issued.data.key }), 401, 'unauthorized');
    await expectProblem(await admin('/admin/api-keys/999999', { method: 'DELETE' }), 404, 'not_found');
  });
});

describe('the cron', () => {
  it("runs its jobs on every shard: one shard's failure is logged and the others still run", async () => {
    // Shard 1 is a database with no tables: each of its jobs fails.
    const broken = await emptyMigrationDb();
    const account = await newAccount('Cron', 2);
    const hook = await newWebhook(account.key);
    expect((await postEvent(hook.path, { nome: 'Ana', __fault: 'send' })).status).toBe(204);
    const d1 = d1OfRow('inbound_webhooks', hook.id);
    const event = await d1
      .prepare('SELECT id FROM inbound_events WHERE webhook_id = ?')
      .bind(hook.id)
      .first<{ id: number }>();
    await d1.prepare('UPDATE inbound_events SET queued_at = 0 WHERE id = ?').bind(event?.id).run();
    const { logged } = await capturingLogs(() =>
      worker.scheduled(createScheduledController({ cron: '*/5 * * * *' }), { ...env, DB_1: broken }),
    );
    // Each of shard 1's jobs fails on its own (a job's failure never skips the next).
    expect(logged.length).toBeGreaterThan(1);
    for (const line of logged)
      expect(line).toEqual(
        expect.objectContaining({ level: 'error', request_id: expect.stringMatching(/^cron:shard:1:/) }),
      );
    // Shard 2's stranded event was handed to the queue again.
    const row = await d1.prepare('SELECT queued_at FROM inbound_events WHERE id = ?').bind(event?.id).first();
    expect(row?.queued_at).toBeGreaterThan(0);
  });
});

describe('a shard whose migrations lag the Worker', () => {
  it('refuses its accounts with 503 shard_unavailable and Retry-After, logged, and serves once they are applied', async () => {
    // Shard 3 here: every migration applied, but the newest one not recorded as applied.
    const lagging = await emptyMigrationDb();
    const migrations = env.TEST_MIGRATIONS;
    await lagging.batch([
      ...migrations.flatMap(({ queries }) => queries.map((query) => lagging.prepare(query))),
      lagging.prepare(
        'CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
      ),
      ...migrations
        .slice(0, -1)
        .map(({ name }) => lagging.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(name)),
    ]);
    const shards = { DB_3: lagging };
    const key = `crm_s3_${'A'.repeat(43)}`;
    for (const path of ['/v1/companies', `/hooks/whk_s3_${'B'.repeat(43)}`]) {
      const method = path.startsWith('/hooks') ? 'POST' : 'GET';
      const { value: res, logged } = await capturingLogs(() =>
        callWithEnv(shards, path, { method, key, ...(method === 'POST' && { body: { nome: 'Ana' } }) }),
      );
      await expectProblem(res, 503, 'shard_unavailable');
      expect(res.headers.get('Retry-After')).toBe('30');
      expect(logged).toEqual([
        expect.objectContaining({ msg: 'shard refused: migrations lag the Worker', shard: 3 }),
      ]);
    }
    // A refusal is not kept: once the newest migration is applied, the shard serves (an unknown key).
    const newest = migrations.at(-1)?.name;
    await lagging.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(newest).run();
    await expectProblem(await callWithEnv(shards, '/v1/companies', { key }), 401, 'unauthorized');
    await emptyMigrationDb();
  });
});
