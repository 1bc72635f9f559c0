import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_REMAINDER_BYTES } from '../../src/webhooks/ingest/stored-body';
import {
  accountsOnShard,
  call,
  callWithEnv,
  expectProblem,
  type Json,
  keyWith,
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

// Issue 34, "Storage and floods": one URL cannot deny its account's other webhooks, the account can
// delete a webhook's events, the search index is counted, and junk cannot flush a real refusal.

const KIB = 1024;
const quota = { EVENT_STORAGE_QUOTA_MIB: '1' };

const rows = async <T>(query: string, ...params: unknown[]): Promise<T[]> =>
  (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;

/** A valid lead padded to about `kib` KiB with undeclared values of 1,000 random characters each. */
const junk = (n: number, kib = 250) =>
  JSON.stringify({
    telefone: `119${String(50000000 + n).padStart(8, '0')}`,
    ...Object.fromEntries(Array.from({ length: kib }, (_, i) => [`f${i}`, randomText(1000)])),
    __fault: 'send',
  });

function randomText(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = new Uint8Array(length);
  // getRandomValues fills at most 64 KiB at a time.
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

const postTo = (hook: Json, body: string, bindings: Partial<typeof env> = quota) =>
  callWithEnv(bindings, hook.path, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });

/** Posts junk to `hook` until it is refused (at most 300 posts): how many were stored. */
async function flood(hook: Json, bindings: Partial<typeof env> = quota): Promise<number> {
  for (let n = 1; n <= 300; n++) {
    const res = await postTo(hook, junk(n), bindings);
    if (res.status !== 204) {
      await expectProblem(res, 429, 'event_storage_full');
      return n - 1;
    }
  }
  throw new Error('300 posts of 250 KiB and the webhook is still storing');
}

const usage = async (key: string) => (await list(key, '/v1/usage')).data.event_storage;

describe('one flooded URL cannot deny the account’s other webhooks', () => {
  it('fills only its own share of the quota: its 429 names the share, the other webhook goes on storing', async () => {
    const { key, hook } = await leadHook();
    const real = await newWebhook(key, {
      fields: [{ key: 'telefone', type: 'phone', required: true, target: 'contact.phone' }],
    });
    const stored = await flood(hook);
    // 250 KiB posts are kept as their declared fields and 16 KiB of the rest, so the share (256 KiB
    // of a 1 MiB quota) takes more than four of them.
    expect(stored).toBeGreaterThan(4);
    const refused = await postTo(hook, junk(999));
    const problem = await expectProblem(refused, 429, 'event_storage_full');
    expect(problem.detail).toContain("this webhook's events fill its share");
    expect(roundTrips(refused)).toBe(1);

    // The account's real integration still stores its leads, and the account is below its quota.
    for (let n = 0; n < 5; n++) expect((await postTo(real, junk(n, 1))).status, `real ${n}`).toBe(204);
    const storage = (await (await callWithEnv(quota, '/v1/usage', { key })).json<Json>()).data.event_storage;
    expect(storage.webhook_quota_bytes).toBe(256 * KIB);
    expect(storage.full).toBe(false);
    expect(storage.used_bytes).toBeLessThan(storage.quota_bytes);
    const [share] = await rows<{ bytes: number }>(
      'SELECT bytes FROM webhook_event_storage WHERE webhook_id = ?',
      hook.id,
    );
    expect(share?.bytes).toBeGreaterThanOrEqual(256 * KIB);
    expect(share?.bytes).toBeLessThan(256 * KIB + 40 * KIB);
  });

  it('takes EVENT_STORAGE_WEBHOOK_PERCENT as the share, and the account quota stays above it', async () => {
    const { key, hook } = await leadHook();
    const other = await newWebhook(key, {
      fields: [{ key: 'telefone', type: 'phone', required: true, target: 'contact.phone' }],
    });
    const half = { ...quota, EVENT_STORAGE_WEBHOOK_PERCENT: '50' };
    const first = await flood(hook, half);
    const second = await flood(other, half);
    // Two halves fill the account: a third webhook is refused by the account's quota.
    expect(Math.abs(first - second)).toBeLessThanOrEqual(1);
    const third = await newWebhook(key, {
      fields: [{ key: 'telefone', type: 'phone', required: true, target: 'contact.phone' }],
    });
    const problem = await expectProblem(await postTo(third, junk(1), half), 429, 'event_storage_full');
    expect(problem.detail).toContain('fill its storage quota');
  });
});

describe('an accepted body is stored as its declared fields and a bounded rest', () => {
  it('keeps the declared fields whole and 16 KiB of the rest, in order, with a body_trimmed warning', async () => {
    const { key, hook } = await leadHook();
    const body = {
      utm: { source: 'site', medium: 'form' },
      big: 'y'.repeat(200 * KIB),
      nome: 'Ana Souza',
      answers: ['a', 'b'.repeat(40 * KIB), 'c'],
      telefone: '11987650000',
      tail: 'z',
    };
    const id = await ingest(hook, body);
    const event = (await list(key, `/v1/inbound-webhooks/${hook.id}/events/${id}`)).data;
    expect(event.payload).toEqual({
      utm: { source: 'site', medium: 'form' },
      nome: 'Ana Souza',
      // An array keeps its positions: answers.2 still names "c".
      answers: ['a', null, 'c'],
      telefone: '11987650000',
      tail: 'z',
    });
    const [warning] = event.warnings.filter((w: Json) => w.code === 'body_trimmed');
    expect(warning.path).toBe('big');
    expect(warning.message).toContain('16 KiB of the rest; 2 values were left out (big, answers.1)');
    // Processed as any event: the lead is written, and the warning stays.
    await deliver([id]);
    const processed = (await list(key, `/v1/inbound-webhooks/${hook.id}/events/${id}`)).data;
    expect(processed.status).toBe('processed');
    expect(processed.warnings.map((w: Json) => w.code)).toContain('body_trimmed');
    const [stored] = await rows<{ n: number }>(
      'SELECT length(CAST(payload AS BLOB)) AS n FROM inbound_events WHERE id = ?',
      id,
    );
    expect(stored?.n).toBeLessThanOrEqual(MAX_REMAINDER_BYTES + 100);
  });

  it('keeps a body within 16 KiB exactly as sent, and a retry of a trimmed body is the same event', async () => {
    const { key, hook } = await leadHook();
    const text = '{ "telefone" : "11987650001",  "nome": "Bia" }';
    const res = await call(hook.path, {
      method: 'POST',
      body: text,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(204);
    const [kept] = await rows<{ payload: string }>(
      'SELECT payload FROM inbound_events WHERE webhook_id = ?',
      hook.id,
    );
    expect(kept?.payload).toBe(text);

    const big = JSON.stringify({ telefone: '11987650002', pad: 'p'.repeat(100 * KIB) });
    const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': 'trimmed-1' };
    expect((await call(hook.path, { method: 'POST', body: big, headers })).status).toBe(204);
    expect((await call(hook.path, { method: 'POST', body: big, headers })).status).toBe(204);
    const events = (await list(key, `/v1/inbound-webhooks/${hook.id}/events`)).data;
    expect(events).toHaveLength(2);
    // A declared text past what a field takes is no field value: it is part of the bounded rest.
    const long = JSON.stringify({ telefone: '11987650003', nome: 'n'.repeat(200 * KIB) });
    expect(
      (await call(hook.path, { method: 'POST', body: long, headers: { 'Content-Type': 'application/json' } }))
        .status,
    ).toBe(204);
    const [last] = await rows<{ n: number }>(
      'SELECT length(payload) AS n FROM inbound_events WHERE webhook_id = ? ORDER BY id DESC LIMIT 1',
      hook.id,
    );
    expect(last?.n).toBeLessThan(1024);
  });
});

describe('DELETE /v1/inbound-webhooks/{id}/events', () => {
  it('frees a flooded webhook: deletes the filter’s events, frees their bytes at once, and the URL stores again', async () => {
    const { key, hook } = await leadHook();
    const stored = await flood(hook);
    await deliver(
      (await rows<{ id: number }>('SELECT id FROM inbound_events WHERE webhook_id = ?', hook.id)).map(
        (r) => r.id,
      ),
    );
    const before = new Date(Date.now() + 1).toISOString();
    const res = await call(`/v1/inbound-webhooks/${hook.id}/events?received_at__lt=${before}`, {
      method: 'DELETE',
      key,
    });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect((await res.json<Json>()).data).toEqual({ deleted: stored, remaining: 0 });
    expect(await usage(key)).toMatchObject({ used_bytes: 0, events: 0 });
    expect((await postTo(hook, junk(1))).status).toBe(204);
  });

  it('deletes only the status and time asked, never a pending event, keeps the records, at most 1,000 per call', async () => {
    const { key, id: accountId, hook } = await leadHook();
    const done = await ingest(hook, { nome: 'Ana', telefone: '11900000001', __fault: 'send' });
    await deliver([done]);
    const contactId = (await list(key, `/v1/inbound-webhooks/${hook.id}/events/${done}`)).data.result
      .contact_id;
    await expectProblem(await postEvent(hook.url, { nome: 'sem telefone' }), 400, 'invalid_fields');
    const pending = await ingest(hook, { nome: 'Pendente', telefone: '11900000002', __fault: 'send' });
    const path = `/v1/inbound-webhooks/${hook.id}/events`;
    const now = new Date(Date.now() + 1).toISOString();

    const rejected = await call(`${path}?status=rejected&received_at__lt=${now}`, { method: 'DELETE', key });
    expect((await rejected.json<Json>()).data).toEqual({ deleted: 1, remaining: 0 });
    const all = await call(`${path}?received_at__lt=${now}`, { method: 'DELETE', key });
    expect((await all.json<Json>()).data).toEqual({ deleted: 1, remaining: 0 });
    expect((await list(key, path)).data.map((e: Json) => e.id)).toEqual([pending]);
    // The records it wrote stay; its result row goes with it.
    expect((await call(`/v1/contacts/${contactId}`, { key })).status).toBe(200);
    expect(await rows('SELECT event_id FROM inbound_event_results WHERE event_id = ?', done)).toEqual([]);

    // An event received after the bound stays.
    const later = await ingest(hook, { nome: 'Depois', telefone: '11900000003', __fault: 'send' });
    await deliver([later]);
    expect(
      (await (await call(`${path}?received_at__lt=${now}`, { method: 'DELETE', key })).json<Json>()).data,
    ).toEqual({
      deleted: 0,
      remaining: 0,
    });

    // Bounded: 1,000 per call (one transaction each), then the rest.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100)
       INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at)
       SELECT ?1, ?2, 'production', 'processed', '{"n":' || i || '}', '{}', 1000 + i, 1000 + i FROM n`,
    )
      .bind(accountId, hook.id)
      .run();
    const first = await call(`${path}?received_at__lt=2000-01-01`, { method: 'DELETE', key });
    expect((await first.json<Json>()).data).toEqual({ deleted: 1000, remaining: 100 });
    const second = await call(`${path}?received_at__lt=2000-01-01`, { method: 'DELETE', key });
    expect((await second.json<Json>()).data).toEqual({ deleted: 100, remaining: 0 });
    const [counted] = await rows<{ bytes: number; events: number }>(
      'SELECT bytes, events FROM webhook_event_storage WHERE webhook_id = ?',
      hook.id,
    );
    const [real] = await rows<{ bytes: number; events: number }>(
      'SELECT sum(bytes) AS bytes, count(*) AS events FROM inbound_event_cost WHERE webhook_id = ?',
      hook.id,
    );
    expect(counted).toEqual(real);
  });

  it('refuses pending, a missing bound, a key without webhooks:delete, and another account’s webhook', async () => {
    const { key, id: accountId, hook } = await leadHook();
    const event = await ingest(hook, { nome: 'Ana', telefone: '11900000011', __fault: 'send' });
    await deliver([event]);
    const path = `/v1/inbound-webhooks/${hook.id}/events`;
    const now = new Date(Date.now() + 1).toISOString();
    const pending = await expectProblem(
      await call(`${path}?status=pending&received_at__lt=${now}`, { method: 'DELETE', key }),
      400,
      'invalid_query',
    );
    expect(pending.errors[0].path).toBe('status');
    const unbounded = await expectProblem(await call(path, { method: 'DELETE', key }), 400, 'invalid_query');
    expect(unbounded.errors[0].path).toBe('received_at__lt');
    const reader = await keyWith(accountId, ['webhooks:read']);
    await expectProblem(
      await call(`${path}?received_at__lt=${now}`, { method: 'DELETE', key: reader }),
      403,
      'insufficient_scope',
    );
    const other = await newAccount();
    await expectProblem(
      await call(`${path}?received_at__lt=${now}`, { method: 'DELETE', key: other.key }),
      404,
      'not_found',
    );
    expect((await list(key, path)).data.map((e: Json) => e.id)).toEqual([event]);
  });
});

describe('the quota counts the event log’s search index', () => {
  it('counts at least what the index takes (its FTS5 shadow tables: D1 has no dbstat), within twice it', async () => {
    const { key, hook } = await leadHook();
    const index = async () => {
      const [data] = await rows<{ bytes: number }>(
        'SELECT coalesce(sum(length(block)), 0) AS bytes FROM inbound_event_text_data',
      );
      const [sizes] = await rows<{ bytes: number }>(
        'SELECT coalesce(sum(length(sz) + 8), 0) AS bytes FROM inbound_event_text_docsize',
      );
      return (data?.bytes ?? 0) + (sizes?.bytes ?? 0);
    };
    const before = await index();
    // Leads of random text: the index's worst case (each trigram new), 20 values of 100 characters.
    for (let n = 0; n < 60; n++) {
      const values = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`v${i}`, randomText(100)]));
      await ingest(hook, { telefone: `1191234${String(n).padStart(4, '0')}`, ...values, __fault: 'send' });
    }
    const measured = (await index()) - before;
    const { used_bytes } = await usage(key);
    const [text] = await rows<{ bytes: number }>(
      `SELECT sum(256 + length(CAST(payload AS BLOB)) + length(CAST(headers AS BLOB)) + length(CAST(warnings AS BLOB))
         + length(CAST(history AS BLOB))) AS bytes FROM inbound_events WHERE webhook_id = ?`,
      hook.id,
    );
    const countedIndex = used_bytes - (text?.bytes ?? 0);
    expect(countedIndex).toBeGreaterThanOrEqual(measured);
    expect(countedIndex).toBeLessThanOrEqual(2 * measured);
  });

  it('indexes a bounded prefix of each value: a long value costs its first 100 characters', async () => {
    const { key, hook } = await leadHook();
    const id = await ingest(hook, {
      telefone: '11912340000',
      nome: `Ana ${'k'.repeat(9_000)} Fim`,
      __fault: 'send',
    });
    // Found by its start, not by what lies past the bound.
    const path = `/v1/inbound-webhooks/${hook.id}/events`;
    expect((await list(key, `${path}?q=Ana`)).data.map((e: Json) => e.id)).toEqual([id]);
    expect((await list(key, `${path}?q=Fim`)).data).toEqual([]);
    const { used_bytes } = await usage(key);
    expect(used_bytes).toBeLessThan(256 + 9_200 + 200 + 16 * 200 + 400);
  });
});

describe('rejected events: junk with the same problem as a real refusal', () => {
  const missingPhone = async (hook: Json, agent: string, n: number) => {
    for (let i = 0; i < n; i++) {
      await expectProblem(
        await postEvent(hook.url, { nome: `junk ${i}` }, { 'User-Agent': agent }),
        400,
        'invalid_fields',
      );
    }
  };
  /** The real refusal, as the account's event log lists it. */
  const realOnes = async (key: string, hook: Json) =>
    (await list(key, `/v1/inbound-webhooks/${hook.id}/events?status=rejected&limit=100&q=Ana`)).data;

  for (const junkAgent of ['curl/8.5.0', 'RD Station Webhooks']) {
    it(`keeps the real one when the junk comes after it (junk from ${junkAgent})`, async () => {
      const { key, hook } = await leadHook();
      await expectProblem(
        await postEvent(hook.url, { nome: 'Ana' }, { 'User-Agent': 'RD Station Webhooks' }),
        400,
        'invalid_fields',
      );
      await missingPhone(hook, junkAgent, 105);
      expect(await realOnes(key, hook)).toHaveLength(1);
    });
  }

  it('keeps the real one when the junk started before it and goes on after, from another client', async () => {
    const { key, hook } = await leadHook();
    await missingPhone(hook, 'curl/8.5.0', 20);
    await expectProblem(
      await postEvent(hook.url, { nome: 'Ana' }, { 'User-Agent': 'RD Station Webhooks' }),
      400,
      'invalid_fields',
    );
    await missingPhone(hook, 'curl/8.5.0', 105);
    expect(await realOnes(key, hook)).toHaveLength(1);
  });
});
