// The shards bench's accounts and load (issue 36; scripts/bench-shards.mjs runs it): accounts made
// through the admin API, each seeded with contacts and a webhook whose flows keep the Queue
// consumer busy; then "normal" accounts sending a fixed mix at a fixed rate each, and one flooding
// account posting webhooks as fast as its connections allow.
import { client, field } from './api.mjs';
import { percentile } from './load.mjs';

/** @typedef {'list' | 'get' | 'create' | 'update' | 'hook'} Kind */
/** The operations of a normal account and their shares of its requests. @type {[Kind, number][]} */
export const MIX = [
  ['list', 0.25],
  ['get', 0.25],
  ['create', 0.15],
  ['update', 0.15],
  ['hook', 0.2],
];
export const KINDS = /** @type {Kind[]} */ (MIX.map(([kind]) => kind));

/**
 * @typedef {object} Tenant
 * @property {number} index 0 floods
 * @property {number} accountId
 * @property {string} apiKey
 * @property {number} shard where the directory put it
 * @property {string} hookPath `/hooks/whk_…`
 * @property {number} hookId
 * @property {number[]} contactIds the seeded contacts
 */

/** A webhook of leads whose flows upsert a contact by phone and open a deal, as `npm run bench`'s. */
const WEBHOOK = {
  name: 'Shards bench',
  fields: [
    { key: 'lead.name', type: 'string', required: true, target: 'contact.name' },
    { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
  ],
  flows: [
    { action: 'upsert_contact', match_on: ['phone'] },
    { action: 'create_deal', name: 'Lead {{lead.name}}' },
  ],
};

/** @param {import('./api.mjs').Answer} answer @param {string} what */
function ok(answer, what) {
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return answer.body;
}

/**
 * `count` accounts, made one after the other (so the least-filled rule places them in a known
 * order), then each seeded at once: `seed` contacts (batches of 100) and the webhook.
 * @param {string} origin @param {string} adminToken @param {number} count @param {number} seed
 * @returns {Promise<Tenant[]>}
 */
export async function makeTenants(origin, adminToken, count, seed) {
  const admin = client(origin, adminToken);
  const made = [];
  for (let index = 0; index < count; index++) {
    const body = ok(
      await admin('POST', '/admin/accounts', { name: `Shards bench ${index}` }),
      'POST /admin/accounts',
    );
    made.push({
      index,
      accountId: Number(field(body, 'data', 'account', 'id')),
      apiKey: String(field(body, 'data', 'api_key', 'key')),
      shard: Number(field(body, 'data', 'account', 'shard')),
    });
  }
  return Promise.all(
    made.map(async (tenant) => {
      const api = client(origin, tenant.apiKey);
      /** @type {number[]} */
      const contactIds = [];
      for (let done = 0; done < seed; done += 100) {
        const items = Array.from({ length: Math.min(100, seed - done) }, (_, k) => ({
          op: 'create',
          data: { name: `Contato ${done + k}`, email: `contato${done + k}@exemplo.com.br` },
        }));
        const answer = ok(await api('POST', '/v1/contacts/batch', { items }), 'POST /v1/contacts/batch');
        const rows = field(answer, 'data');
        for (const row of Array.isArray(rows) ? rows : []) contactIds.push(Number(field(row, 'data', 'id')));
      }
      const hook = ok(await api('POST', '/v1/inbound-webhooks', WEBHOOK), 'POST /v1/inbound-webhooks');
      const url = String(field(hook, 'data', 'url'));
      return {
        ...tenant,
        contactIds,
        hookPath: new URL(url).pathname,
        hookId: Number(field(hook, 'data', 'id')),
      };
    }),
  );
}

/** @template T @param {readonly T[]} list @returns {T} */
const any = (list) => /** @type {T} */ (list[Math.floor(Math.random() * list.length)]);

let serial = 0;
/** A lead with a phone no other post of the run has (each upserts a new contact). */
function lead() {
  serial += 1;
  return { lead: { name: `Lead ${serial}`, phone: `(11) 9${String(10_000_000 + (serial % 89_999_999))}` } };
}

/** A normal account's next operation, drawn by MIX. @returns {Kind} */
function draw() {
  let roll = Math.random();
  for (const [kind, share] of MIX) {
    roll -= share;
    if (roll < 0) return kind;
  }
  return 'list';
}

/** The request of `kind` for `tenant`. @param {Tenant} tenant @param {Kind} kind */
function requestOf(tenant, kind) {
  const id = any(tenant.contactIds);
  switch (kind) {
    case 'list':
      return { method: 'GET', path: '/v1/contacts?limit=20' };
    case 'get':
      return { method: 'GET', path: `/v1/contacts/${id}` };
    case 'create':
      serial += 1;
      return {
        method: 'POST',
        path: '/v1/contacts',
        body: { name: `Novo ${serial}`, email: `novo${serial}@exemplo.com.br` },
      };
    case 'update':
      return { method: 'PUT', path: `/v1/contacts/${id}`, body: { name: `Revisado ${Date.now()}` } };
    case 'hook':
      return { method: 'POST', path: tenant.hookPath, body: lead() };
  }
}

/**
 * What one account's requests of each kind saw during a leg.
 * @typedef {{ latencies: number[], d1: number[], failures: number, skipped: number }} KindSample
 * @typedef {Record<Kind, KindSample>} TenantSample
 */

/** @returns {TenantSample} */
const emptySample = () =>
  /** @type {TenantSample} */ (
    /** @type {unknown} */ (
      Object.fromEntries(KINDS.map((k) => [k, { latencies: [], d1: [], failures: 0, skipped: 0 }]))
    )
  );

/**
 * Sends one request and records it: its latency (2xx only), the D1 time its Server-Timing reports,
 * or a failure.
 * @param {string} origin @param {Tenant} tenant @param {Kind} kind @param {KindSample} into
 */
async function send(origin, tenant, kind, into) {
  const { method, path, body } = requestOf(tenant, kind);
  const started = performance.now();
  try {
    const res = await fetch(origin + path, {
      method,
      headers: { Authorization: `Bearer ${tenant.apiKey}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status < 200 || res.status > 299) {
      into.failures += 1;
      return;
    }
    into.latencies.push(performance.now() - started);
    const d1 = /d1;dur=([\d.]+)/.exec(res.headers.get('Server-Timing') ?? '');
    if (d1) into.d1.push(Number(d1[1]));
  } catch {
    into.failures += 1;
  }
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most this many requests of one normal account in flight: past it a due request is skipped. */
const IN_FLIGHT = 8;

/**
 * A normal account: a request every 1/rate s (an open loop, so a slow answer does not lower the
 * rate), its kind drawn by MIX, until `end` (a performance.now() time).
 * @param {string} origin @param {Tenant} tenant @param {number} rate @param {number} end
 * @param {TenantSample} sample
 */
async function steady(origin, tenant, rate, end, sample) {
  const interval = 1000 / rate;
  let due = performance.now() + Math.random() * interval;
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set();
  while (due < end) {
    await sleep(due - performance.now());
    due += interval;
    const kind = draw();
    if (inFlight.size >= IN_FLIGHT) {
      sample[kind].skipped += 1;
      continue;
    }
    const sent = send(origin, tenant, kind, sample[kind]).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
}

/**
 * The flooding account: `connections` senders posting webhooks back to back until `end`.
 * @param {string} origin @param {Tenant} tenant @param {number} connections @param {number} end
 * @param {TenantSample} sample
 */
async function flood(origin, tenant, connections, end, sample) {
  const sender = async () => {
    while (performance.now() < end) await send(origin, tenant, 'hook', sample.hook);
  };
  await Promise.all(Array.from({ length: connections }, sender));
}

/**
 * One leg: every account's load on one Worker for `seconds`; tenant 0 floods.
 * @param {string} origin @param {Tenant[]} tenants
 * @param {{ seconds: number, rate: number, floodConnections: number }} options
 * @returns {Promise<{ samples: TenantSample[], seconds: number }>}
 */
export async function leg(origin, tenants, { seconds, rate, floodConnections }) {
  const samples = tenants.map(emptySample);
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    tenants.map((tenant, k) => {
      const sample = /** @type {TenantSample} */ (samples[k]);
      return tenant.index === 0
        ? flood(origin, tenant, floodConnections, end, sample)
        : steady(origin, tenant, rate, end, sample);
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

/** @param {Tenant} tenant @param {string} origin @param {string} query */
async function anyEvent(tenant, origin, query) {
  const page = await client(origin, tenant.apiKey)(
    'GET',
    `/v1/inbound-webhooks/${tenant.hookId}/events?${query}`,
  );
  const rows = field(page.body, 'data');
  return Array.isArray(rows) && rows.length > 0;
}

/**
 * Waits until no account's webhook has a pending event (the flood's backlog drained), at most
 * `limitS` seconds; returns how long it took, or undefined if still pending then.
 * @param {string} origin @param {Tenant[]} tenants @param {number} limitS
 */
export async function drained(origin, tenants, limitS) {
  const started = performance.now();
  const deadline = started + limitS * 1000;
  for (const tenant of tenants) {
    while (await anyEvent(tenant, origin, 'status=pending&limit=1')) {
      if (performance.now() > deadline) return undefined;
      await sleep(500);
    }
  }
  return (performance.now() - started) / 1000;
}

/**
 * Each event's wait from arrival to processed (ms) of one account's webhook, read back through
 * the event log, newest first, at most `pages` pages of 100; and how many failed.
 * @param {string} origin @param {Tenant} tenant @param {number} pages
 */
export async function eventWaits(origin, tenant, pages) {
  const api = client(origin, tenant.apiKey);
  /** @type {number[]} */
  const waits = [];
  let failed = 0;
  let cursor = '';
  for (let page = 0; page < pages; page++) {
    const path = `/v1/inbound-webhooks/${tenant.hookId}/events?limit=100${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
    const body = ok(await api('GET', path), `GET ${path}`);
    const rows = field(body, 'data');
    for (const row of Array.isArray(rows) ? rows : []) {
      const processed = field(row, 'processed_at');
      if (field(row, 'status') === 'failed') failed += 1;
      if (typeof processed === 'string') {
        waits.push(Date.parse(processed) - Date.parse(String(field(row, 'received_at'))));
      }
    }
    const next = field(body, 'meta', 'next_cursor');
    if (typeof next !== 'string') break;
    cursor = next;
  }
  return { waits, failed };
}

/**
 * A group's figures for one kind: requests, their rate per account, p50 and p99.
 * @param {KindSample[]} samples @param {number} seconds @param {number} accounts
 */
export function figures(samples, seconds, accounts) {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const d1 = samples.flatMap((s) => s.d1).sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps_per_account: latencies.length / seconds / Math.max(1, accounts),
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    d1_p50_ms: percentile(d1, 50),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    skipped: samples.reduce((sum, s) => sum + s.skipped, 0),
  };
}

/**
 * Each kind's requests one at a time (`count` of each) from one account of an idle Worker: the
 * request's own time and the D1 time its Server-Timing reports, without queueing behind others.
 * @param {string} origin @param {Tenant} tenant @param {number} count
 */
export async function alone(origin, tenant, count) {
  const sample = emptySample();
  for (const kind of KINDS) for (let i = 0; i < count; i++) await send(origin, tenant, kind, sample[kind]);
  return sample;
}
