import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { quotaBytes, retentionDays } from '../../src/webhooks/log/event-storage';
import {
  accountsOnShard,
  call,
  callWithEnv,
  create,
  expectProblem,
  type Json,
  list,
  newAccount,
  newWebhook,
  postEvent,
  roundTrips,
} from '../helpers';
import { deliver, ingest, leadHook } from '../queue/webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 24 * 60 * 60_000;

const cron = (bindings: Partial<typeof env> = {}) =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' }), {
    ...env,
    ...bindings,
  });

const rows = async <T>(query: string, ...params: unknown[]): Promise<T[]> =>
  (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;

/** Moves events `ms` into the past. */
async function backdate(ids: number[], ms: number): Promise<void> {
  for (const id of ids) {
    await env.DB.prepare('UPDATE inbound_events SET received_at = received_at - ?1 WHERE id = ?2')
      .bind(ms, id)
      .run();
  }
}

const eventIds = async (hookId: number): Promise<number[]> =>
  (await rows<{ id: number }>('SELECT id FROM inbound_events WHERE webhook_id = ? ORDER BY id', hookId)).map(
    (r) => r.id,
  );

/** The account's counter, and what its events really take up, computed here from the rows. */
async function storage(accountId: number) {
  const [counted] = await rows<{ bytes: number; events: number }>(
    'SELECT bytes, events FROM account_event_storage WHERE account_id = ?',
    accountId,
  );
  const [real] = await rows<{ bytes: number; events: number }>(
    // What each event costs, its search index included (the view of drizzle/0020_webhook_event_storage.sql).
    'SELECT coalesce(sum(bytes), 0) AS bytes, count(*) AS events FROM inbound_event_cost WHERE account_id = ?',
    accountId,
  );
  return { counted: counted ?? { bytes: 0, events: 0 }, real: real ?? { bytes: -1, events: -1 } };
}

/**
 * A lead whose declared name is as long as a field takes (10,000 characters) and 250 KiB of
 * undeclared padding, which the event does not keep: about 11 KB counted per call.
 */
const big = (n: number) =>
  JSON.stringify({
    nome: `${n} ${'x'.repeat(9_990)}`,
    telefone: `119${String(44440000 + n).padStart(8, '0')}`,
    pad: 'x'.repeat(240 * 1024),
    __fault: 'send',
  });

/** Posts `post(n)` for n = 1, 2, … until one is not a 204 (at most 500); the count of 204s. */
async function fillStorage(post: (n: number) => Promise<Response>): Promise<number> {
  for (let n = 1; n <= 500; n++) {
    const res = await post(n);
    if (res.status !== 204) {
      expect(res.status, `post ${n}`).toBe(429);
      return n - 1;
    }
  }
  throw new Error('500 posts and the storage is not full');
}

describe('event retention: the cron purges old events', () => {
  it('deletes events past 30 days with their results, keeps the records they wrote, newer events and pending ones', async () => {
    const { key, id: accountId, hook } = await leadHook();
    const old = await ingest(hook, { nome: 'Velho', telefone: '11911110000', __fault: 'send' });
    await deliver([old]);
    const [oldEvent] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events?limit=1`)).data;
    expect(oldEvent).toMatchObject({ id: old, status: 'processed' });
    await expectProblem(await postEvent(hook.url, { nome: 'Sem telefone' }), 400, 'invalid_fields');
    const stuck = await ingest(hook, { nome: 'Pendente', telefone: '11911110001', __fault: 'send' });
    const recent = await ingest(hook, { nome: 'Novo', telefone: '11911110002', __fault: 'send' });
    const all = await eventIds(hook.id);
    expect(all).toHaveLength(4);
    const rejected = all.filter((id) => ![old, stuck, recent].includes(id));
    await backdate([old, ...rejected, stuck], 31 * DAY);
    await backdate([recent], 29 * DAY);

    await cron();

    expect(await eventIds(hook.id)).toEqual([stuck, recent]);
    expect(await rows('SELECT * FROM inbound_event_results WHERE event_id = ?', old)).toEqual([]);
    // The records stay; no event names them any more.
    const contact = await call(`/v1/contacts/${oldEvent.result.contact_id}`, { key });
    expect(contact.status).toBe(200);
    expect((await call(`/v1/deals/${oldEvent.result.deal_id}`, { key })).status).toBe(200);
    const { counted, real } = await storage(accountId);
    expect(counted).toEqual(real);
    expect(real.events).toBe(2);
  });

  it('takes EVENT_RETENTION_DAYS from the configuration, and 30 days when it is invalid', async () => {
    const { hook } = await leadHook();
    const eightDays = await ingest(hook, { telefone: '11922220000', __fault: 'send' });
    await deliver([eightDays]);
    await backdate([eightDays], 8 * DAY);
    for (const invalid of ['', '0', '-7', '7.5', 'week']) {
      await cron({ EVENT_RETENTION_DAYS: invalid });
      expect(await eventIds(hook.id), invalid).toEqual([eightDays]);
    }
    await cron({ EVENT_RETENTION_DAYS: '7' });
    expect(await eventIds(hook.id)).toEqual([]);
    // Own properties only: a value inherited from a prototype is never configuration.
    const inherited = Object.create({ EVENT_RETENTION_DAYS: '1', EVENT_STORAGE_QUOTA_MIB: '1' });
    expect(retentionDays(inherited)).toBe(30);
    expect(quotaBytes(inherited)).toBe(256 * 1024 * 1024);
    expect(retentionDays({ EVENT_RETENTION_DAYS: ' 7 ' })).toBe(7);
  });

  it('purges in bounded batches: at most 5,000 events a run, the rest on the next runs', async () => {
    const { id: accountId, hook } = await leadHook();
    const old = Date.now() - 40 * DAY;
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5200)
       INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at)
       SELECT ?1, ?2, 'production', 'processed', '{"n":' || i || '}', '{}', ?3 + i, ?3 + i FROM n`,
    )
      .bind(accountId, hook.id, old)
      .run();
    await cron();
    expect(await eventIds(hook.id)).toHaveLength(200);
    await cron();
    expect(await eventIds(hook.id)).toEqual([]);
    const { counted, real } = await storage(accountId);
    expect(counted).toEqual(real);
    expect(real).toEqual({ bytes: 0, events: 0 });
  });
  it('purges the same events with their results when a batch boundary falls inside a run of equal received_at', async () => {
    const { id: accountId, hook } = await leadHook();
    const old = Date.now() - 40 * DAY;
    // 600 events received in the same millisecond, each with its result row: the first batch of
    // 500 must delete exactly the results of the events it deletes.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)
       INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at)
       SELECT ?1, ?2, 'production', 'processed', '{"n":' || (600 - i) || '}', '{}', ?3, ?3 FROM n`,
    )
      .bind(accountId, hook.id, old)
      .run();
    await env.DB.prepare(
      'INSERT INTO inbound_event_results (event_id, account_id) SELECT id, account_id FROM inbound_events WHERE webhook_id = ?',
    )
      .bind(hook.id)
      .run();
    await cron({ EVENT_RETENTION_DAYS: '30' });
    expect(await eventIds(hook.id)).toEqual([]);
    const orphans = await rows(
      'SELECT r.event_id FROM inbound_event_results r LEFT JOIN inbound_events e ON e.id = r.event_id WHERE r.account_id = ? AND e.id IS NULL',
      accountId,
    );
    expect(orphans).toEqual([]);
  });
});

describe('event storage quota', () => {
  it('counts every byte an event takes, through ingest, rejection, processing, test previews and erasure', async () => {
    const { key, id: accountId, hook } = await leadHook();
    const first = await ingest(hook, { nome: 'Ana', telefone: '11933330000', __fault: 'send' });
    await deliver([first]);
    await expectProblem(await postEvent(hook.url, '{"nome":'), 400, 'malformed_json');
    const failed = await ingest(hook, { telefone: '11933330001', __fault: 'send' });
    await deliver([failed]);
    await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { mode: 'test' } });
    const test = await ingest(hook, { nome: 'Bia', telefone: '11933330002', __fault: 'send' });
    await deliver([test]);
    const after = await storage(accountId);
    expect(after.counted).toEqual(after.real);
    expect(after.real.events).toBe(4);
    const [processed] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events?status=processed`)).data;
    const erased = await call(`/v1/contacts/${processed.result.contact_id}?erase=true`, {
      method: 'DELETE',
      key,
    });
    expect(erased.status).toBe(204);
    const erasedToo = await storage(accountId);
    expect(erasedToo.counted).toEqual(erasedToo.real);
    expect(erasedToo.real.bytes).toBeLessThan(after.real.bytes);
  });

  it('answers 429 event_storage_full once the account fills its quota, stores nothing, and other accounts go on', async () => {
    // One webhook may take the whole quota here: the account's bound alone is under test.
    const quota = { EVENT_STORAGE_QUOTA_MIB: '1', EVENT_STORAGE_WEBHOOK_PERCENT: '100' };
    const { id: accountId, hook } = await leadHook();
    const other = await leadHook();
    const post = (h: Json, body: string) =>
      callWithEnv(quota, h.path, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    const posted = await fillStorage((n) => post(hook, big(n)));
    expect(posted).toBeGreaterThan(20);
    const before = await storage(accountId);
    expect(before.counted.bytes).toBeGreaterThanOrEqual(1024 * 1024);

    const full = await post(hook, big(1000));
    const problem = await expectProblem(full, 429, 'event_storage_full');
    expect(problem.detail).toContain('not a rate limit');
    expect(problem.detail).toContain('fill its storage quota');
    // It names what frees space: the retention purge, a delete by the account, the operator's quota.
    expect(problem.detail).toContain('30-day retention');
    expect(problem.detail).toContain('deletes events of this webhook');
    expect(problem.detail).toContain('EVENT_STORAGE_QUOTA_MIB');
    expect(full.headers.get('Retry-After')).toBe('300');
    // One round trip: the webhook lookup reads the usage too, and nothing is written.
    expect(roundTrips(full)).toBe(1);
    // Not even a rejected event: the full storage stays as it was.
    expect(await storage(accountId)).toEqual(before);
    expect((await post(hook, '{"nome":')).status).toBe(429);
    expect(await storage(accountId)).toEqual(before);
    // The same account under the default quota, and another account, are not affected.
    expect((await postEvent(hook.url, { telefone: '11944449999', __fault: 'send' })).status, 'default').toBe(
      204,
    );
    expect((await post(other.hook, big(1001))).status, 'other').toBe(204);

    // Once old events pass the retention and are purged, there is room again.
    // (Processed first: a pending event is never purged.)
    await deliver(await eventIds(hook.id));
    await backdate(await eventIds(hook.id), 31 * DAY);
    await cron();
    expect(await storage(accountId)).toEqual({
      counted: { bytes: 0, events: 0 },
      real: { bytes: 0, events: 0 },
    });
    expect((await post(hook, big(1002))).status).toBe(204);
  });

  it('answers a retry of an event stored before the account filled up 204, as anywhere else; a new key 429, another body 422', async () => {
    const quota = { EVENT_STORAGE_QUOTA_MIB: '1', EVENT_STORAGE_WEBHOOK_PERCENT: '100' };
    const { id: accountId, hook } = await leadHook();
    const post = (body: string, key: string) =>
      callWithEnv(quota, hook.path, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      });
    const last = (await fillStorage((n) => post(big(n), `k${n}`))) - 1;
    const before = await storage(accountId);
    await expectProblem(await post(big(1000), 'k1000'), 429, 'event_storage_full');

    // The sender never saw the 204 of its last call and retries it: it is stored, so 204, and nothing is written.
    expect((await post(big(last), `k${last}`)).status).toBe(204);
    expect(await storage(accountId)).toEqual(before);
    // The same key with another body is the usual 422, and is not kept while the storage is full.
    await expectProblem(await post(big(1001), `k${last}`), 422, 'idempotency_key_reused');
    expect(await storage(accountId)).toEqual(before);
  });

  it('shows the usage and the quota on GET /v1/usage, one round trip, own account only', async () => {
    const { key, id: accountId, hook } = await leadHook();
    await ingest(hook, { telefone: '11955550000', __fault: 'send' });
    const res = await call('/v1/usage', { key });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    const { counted } = await storage(accountId);
    expect((await res.json<Json>()).data).toEqual({
      inbound_webhooks: { count: 1, limit: 50 },
      event_storage: {
        used_bytes: counted.bytes,
        quota_bytes: 256 * 1024 * 1024,
        webhook_quota_bytes: 64 * 1024 * 1024,
        events: 1,
        retention_days: 30,
        full: false,
      },
      // The event was not processed: no record written, no journal entry.
      change_journal: { entries: 0, retention_days: 30 },
    });
    const fresh = await newAccount();
    expect((await (await call('/v1/usage', { key: fresh.key })).json<Json>()).data).toMatchObject({
      inbound_webhooks: { count: 0 },
      event_storage: { used_bytes: 0, events: 0, full: false },
    });
  });
});

describe('webhooks per account', () => {
  it('refuses the 51st webhook with 409 webhook_limit_reached, disabled ones counted, other accounts unaffected', async () => {
    const { key } = await newAccount();
    const first = await newWebhook(key, { name: 'W0' });
    await call(`/v1/inbound-webhooks/${first.id}`, { method: 'DELETE', key });
    for (let i = 1; i < 50; i++) await create(key, '/v1/inbound-webhooks', { name: `W${i}` });
    const refused = await call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'W50' } });
    const problem = await expectProblem(refused, 409, 'webhook_limit_reached');
    expect(problem.detail).toContain('50');
    expect((await list(key, '/v1/inbound-webhooks?limit=100')).data).toHaveLength(50);
    const other = await newAccount();
    expect(
      (await call('/v1/inbound-webhooks', { method: 'POST', key: other.key, body: { name: 'X' } })).status,
    ).toBe(201);
  });
});

describe('rejected events: junk cannot flush the evidence', () => {
  it('keeps the newest and the first rejection of each distinct problem beyond the newest 100, at most 50 problems each', async () => {
    const { key } = await newAccount();
    const fields = Array.from({ length: 60 }, (_, i) => ({ key: `f${i}`, type: 'number', required: true }));
    const hook = await newWebhook(key, { fields });
    const all = Object.fromEntries(fields.map((f) => [f.key, 1]));
    // 60 real refusals, each a distinct first missing field.
    for (let i = 0; i < 60; i++) {
      const body = { ...all };
      delete body[`f${i}`];
      await expectProblem(await postEvent(hook.url, body), 400, 'invalid_fields');
    }
    for (let i = 0; i < 110; i++)
      await expectProblem(await postEvent(hook.url, '{"junk":'), 400, 'malformed_json');

    const log = [
      ...(await list(key, `/v1/inbound-webhooks/${hook.id}/events?status=rejected&limit=100`)).data,
    ];
    const [count] = await rows<{ n: number }>(
      "SELECT count(*) AS n FROM inbound_events WHERE webhook_id = ? AND status = 'rejected'",
      hook.id,
    );
    // The newest 100 (junk), the newest of each of the 50 latest problems (junk is one of them),
    // and the first of each of the 50 earliest.
    expect(count?.n).toBe(160);
    const kept = await rows<{ path: string }>(
      "SELECT json_extract(rejection, '$.errors[0].path') AS path FROM inbound_events WHERE webhook_id = ? AND json_extract(rejection, '$.code') = 'invalid_fields' ORDER BY id",
      hook.id,
    );
    expect(kept.map((k) => k.path)).toEqual(fields.map((f) => f.key));
    expect(log.every((e) => e.rejection.code === 'malformed_json')).toBe(true);
  });

  it('110 junk posts leave the earlier real refusal in the event log', async () => {
    const { key, hook } = await leadHook();
    await expectProblem(await postEvent(hook.url, { nome: 'Ana' }), 400, 'invalid_fields');
    for (let i = 0; i < 110; i++)
      await expectProblem(await postEvent(hook.url, '{"junk":'), 400, 'malformed_json');
    const [oldest] = (
      await list(key, `/v1/inbound-webhooks/${hook.id}/events?status=rejected&sort=received_at&limit=1`)
    ).data;
    expect(oldest.rejection).toMatchObject({ code: 'invalid_fields', errors: [{ path: 'telefone' }] });
  });
});
