import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/auth/secrets';
import { signatureFailure } from '../../src/auth/signatures';
import { DomainError } from '../../src/core/errors';
import { primaryDb } from '../../src/db/client';
import { inboundEvents } from '../../src/db/schema';
import { keyset } from '../../src/http/pagination';
import { eventSorts } from '../../src/webhooks/contract/schemas';
import {
  type EventRow,
  eventStatsQuery,
  listEvents,
  readEvent,
  readSampleFields,
  statsOf,
} from '../../src/webhooks/log/event-reads';
import { sampleEvent } from '../../src/webhooks/resource/sample-event';
import { accountsOnShard, call, json, newAccount, newWebhook, postEvent } from '../helpers';
import { page, panel, signIn } from '../panel/browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The reads `/v1/inbound-webhooks/{id}/events…` and the panel's event pages share: what they
// return, and that what is not the caller's is a domain failure (not_found), which each caller
// turns into its own answer by that code.

const db = () => primaryDb(env, 0);
const firstPage = () => keyset<EventRow>(inboundEvents, eventSorts, { limit: 50 }, '-received_at');

/** A code of a domain failure `run` throws: never an HTTP status. */
async function failureCode(run: () => Promise<unknown>): Promise<string> {
  const caught = await run().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(caught).toBeInstanceOf(DomainError);
  return (caught as DomainError).code;
}

/** Two accounts, A with two webhooks (events in test mode on the first), B with none. */
async function accounts() {
  const a = await newAccount('A');
  const b = await newAccount('B');
  const hook = await newWebhook(a.key, { mode: 'test', fields: [{ key: 'lead.nome', type: 'string' }] });
  const other = await newWebhook(a.key);
  for (const nome of ['Ana', 'Bia'])
    expect((await postEvent(hook.path, { lead: { nome } })).status).toBe(204);
  const events = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key: a.key }))).data;
  return {
    a: { ...a, hash: await sha256Hex(a.key) },
    b: { ...b, hash: await sha256Hex(b.key) },
    hook,
    other,
    events,
  };
}

describe('event reads: shared by /v1 and the panel', () => {
  it('lists and reads a webhook’s events with its header, and sample fields from its test events', async () => {
    const { a, hook, events } = await accounts();
    const listed = await listEvents(db(), a.hash, hook.id, firstPage(), {});
    expect(listed.webhook).toMatchObject({
      id: hook.id,
      name: 'Webhook',
      mode: 'test',
      enabled: true,
      secret: null,
    });
    expect(listed.events.map((e) => e.id)).toEqual(events.map((e: { id: number }) => e.id));
    expect(await listEvents(db(), a.hash, hook.id, firstPage(), { status: 'failed' })).toMatchObject({
      events: [],
    });
    const read = await readEvent(db(), a.hash, hook.id, events[0].id);
    expect(read.webhook.id).toBe(hook.id);
    expect(read.event).toMatchObject({ id: events[0].id, webhookId: hook.id });
    expect(await readSampleFields(db(), a.hash, hook.id)).toEqual([
      { key: 'lead.nome', example: 'Bia', type: 'string' },
    ]);
  });

  it('is not_found, a domain failure and no HTTP status, for what is not the caller’s', async () => {
    const { a, b, hook, other, events } = await accounts();
    const eventId = events[0].id;
    for (const run of [
      () => listEvents(db(), b.hash, hook.id, firstPage(), {}),
      () => readEvent(db(), b.hash, hook.id, eventId),
      // The event is A's, but not the other webhook's.
      () => readEvent(db(), a.hash, other.id, eventId),
      () => readEvent(db(), a.hash, hook.id, eventId + 1000),
      () => readSampleFields(db(), b.hash, hook.id),
      () => sampleEvent(db(), b.hash, hook.id),
    ]) {
      expect(await failureCode(run)).toBe('not_found');
    }
  });

  it('counts each webhook’s events by status with its last arrival, for the caller’s account only', async () => {
    const { a, b, hook, other, events } = await accounts();
    // Statuses the queue consumer leaves alone (it takes pending events only).
    const set = (status: string, id: number) =>
      env.DB.prepare('update inbound_events set status = ? where id = ?').bind(status, id).run();
    await set('failed', events[0].id);
    await set('processed', events[1].id);
    const [stats] = await db().batch([eventStatsQuery(db(), a.hash)]);
    const mine = statsOf(stats, hook.id);
    expect(mine.counts).toEqual({ failed: 1, processed: 1 });
    expect(mine.lastEvent).toBe(events[0].received_at);
    expect(statsOf(stats, other.id)).toEqual({ lastEvent: null, counts: {} });
    const [none] = await db().batch([eventStatsQuery(db(), b.hash)]);
    expect(none).toEqual([]);
  });

  it('the panel’s event log and event page show what /v1 lists and reads', async () => {
    const { a, hook, events } = await accounts();
    const cookie = await signIn(a.key);
    const log = await page(await panel(`/panel/webhooks/${hook.id}/events`, { cookie }));
    const shown = [...log.matchAll(/events\/(\d+)"/g)].map((m) => Number(m[1]));
    expect(shown).toEqual(events.map((e: { id: number }) => e.id));
    const detail = await page(await panel(`/panel/webhooks/${hook.id}/events/${events[1].id}`, { cookie }));
    expect(detail).toContain('Ana');
  });
});

describe('sample event', () => {
  it('writes records only from an enabled production webhook: that one asks first', async () => {
    const { key } = await newAccount();
    const hash = await sha256Hex(key);
    const fields = [{ key: 'email', type: 'email', target: 'contact.email' }];
    const cases = [
      [{ mode: 'test' }, false],
      [{ mode: 'production' }, true],
      [{ mode: 'production', enabled: false }, false],
    ] as const;
    for (const [settings, writes] of cases) {
      const hook = await newWebhook(key, { ...settings, fields });
      const sample = await sampleEvent(db(), hash, hook.id);
      expect(sample.writesRecords, JSON.stringify(settings)).toBe(writes);
      expect(JSON.parse(sample.body)).toEqual({
        email: expect.stringMatching(/^exemplo-[0-9a-f]{16}@example\.com$/),
      });
    }
  });

  it('comes with the headers its sender would send: JSON, signed when the webhook has a secret', async () => {
    const { key } = await newAccount();
    const hash = await sha256Hex(key);
    const fields = [{ key: 'email', type: 'email', target: 'contact.email' }];
    const plain = await sampleEvent(db(), hash, (await newWebhook(key, { fields })).id);
    expect(plain.headers).toEqual({ 'Content-Type': 'application/json' });
    const secret = 'a-secret-of-sixteen-or-more';
    const signed = await sampleEvent(db(), hash, (await newWebhook(key, { fields, secret })).id);
    const { 'X-Timestamp': timestamp, 'X-Signature': signature } = signed.headers;
    expect(timestamp).toMatch(/^\d+$/);
    const body = new TextEncoder().encode(signed.body);
    expect(await signatureFailure(secret, timestamp, signature, body)).toBeUndefined();
    expect(await signatureFailure('another-secret-of-sixteen', timestamp, signature, body)).toBeDefined();
  });
});
