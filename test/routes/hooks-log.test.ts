import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  expectProblem,
  type Json,
  json,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';
import {
  bodyOfSize,
  encoder,
  eventsOf,
  expectNoHook,
  expectStored,
  hookWith,
  logOf,
  MAX,
  rawPost,
  rejectedOf,
  sign,
  unixNow,
  WELL_FORMED_UNKNOWN,
} from './hooks-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Ingest and the event log: Idempotency-Key deduplication, test mode, and refused calls kept as
// rejected.

describe('ingest: Idempotency-Key', () => {
  const withKey = (url: string, body: unknown, key: string) =>
    postEvent(url, body, { 'Idempotency-Key': key });

  it('stores a repeated key once within 24 hours, and each new key or keyless call again', async () => {
    const { key, hook } = await hookWith();
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'evt-1'));
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'evt-1'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([1]);
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'evt-2'));
    await expectStored(await withKey(hook.url, { n: 4, __fault: 'send' }, 'EVT-1'));
    await expectStored(await postEvent(hook.url, { n: 5, __fault: 'send' }));
    await expectStored(await postEvent(hook.url, { n: 5, __fault: 'send' }));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([5, 5, 4, 3, 1]);
  });

  it('stores one event for concurrent calls with the same key', async () => {
    const { key, hook } = await hookWith();
    const calls = Array.from({ length: 5 }, () => withKey(hook.url, { n: 1, __fault: 'send' }, 'burst'));
    for (const res of await Promise.all(calls)) await expectStored(res);
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
  });

  it("keeps each webhook's keys apart", async () => {
    const { key, hook } = await hookWith();
    const other = await newWebhook(key, { name: 'Other' });
    const b = await hookWith();
    for (const url of [hook.url, other.url, b.hook.url]) {
      await expectStored(await withKey(url, { __fault: 'send' }, 'shared-key'));
      await expectStored(await withKey(url, { __fault: 'send' }, 'shared-key'));
    }
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
    expect(await eventsOf(key, other.id)).toHaveLength(1);
    expect(await eventsOf(b.key, b.hook.id)).toHaveLength(1);
  });

  it('keeps a key for 24 hours and then lets the same key store a new event', async () => {
    const { key, hook } = await hookWith();
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'daily'));
    const [first] = await eventsOf(key, hook.id);
    const setAge = (ageMs: number) =>
      env.DB.prepare('UPDATE inbound_events SET received_at = ? WHERE id = ?')
        .bind(Date.now() - ageMs, first.id)
        .run();

    await setAge(23 * 3_600_000 + 59 * 60_000);
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'daily'));
    expect(await eventsOf(key, hook.id)).toHaveLength(1);

    await setAge(24 * 3_600_000 + 60_000);
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'daily'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([3, 1]);
    // The new event holds the key now.
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'daily'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([3, 1]);
  });

  it('does not take a key for a refused call', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectProblem(await withKey(hook.url, { n: 'one' }, 'retry-me'), 400, 'invalid_fields');
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'retry-me'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([1]);
  });

  it('refuses a key that is too long, empty or not printable ASCII with 400', async () => {
    const { key, hook } = await hookWith();
    for (const bad of ['k'.repeat(256), '', 'a\x01b', 'a\tb', 'a\x7fb']) {
      const res = await withKey(hook.url, { a: 1 }, bad);
      await expectProblem(res, 400, 'invalid_idempotency_key');
    }
    expect(await eventsOf(key, hook.id)).toEqual([]);
    await expectStored(await withKey(hook.url, { __fault: 'send' }, 'k'.repeat(255)));
    await expectStored(await withKey(hook.url, { __fault: 'send' }, ' !~{}"\'<>'));
    expect(await eventsOf(key, hook.id)).toHaveLength(2);
  });
});

describe('ingest: test mode', () => {
  const FIELDS = [
    { key: 'nome', type: 'string', required: true },
    { key: 'quando', type: 'date' },
    { key: 'lead.email', type: 'email' },
  ];

  it('refuses exactly what production refuses, with the same answer', async () => {
    const { key } = await newAccount();
    const prod = await newWebhook(key, { fields: FIELDS });
    const test = await newWebhook(key, { fields: FIELDS, mode: 'test' });
    const requests: [string, Record<string, string>][] = [
      ['{"nome":"Ana"}', { 'Content-Type': 'text/plain' }],
      ['{"nome":', { 'Content-Type': 'application/json' }],
      ['["nome"]', { 'Content-Type': 'application/json' }],
      ['null', { 'Content-Type': 'application/json' }],
      ['{"quando":"2024-02-30"}', { 'Content-Type': 'application/json' }],
      [
        '{"nome":null,"quando":"2024-3-5T10:00:00Z","lead":{"email":"x"}}',
        { 'Content-Type': 'application/json' },
      ],
      ['{"nome":"Ana"}', { 'Content-Type': 'application/json', 'Idempotency-Key': 'x'.repeat(256) }],
    ];
    for (const [body, headers] of requests) {
      const answers: Json[] = [];
      for (const hook of [prod, test]) {
        const res = await rawPost(hook.path, body, headers);
        expect(res.status, body).toBe(400);
        const { request_id: _id, ...problem } = await json(res);
        answers.push(problem);
      }
      expect(answers[1], body).toEqual(answers[0]);
    }
    expect(await eventsOf(key, prod.id)).toEqual([]);
    expect(await eventsOf(key, test.id)).toEqual([]);
  });

  it('keeps the events it accepts, deduplicated the same way', async () => {
    const { key, hook } = await hookWith({ fields: FIELDS, mode: 'test' });
    const body = {
      nome: 'Ana',
      quando: '2024-3-5',
      lead: { email: 'ana@example.com', extra: 1 },
      __fault: 'send',
    };
    await expectStored(await postEvent(hook.url, body, { 'Idempotency-Key': 'k1' }));
    await expectStored(await postEvent(hook.url, body, { 'Idempotency-Key': 'k1' }));
    const events = await eventsOf(key, hook.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: 'pending', payload: body });
  });
});

describe('ingest: refused calls are kept in the event log as rejected', () => {
  it('keeps each kind of refusal with the problem its sender got and the body as text', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    const json = { 'Content-Type': 'application/json' };
    const deep = `${'['.repeat(33)}${']'.repeat(33)}`;
    const calls: [BodyInit, Record<string, string>, number, string][] = [
      ['{"n":"one"}', json, 400, 'invalid_fields'],
      ['{"n":', json, 400, 'malformed_json'],
      ['[1]', json, 400, 'body_not_object'],
      [`{"d":${deep}}`, json, 400, 'body_too_deep'],
      ['{"n":1}', { ...json, 'Idempotency-Key': 'k'.repeat(256) }, 400, 'invalid_idempotency_key'],
      ['n=1', { 'Content-Type': 'text/plain' }, 400, 'unsupported_media_type'],
    ];
    for (const [body, headers, status, code] of calls) {
      const problem = await expectProblem(await rawPost(hook.path, body, headers), status, code);
      const [event] = await rejectedOf(key, hook.id);
      expect(event, code).toMatchObject({
        status: 'rejected',
        payload: null,
        attempts: 0,
        processed_at: null,
        result: null,
        warnings: [],
        rejection: { status, code, detail: problem.detail, body },
      });
      expect(event.rejection.errors).toEqual(problem.errors);
    }
    expect(await rejectedOf(key, hook.id)).toHaveLength(calls.length);
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('keeps the first 4 KiB of a refused body, never half a character', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    // 4095 bytes before the first é that the 4096-byte limit cuts in half.
    const body = `{"n":"x","pad":"${'a'.repeat(3999)}${'é'.repeat(500)}"}`;
    await expectProblem(await postEvent(hook.url, body), 400, 'invalid_fields');
    const [event] = await rejectedOf(key, hook.id);
    expect(event.payload).toBeNull();
    expect(body.startsWith(event.rejection.body)).toBe(true);
    expect(encoder.encode(event.rejection.body).length).toBe(4095);
    expect(event.rejection.body).not.toContain('\ufffd');
  });

  it('keeps a failed signature and a body over the limit without the body, and no signature header', async () => {
    const secret = 'whsec-rejected-0123456';
    const { key, hook } = await hookWith({ secret });
    const ts = unixNow();
    const signature = await sign(secret, ts, '{"other":1}');
    const sent = await rawPost(hook.path, '{"a":1}', {
      'Content-Type': 'application/json',
      'X-Timestamp': String(ts),
      'X-Signature': signature,
      'User-Agent': 'sender/1.0',
    });
    await expectProblem(sent, 401, 'invalid_signature');
    await expectProblem(await postEvent(hook.url, bodyOfSize(MAX + 1)), 413, 'body_too_large');
    const [tooLarge, unsigned] = await rejectedOf(key, hook.id);
    expect(unsigned).toMatchObject({
      payload: null,
      rejection: {
        body: null,
        status: 401,
        code: 'invalid_signature',
        errors: [{ path: 'X-Signature', code: 'digest_mismatch' }],
      },
    });
    expect(tooLarge).toMatchObject({
      payload: null,
      rejection: { body: null, status: 413, code: 'body_too_large' },
    });
    const rows = await env.DB.prepare('SELECT * FROM inbound_events WHERE webhook_id = ?')
      .bind(hook.id)
      .all();
    expect(rows.results).toHaveLength(2);
    const stored = JSON.stringify(rows.results);
    expect(stored).not.toContain(signature.slice('sha256='.length));
    expect(stored).not.toContain(secret);
    expect(JSON.parse(String(rows.results.find((r) => r.id === unsigned.id)?.headers))).toEqual({
      'content-type': 'application/json',
      'user-agent': 'sender/1.0',
    });
  });

  it('keeps nothing for an unknown, disabled or rotated URL: there is no webhook to file it under', async () => {
    const { key, hook } = await hookWith();
    await call(`/v1/inbound-webhooks/${hook.id}/rotate-token`, { method: 'POST', key });
    await expectNoHook(await postEvent(hook.url, '{"a":'));
    await expectNoHook(await postEvent(`/hooks/${WELL_FORMED_UNKNOWN}`, '{"a":'));
    expect(await logOf(key, hook.id)).toEqual([]);
  });

  it('keeps the newest 100 rejected events of a webhook and the first of their problem, and none of its accepted ones goes', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectStored(await postEvent(hook.url, { n: 0, __fault: 'send' }));
    for (let i = 1; i <= 103; i++) await expectProblem(await postEvent(hook.url, { n: `bad-${i}` }), 400);
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM inbound_events WHERE webhook_id = ? AND status = 'rejected'",
    )
      .bind(hook.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(101);
    const rejected = await rejectedOf(key, hook.id);
    expect(rejected[0].rejection.body).toBe('{"n":"bad-103"}');
    expect(rejected[99].rejection.body).toBe('{"n":"bad-4"}');
    // The first of the problem stays: junk after a real refusal cannot push it out.
    const first = await env.DB.prepare(
      "SELECT json_extract(rejection, '$.body') AS body FROM inbound_events WHERE webhook_id = ? AND status = 'rejected' ORDER BY id LIMIT 1",
    )
      .bind(hook.id)
      .first<{ body: string }>();
    expect(first?.body).toBe('{"n":"bad-1"}');
    const accepted = await env.DB.prepare(
      "SELECT payload FROM inbound_events WHERE webhook_id = ? AND status <> 'rejected'",
    )
      .bind(hook.id)
      .all();
    expect(accepted.results).toEqual([{ payload: '{"n":0,"__fault":"send"}' }]);
  });

  it("files a refusal under its webhook's account only", async () => {
    const a = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    const b = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectProblem(await postEvent(a.hook.url, { n: 'x' }), 400);
    expect(await rejectedOf(a.key, a.hook.id)).toHaveLength(1);
    expect(await logOf(b.key, b.hook.id)).toEqual([]);
    const other = await call(`/v1/inbound-webhooks/${a.hook.id}/events?status=rejected`, { key: b.key });
    await expectProblem(other, 404);
  });
});
