// The outbound drill's changes: about `changes` journal entries made through the three write
// paths at once: `/v1` single writes (creates, then updates of the same records, so each record
// has many versions in flight), inbound webhook events whose flow upserts a contact and opens a
// deal and a task, and `/v1/{resource}/batch` writes of 100 items.
import { field } from './api.mjs';
import { leadWebhook } from './consumer.mjs';
import { cnpjFor, maskCnpj } from './seed.mjs';

/** @typedef {import('./api.mjs').Api} Api */

/** What the writes came to: requests answered 2xx, and the others (each a short line). */
function tally() {
  const state = { ok: 0, failed: /** @type {string[]} */ ([]) };
  /** @param {string} what @param {{ status: number, body: unknown }} answer @param {number[]} expected */
  const check = (what, answer, expected) => {
    if (expected.includes(answer.status)) state.ok++;
    else
      state.failed.push(
        `${what} ${answer.status} ${JSON.stringify(field(answer.body, 'code') ?? answer.body)}`,
      );
    return answer;
  };
  return { state, check };
}

/** Runs `work(i)` for i in 0..n-1 over `lanes` concurrent lanes. @param {number} n @param {number} lanes @param {(i: number) => Promise<void>} work */
async function lanesOf(n, lanes, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let i = next++; i < n; i = next++) await work(i);
    }),
  );
}

/**
 * The records single writes make and then update, in turn: each create's body (`dealId`: a deal
 * made before, for a task) and its n-th update's.
 * @type {{ kind: string, create: (i: number, dealId?: number) => unknown, update: (i: number, v: number) => unknown }[]}
 */
const KINDS = [
  {
    kind: 'companies',
    create: (i) => ({ name: `Drill Empresa ${i} Ltda`, cnpj: maskCnpj(cnpjFor(900_000 + i)) }),
    update: (_i, v) => ({ observations: `Revisão ${v}` }),
  },
  {
    kind: 'contacts',
    create: (i) => ({ name: `Drill Contato ${i}` }),
    update: (i, v) => ({ name: `Drill Contato ${i} v${v}` }),
  },
  {
    kind: 'deals',
    create: (i) => ({ name: `Drill Negócio ${i}`, value: i }),
    update: (_i, v) => ({ value: 1000 + v }),
  },
  {
    kind: 'tasks',
    create: (i, dealId) => ({
      name: `Drill Tarefa ${i}`,
      deal_id: dealId,
      category: 'Ligação',
      due_date: '2027-01-10T10:00:00-03:00',
    }),
    update: (i, v) => ({ is_completed: v % 2 === 1, name: `Drill Tarefa ${i} v${v}` }),
  },
];

/**
 * Single writes: `creates` records (companies, contacts, deals, tasks in turn), then `updates`
 * updates cycling through them. Each lane owns its records, so one record is never written by two
 * requests at once (its versions follow the order of the lane's requests).
 * @param {Api} api @param {ReturnType<typeof tally>['check']} check @param {{ creates: number, updates: number, lanes: number }} n
 */
async function singles(api, check, { creates, updates, lanes }) {
  /** @type {{ path: string, body: (v: number) => unknown }[]} */
  const records = [];
  /** @type {number | undefined} */
  let dealId;
  for (let i = 0; i < creates; i++) {
    const { kind, create, update } = KINDS[i % KINDS.length] ?? KINDS[0];
    const created = check(`POST /v1/${kind}`, await api('POST', `/v1/${kind}`, create(i, dealId)), [201]);
    const id = field(created.body, 'data', 'id');
    if (typeof id !== 'number') continue;
    if (kind === 'deals') dealId ??= id;
    records.push({ path: `/v1/${kind}/${id}`, body: (v) => update(i, v) });
  }
  await lanesOf(lanes, lanes, async (lane) => {
    const mine = records.filter((_, k) => k % lanes === lane);
    for (let u = lane, v = 1; u < updates && mine.length; u += lanes, v++) {
      const record = mine[Math.floor(u / lanes) % mine.length];
      if (record) check(`PUT ${record.path}`, await api('PUT', record.path, record.body(v)), [200]);
    }
  });
}

/**
 * `events` inbound events (3 entries each: the contact upserted by phone, a deal, a task); one
 * phone in three is used again, so those upserts are updates.
 * @param {string} origin @param {string} path @param {ReturnType<typeof tally>['check']} check @param {{ events: number, lanes: number }} n
 */
async function flows(origin, path, check, { events, lanes }) {
  await lanesOf(events, lanes, async (i) => {
    const phone = `(11) 9${String(30_000_000 + (i % 3 === 2 ? i - 2 : i)).slice(-8)}`;
    const res = await fetch(origin + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ lead: { name: `Drill Lead ${i}`, phone } }),
    });
    await res.arrayBuffer();
    check(`POST ${path.slice(0, 12)}…`, { status: res.status, body: '' }, [204]);
  });
}

/**
 * `/v1/{contacts,deals}/batch`: `size` creates of each, then rounds of `size` updates of them,
 * alternating the two resources, until `batches` requests.
 * @param {Api} api @param {ReturnType<typeof tally>['check']} check @param {{ batches: number, size: number }} n
 */
async function batches(api, check, { batches: count, size }) {
  /** @type {Record<string, number[]>} */
  const ids = { contacts: [], deals: [] };
  for (let b = 0; b < count; b++) {
    const kind = b % 2 === 0 ? 'contacts' : 'deals';
    const round = Math.floor(b / 2);
    const items = Array.from({ length: size }, (_, k) =>
      round === 0
        ? {
            op: 'create',
            data: kind === 'contacts' ? { name: `Drill Lote ${k}` } : { name: `Drill Lote ${k}`, value: k },
          }
        : {
            op: 'update',
            id: ids[kind]?.[k],
            data: kind === 'contacts' ? { name: `Drill Lote ${k} r${round}` } : { value: 100 * round + k },
          },
    );
    const answer = check(`POST /v1/${kind}/batch`, await api('POST', `/v1/${kind}/batch`, { items }), [200]);
    const rows = field(answer.body, 'data');
    if (round === 0 && Array.isArray(rows)) ids[kind] = rows.map((row) => Number(field(row, 'data', 'id')));
  }
}

/**
 * Makes the changes, the three paths at once. About `changes` entries: 30 % single writes, 30 %
 * flows (3 entries per event), 40 % batches of 100.
 * @param {{ api: Api, origin: string, changes: number, lanes: number }} options
 */
export async function makeChanges({ api, origin, changes, lanes }) {
  const created = await api('POST', '/v1/inbound-webhooks', leadWebhook('Outbound drill'));
  const url = field(created.body, 'data', 'url');
  if (created.status !== 201 || typeof url !== 'string')
    throw new Error(`POST /v1/inbound-webhooks answered ${created.status}: ${JSON.stringify(created.body)}`);
  const { state, check } = tally();
  const single = Math.round(changes * 0.3);
  const creates = Math.max(8, Math.round(single / 12));
  const started = performance.now();
  await Promise.all([
    singles(api, check, { creates, updates: single - creates, lanes }),
    flows(origin, new URL(url).pathname, check, { events: Math.round((changes * 0.3) / 3), lanes }),
    batches(api, check, { batches: Math.max(2, Math.round((changes * 0.4) / 100)), size: 100 }),
  ]);
  return { requests: state.ok, failed: state.failed, seconds: (performance.now() - started) / 1000 };
}
