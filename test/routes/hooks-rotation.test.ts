import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  callWithDb,
  expectProblem,
  type Json,
  json,
  postEvent,
  recordingD1,
  roundTrips,
} from '../helpers';
import { eventsOf, expectNoHook, expectStored, hookWith } from './hooks-support';
import { get, PATH } from './inbound-webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// A rotation's grace period: the old URL keeps working until its end, then answers what an unknown
// URL answers; the API's `grace_period` option; the one-statement lookup by either token.

const HOUR_MS = 3600 * 1000;
const DAY = { grace_period: 86400 };

const rotate = (key: string, id: number, body?: unknown) =>
  call(`${PATH}/${id}/rotate-token`, { method: 'POST', key, ...(body !== undefined && { body }) });

async function rotated(key: string, id: number, body?: unknown): Promise<Json> {
  const res = await rotate(key, id, body);
  expect(res.status).toBe(200);
  expect(roundTrips(res)).toBe(1);
  return (await json(res)).data;
}

/** Ends the grace of webhook `id`'s old URL as the clock would: its expiry written in the past. */
const expireGrace = (id: number) =>
  env.DB.prepare('UPDATE inbound_webhooks SET previous_token_expires_at = ? WHERE id = ?')
    .bind(Date.now() - 1, id)
    .run();

/** Asserts an expiry `ms` from `before` (the moment before the call), to the call's own clock. */
function expectEnd(iso: string | null, before: number, ms: number): void {
  expect(iso).toEqual(expect.any(String));
  const end = Date.parse(iso as string);
  expect(end).toBeGreaterThanOrEqual(before + ms);
  expect(end).toBeLessThanOrEqual(Date.now() + ms);
}

const payloads = async (key: string, id: number) => (await eventsOf(key, id)).map((e: Json) => e.payload.n);

describe('rotate-token: the grace period', () => {
  it('keeps the old URL working for grace_period 86400 (24 hours), shown on every read; both URLs file under the webhook', async () => {
    const { key, hook } = await hookWith();
    expect(hook.previous_url_expires_at).toBeNull();
    const before = Date.now();
    const data = await rotated(key, hook.id, DAY);
    expect(data.url).not.toBe(hook.url);
    expectEnd(data.previous_url_expires_at, before, 24 * HOUR_MS);
    expect(await get(key, hook.id)).toEqual(data);
    const listed = (await json(await call(PATH, { key }))).data;
    expect(listed).toEqual([data]);

    await expectStored(await postEvent(hook.url, { n: 1, __fault: 'send' }));
    await expectStored(await postEvent(data.url, { n: 2, __fault: 'send' }));
    expect(await payloads(key, hook.id)).toEqual([2, 1]);
  });

  it('without a body (the /v1 default, unchanged) or with 0, ends the old URL at once', async () => {
    const { key, hook } = await hookWith();
    const bare = await rotated(key, hook.id);
    expect(bare.previous_url_expires_at).toBeNull();
    await expectNoHook(await postEvent(hook.url, { n: 1 }));
    const empty = await rotated(key, bare.id, {});
    expect(empty.previous_url_expires_at).toBeNull();
    await expectNoHook(await postEvent(bare.url, { n: 1 }));
    await expectStored(await postEvent(empty.url, { n: 2, __fault: 'send' }));
  });

  it('takes grace_period in seconds: 3600 is one hour, 0 ends the old URL at once', async () => {
    const { key, hook } = await hookWith();
    const before = Date.now();
    const hour = await rotated(key, hook.id, { grace_period: 3600 });
    expectEnd(hour.previous_url_expires_at, before, HOUR_MS);
    const now = await rotated(key, hook.id, { grace_period: 0 });
    expect(now.previous_url_expires_at).toBeNull();
    await expectNoHook(await postEvent(hour.url, { n: 1 }));
    await expectNoHook(await postEvent(hook.url, { n: 1 }));
    await expectStored(await postEvent(now.url, { n: 2, __fault: 'send' }));
    const max = await rotated(key, hook.id, { grace_period: 604800 });
    expectEnd(max.previous_url_expires_at, before, 7 * 24 * HOUR_MS);
  });

  it('answers the old URL past its end exactly as an unknown URL, and stores nothing', async () => {
    const { key, hook } = await hookWith();
    const data = await rotated(key, hook.id, DAY);
    await expireGrace(hook.id);
    await expectNoHook(await postEvent(hook.url, { n: 1 }));
    // Replayed later, with an idempotency key or a body that would be refused: still nothing.
    await expectNoHook(await postEvent(hook.url, { n: 1 }, { 'Idempotency-Key': 'k1' }));
    await expectNoHook(await postEvent(hook.url, '{"n":'));
    expect((await get(key, hook.id)).previous_url_expires_at).toBeNull();
    expect(await eventsOf(key, hook.id)).toEqual([]);
    const log = await json(await call(`${PATH}/${hook.id}/events?status=rejected`, { key }));
    expect(log.data).toEqual([]);
    await expectStored(await postEvent(data.url, { n: 2, __fault: 'send' }));
  });

  it('rotating again during a grace ends the older URL at once; the one just replaced gets the grace', async () => {
    const { key, hook } = await hookWith();
    const first = await rotated(key, hook.id, DAY);
    const second = await rotated(key, hook.id, { grace_period: 3600 });
    await expectNoHook(await postEvent(hook.url, { n: 0 }));
    await expectStored(await postEvent(first.url, { n: 1, __fault: 'send' }));
    await expectStored(await postEvent(second.url, { n: 2, __fault: 'send' }));
    expect(await payloads(key, hook.id)).toEqual([2, 1]);
  });

  it('answers 404 on the old URL of a disabled webhook, grace or not', async () => {
    const { key, hook } = await hookWith();
    await rotated(key, hook.id, DAY);
    expect((await call(`${PATH}/${hook.id}`, { method: 'DELETE', key })).status).toBe(204);
    await expectNoHook(await postEvent(hook.url, { n: 1 }));
  });

  it("never takes an old URL to another account's webhook", async () => {
    const a = await hookWith();
    const b = await hookWith();
    await rotated(a.key, a.hook.id, DAY);
    await rotated(b.key, b.hook.id, DAY);
    await expectStored(await postEvent(a.hook.url, { n: 1, __fault: 'send' }));
    await expectStored(await postEvent(b.hook.url, { n: 2, __fault: 'send' }));
    expect(await payloads(a.key, a.hook.id)).toEqual([1]);
    expect(await payloads(b.key, b.hook.id)).toEqual([2]);
    // Another account can neither rotate A's webhook nor learn that it exists.
    await expectProblem(await rotate(b.key, a.hook.id), 404, 'not_found');
    await expireGrace(a.hook.id);
    await expectNoHook(await postEvent(a.hook.url, { n: 3 }));
    expect(await payloads(b.key, b.hook.id)).toEqual([2]);
  });

  it('refuses a grace_period that is negative, over 7 days, not a whole number or not a number, and changes nothing', async () => {
    const { key, hook } = await hookWith();
    for (const grace_period of [-1, 604801, 1.5, '3600', null, 1e300]) {
      const body = await expectProblem(
        await rotate(key, hook.id, { grace_period }),
        422,
        'validation_failed',
      );
      expect(body.errors[0].path, String(grace_period)).toBe('grace_period');
    }
    const unknown = await expectProblem(await rotate(key, hook.id, { grace: 60 }), 422, 'validation_failed');
    expect(unknown.errors[0]).toMatchObject({ path: 'grace', code: 'unknown_field' });
    const after = await get(key, hook.id);
    expect(after).toMatchObject({
      url: hook.url,
      previous_url_expires_at: null,
      updated_at: hook.updated_at,
    });
  });
});

describe('rotate-token: its optional body', () => {
  it('rotates as before with no body, whatever the Content-Type; a body goes through the JSON guard', async () => {
    const { key, hook } = await hookWith();
    let url = hook.url;
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
      const res = await call(`${PATH}/${hook.id}/rotate-token`, {
        method: 'POST',
        key,
        headers: { 'Content-Type': type, 'Content-Length': '0' },
      });
      expect(res.status, type).toBe(200);
      const { data } = await json(res);
      expect(data.url).not.toBe(url);
      expect(data.previous_url_expires_at).toBeNull();
      url = data.url;
    }
    const refused: [string, string, number, string][] = [
      ['{"grace_period":', 'application/json', 400, 'malformed_json'],
      ['[]', 'application/json', 400, 'body_not_object'],
      ['grace_period=3600', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
      ['{"__proto__":{"grace_period":5}}', 'application/json', 422, 'validation_failed'],
    ];
    for (const [body, type, status, code] of refused) {
      const res = await call(`${PATH}/${hook.id}/rotate-token`, {
        method: 'POST',
        key,
        body,
        headers: { 'Content-Type': type },
      });
      await expectProblem(res, status, code);
    }
    expect((await get(key, hook.id)).url).toBe(url);
  });
});

describe('ingest: the lookup by either token', () => {
  it('is one statement that reads the current and the previous token through their unique indexes', async () => {
    const { key, hook } = await hookWith();
    const data = await rotated(key, hook.id, DAY);
    const d1 = recordingD1(env.DB);
    const res = await callWithDb(d1.db, new URL(hook.url).pathname, {
      method: 'POST',
      body: { n: 1, __fault: 'send' },
    });
    expect(res.status).toBe(204);
    const lookups = d1.statements.filter((s) => /from "inbound_webhooks"/.test(s.sql));
    expect(lookups).toHaveLength(1);
    const [lookup] = lookups;
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${lookup?.sql}`)
      .bind(...(lookup?.params ?? []))
      .all<{ detail: string }>();
    const plan = results.map((r) => r.detail);
    expect(plan, plan.join('\n')).toContain('MULTI-INDEX OR');
    expect(plan).toContainEqual(expect.stringMatching(/USING INDEX inbound_webhooks_token_uq \(token=\?\)/));
    expect(plan).toContainEqual(
      expect.stringMatching(/USING INDEX inbound_webhooks_previous_token_uq \(previous_token=\?\)/),
    );
    expect(plan.filter((d) => /^SCAN inbound_webhooks/.test(d))).toEqual([]);
    expect(data.url).not.toBe(hook.url);
  });
});
