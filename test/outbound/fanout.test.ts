import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { apiKeyShard, sha256Hex } from '../../src/auth/secrets';
import { primaryDb } from '../../src/db/client';
import { KeyGrant } from '../../src/db/key-grant';
import { shardOf } from '../../src/db/shards';
import { scoped } from '../../src/db/tenant';
import { entryBody } from '../../src/outbound/entry-body';
import { fanOut } from '../../src/outbound/fanout';
import { fanOutOnce } from '../../src/queue/outbound';
import {
  call,
  callWithDb,
  callWithEnv,
  create,
  d1Of,
  d1OfRow,
  dbOf,
  type Json,
  newAccount,
  recordingD1,
  shardOfAccount,
} from '../helpers';
import { entriesOf } from '../journal/helpers';
import { deliveries, endpointWithBox, plantEndpoint, type Received, received } from './support';

const bodies = (got: Received[]) => got.map((r) => JSON.parse(r.body) as Json);

/** Waits until the box has `n` messages. */
const receivedN = (name: string, n: number) =>
  vi.waitFor(
    async () => {
      const got = await received(name);
      expect(got).toHaveLength(n);
      return got;
    },
    { timeout: 25_000, interval: 250 },
  );

describe('fan-out from the change journal', () => {
  it('delivers each subscribed entry once, signed, its webhook-id the entry id', async () => {
    const { id: accountId, key } = await newAccount();
    const { name } = await endpointWithBox(key, [{ status: 204 }], ['contact.*']);
    const company = await create(key, '/v1/contacts', { name: 'Acme' });
    await call(`/v1/contacts/${company.id}`, { method: 'PUT', key, body: { name: 'Acme Ltda' } });
    await create(key, '/v1/deals', { name: 'Not subscribed' });
    const got = await receivedN(name, 2);
    const entries = await entriesOf(accountId, 'contact', company.id);
    expect(got.map((r) => r.id)).toEqual(entries.map((e) => e.id));
    expect(got.every((r) => r.verified)).toBe(true);
    expect(bodies(got).map((b) => [b.type, b.data.version, b.data.record_id])).toEqual([
      ['contact.created', 1, company.id],
      ['contact.updated', 2, company.id],
    ]);
    // The entry as the feed shows it: the record as GET returns it, what changed and its old value.
    const feed = await call(`/v1/events?record_type=contact&sort=occurred_at`, { key });
    expect(bodies(got).map((b) => b.data)).toEqual(((await feed.json()) as Json).data);
    expect(bodies(got)[1]?.data).toMatchObject({ changed_fields: ['name'], previous: { name: 'Acme' } });
    // Nothing left past the cursor: another run makes no delivery twice.
    expect((await fanOut(dbOf(accountId), entryBody)).deliveries).toEqual([]);
  });

  it('never sends a later version of a record while an earlier one is being retried', async () => {
    const { key } = await newAccount();
    // The first message fails (500); its retry 5 s on succeeds, as every message after it.
    const { name, endpoint } = await endpointWithBox(key, [{ status: 500 }, { status: 204 }], ['contact.*']);
    const company = await create(key, '/v1/contacts', { name: 'V1' });
    await call(`/v1/contacts/${company.id}`, { method: 'PUT', key, body: { name: 'V2' } });
    await call(`/v1/contacts/${company.id}`, { method: 'PUT', key, body: { name: 'V3' } });
    const got = await receivedN(name, 4);
    expect(bodies(got).map((b) => b.data.version)).toEqual([1, 1, 2, 3]);
    const log = await deliveries(key, endpoint.id);
    expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('loses no entry whose fan-out ask was lost: the cron makes its deliveries', async () => {
    const { id: accountId, key } = await newAccount();
    const { name } = await endpointWithBox(key, [{ status: 204 }], ['contact.created']);
    await create(key, '/v1/contacts', { name: 'Asked' });
    await receivedN(name, 1);
    // An entry written with no ask at all (as if the send after the commit were lost).
    const [entry] = await entriesOf(accountId, 'contact');
    await d1Of(accountId)
      .prepare(
        `INSERT INTO journal_entries (id, account_id, type, record_type, record_id, version, occurred_at, actor, data)
       SELECT 'evt_lostask000000000000001', ?, 'contact.created', 'contact', 999999, 1, ?, '{"type":"system"}', data
       FROM journal_entries WHERE id = ?`,
      )
      .bind(accountId, Date.now(), entry?.id)
      .run();
    expect(entry).toBeDefined();
    expect(await fanOutOnce(env, shardOfAccount(accountId))).toBeGreaterThanOrEqual(1);
    const got = await receivedN(name, 2);
    expect(got[1]?.id).toBe('evt_lostask000000000000001');
  });
});

describe('a fan-out run', () => {
  it('makes many deliveries in one batch, within D1’s bound parameters per statement', async () => {
    const { id: accountId, key } = await newAccount();
    const endpoints = await Promise.all([1, 2, 3].map(() => endpointWithBox(key, [{ status: 204 }], ['*'])));
    const now = Date.now();
    // A real deal's snapshot, taken in another account (of the same shard, whose journal holds the
    // snapshot) so that this one's endpoints get nothing else.
    const other = await newAccount('Other', shardOfAccount(accountId));
    await create(other.key, '/v1/deals', { name: 'Snapshot' });
    const [snapshot] = await entriesOf(other.id, 'deal');
    // Entries with no ask (as after lost sends), so that one run makes all 12 deliveries.
    const d1 = d1Of(accountId);
    await d1.batch(
      [1, 2, 3, 4].map((n) =>
        d1
          .prepare(
            `INSERT INTO journal_entries (id, account_id, type, record_type, record_id, version, occurred_at, actor, data)
           SELECT ?, ?, 'deal.created', 'deal', ?, 1, ?, '{"type":"system"}', data
           FROM journal_entries WHERE id = ?`,
          )
          .bind(`evt_batch${accountId}x${n}`.padEnd(28, '0'), accountId, 900000 + n, now, snapshot?.id),
      ),
    );
    // This run, or one an endpoint's create asked for, makes the 12 deliveries in one batch.
    await fanOutOnce(env, shardOfAccount(accountId));
    for (const { name } of endpoints) expect(await receivedN(name, 4)).toHaveLength(4);
  });
});

describe('an entry the presenter cannot show', () => {
  it("goes out as its envelope, and never holds up another account's deliveries", async () => {
    // On one shard: a fan-out run is one shard's journal.
    const broken = await newAccount('Broken', 1);
    const healthy = await newAccount('Healthy', 1);
    const brokenBox = await endpointWithBox(broken.key, [{ status: 204 }], ['*']);
    const healthyBox = await endpointWithBox(healthy.key, [{ status: 204 }], ['*']);
    // A snapshot of a shape the presenter no longer reads, journaled before the healthy write.
    await d1Of(broken.id)
      .prepare(
        `INSERT INTO journal_entries (id, account_id, type, record_type, record_id, version, occurred_at, actor, data)
       VALUES ('evt_unreadable00000000000001', ?, 'company.created', 'company', 999998, 1, ?, '{"type":"system"}', ?)`,
      )
      .bind(broken.id, Date.now(), JSON.stringify({ follower_ids: 5, cnpj: { not: 'text' } }))
      .run();
    const contact = await create(healthy.key, '/v1/contacts', { name: 'Healthy' });
    await fanOutOnce(env, 1);
    const [got] = await receivedN(healthyBox.name, 1);
    expect(bodies([got as Received])[0]?.data).toMatchObject({
      record_id: contact.id,
      data: { name: 'Healthy' },
    });
    const [odd] = await receivedN(brokenBox.name, 1);
    expect(odd?.id).toBe('evt_unreadable00000000000001');
    expect(odd?.verified).toBe(true);
    expect(bodies([odd as Received])[0]).toMatchObject({
      type: 'company.created',
      data: { id: 'evt_unreadable00000000000001', record_id: 999998, version: 1, data: null },
    });
  });
});

describe('LGPD erasure', () => {
  it('takes the person out of the deliveries of their contact’s entries, and of the answers to them', async () => {
    const { key } = await newAccount();
    // A receiver that echoes the person back in its answer, which the delivery log keeps.
    const echo = { status: 200, body: '{"saved":"Zenaide Erasmo"}' };
    const { name, endpoint } = await endpointWithBox(key, [echo], ['contact.*']);
    const contact = await create(key, '/v1/contacts', {
      name: 'Zenaide Erasmo',
      email: 'zenaide@example.com',
    });
    await receivedN(name, 1);
    const d1 = d1OfRow('webhook_endpoints', endpoint.id);
    const answers = () =>
      d1
        .prepare(
          'SELECT a.response FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ?',
        )
        .bind(endpoint.id)
        .all<{ response: string }>();
    await vi.waitFor(async () => expect((await answers()).results[0]?.response).toMatch(/Zenaide/), {
      timeout: 10_000,
    });
    const res = await call(`/v1/contacts/${contact.id}?erase=true`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    const { results } = await d1
      .prepare('SELECT body FROM webhook_deliveries WHERE endpoint_id = ?')
      .bind(endpoint.id)
      .all<{ body: string }>();
    expect(results.length).toBeGreaterThanOrEqual(1);
    for (const { body } of results) expect(body).not.toMatch(/zenaide|Zenaide/);
    const left = (await answers()).results;
    expect(left.length).toBeGreaterThanOrEqual(1);
    for (const { response } of left) expect(response).not.toMatch(/Zenaide/);
  });
});

describe('the fan-out ask after a /v1 write', () => {
  /** What a write's key lookup (`scoped`, the first batch of every /v1 request) found. */
  const listening = async (key: string, writes = true) => {
    const grant = new KeyGrant(await sha256Hex(key), null, Date.now(), undefined, writes);
    await scoped(primaryDb(env, apiKeyShard(key) ?? 0), grant);
    return grant.listening;
  };

  /** The text of the key lookup a request sent: the first statement of its first batch. */
  const keyLookup = async (key: string, path: string, method = 'GET', body?: unknown) => {
    // The key's shard, recorded (src/db/shards.ts).
    const shard = apiKeyShard(key) ?? 0;
    const recorded = recordingD1(shardOf(env, shard));
    const res = await callWithDb(recorded.db, path, { method, key, body }, shard);
    expect(res.status).toBeLessThan(300);
    return recorded.statements[0]?.sql ?? '';
  };

  it('is sent after a write of an account with an endpoint taking deliveries, never after a read', async () => {
    const { key } = await newAccount();
    // The real queue, seen through a layer that notes each message the request sends.
    const sent: unknown[] = [];
    const OUTBOUND = {
      send: (body: unknown, options?: QueueSendOptions) => {
        sent.push(body);
        return env.OUTBOUND.send(body as never, options);
      },
    } as unknown as typeof env.OUTBOUND;
    const asks = async (path: string, method = 'GET', body?: unknown) => {
      const res = await callWithEnv({ OUTBOUND }, path, { method, key, body });
      expect(res.status).toBeLessThan(300);
      return sent.length;
    };
    expect(await asks('/v1/deals', 'POST', { name: 'No endpoint yet' })).toBe(0);
    await endpointWithBox(key);
    expect(await asks('/v1/deals?status=open')).toBe(0);
    expect(await asks('/v1/deals', 'POST', { name: 'Heard' })).toBe(1);
    // The ask names the account's shard, whose journal the run reads.
    expect(sent).toEqual([{ fanout: true, shard: apiKeyShard(key) }]);
  });

  it("is asked by a write's key lookup only: a read's lookup reads the key alone", async () => {
    const { key } = await newAccount();
    await endpointWithBox(key);
    expect(await keyLookup(key, '/v1/companies?limit=50')).not.toContain('webhook_endpoints');
    expect(await keyLookup(key, '/v1/deals?status=open')).not.toContain('webhook_endpoints');
    expect(await listening(key, false)).toBeUndefined();
    const write = await keyLookup(key, '/v1/deals', 'POST', { name: 'Onix LT' });
    expect(write).toMatch(/^select "account_id".* from "api_keys"/);
    expect(write).toContain('webhook_endpoints');
    expect(await listening(key)).toBe(true);
  });

  it('is left out for an account with no endpoint taking deliveries, known from the key lookup', async () => {
    const { key } = await newAccount();
    const other = await newAccount();
    await endpointWithBox(other.key);
    expect(await listening(key)).toBe(false);
    const { endpoint } = await endpointWithBox(key);
    expect(await listening(key)).toBe(true);
    await call(`/v1/webhook-endpoints/${endpoint.id}`, { method: 'PUT', key, body: { enabled: false } });
    expect(await listening(key)).toBe(false);
    // Turned off by the service (a 410): its deliveries are still made, failed, for a recover.
    await plantEndpoint(endpoint.id, "enabled = 0, disabled_reason = 'gone'");
    expect(await listening(key)).toBe(true);
    await call(`/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', key });
    expect(await listening(key)).toBe(false);
  });
});
