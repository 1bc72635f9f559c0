// The Queue consumer's throughput: how many webhook events per second it turns into records when a
// flow upserts a contact, opens a deal and schedules a task for each, measured from the first post
// of a burst to the moment none of its events is pending. A figure to keep (issue 38), not a budget:
// under `wrangler dev` the local queue hands batches of `max_batch_size` after `max_batch_timeout`
// (wrangler.toml), as production's does, so the figure says as much about those settings as about
// the consumer's own work.
import { field } from './api.mjs';

/** @typedef {import('./api.mjs').Api} Api */

/**
 * @typedef {object} Drain
 * @property {number} events how many were posted (each answered 204)
 * @property {number} post_s from the first post to the last 204
 * @property {number} drain_s from the first post until none was pending
 * @property {number} events_per_s events ÷ drain_s
 * @property {boolean} any_failed whether any of them failed, or was processed with a warning (a step
 *   of the flow skipped): the figure is then not that of the whole flow
 */

const FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead {{lead.name}}' },
  {
    action: 'create_task',
    name: 'Ligar para {{lead.name}}',
    category: 'Ligação',
    due: { from: 'received_at', days: 1 },
  },
];

/**
 * A webhook of `{ lead: { name, phone } }` events whose flows upsert the contact by phone, open a
 * deal and schedule a task (also the outbound drill's, bench/outbound-changes.mjs).
 * @param {string} name
 */
export const leadWebhook = (name) => ({
  name,
  fields: [
    { key: 'lead.name', type: 'string', required: true, target: 'contact.name' },
    { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
  ],
  flows: FLOWS,
});

/** @param {Api} api @param {string} path @returns {Promise<boolean>} whether the page has a row */
async function any(api, path) {
  const page = await api('GET', path);
  const rows = field(page.body, 'data');
  if (page.status !== 200 || !Array.isArray(rows)) throw new Error(`GET ${path} answered ${page.status}`);
  return rows.length > 0;
}

/** Resolves once `done()` does, polling every 200 ms for at most `limitMs`. @param {() => Promise<boolean>} done @param {number} limitMs */
async function until(done, limitMs) {
  const deadline = performance.now() + limitMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`still pending after ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits for every webhook of the account to have nothing pending (the ingest load's events), then
 * posts `events` leads, each with its own phone, through `connections` parallel senders, and times
 * the consumer until it has processed them all.
 * @param {Api} api @param {string} origin @param {{ events: number, connections: number }} options
 * @returns {Promise<Drain>}
 */
export async function drain(api, origin, { events, connections }) {
  const hooks = field((await api('GET', '/v1/inbound-webhooks?limit=100')).body, 'data');
  for (const hook of Array.isArray(hooks) ? hooks : []) {
    const path = `/v1/inbound-webhooks/${field(hook, 'id')}/events?status=pending&limit=1`;
    await until(async () => !(await any(api, path)), 300_000);
  }
  const created = await api('POST', '/v1/inbound-webhooks', leadWebhook('Consumer benchmark'));
  const id = field(created.body, 'data', 'id');
  const url = field(created.body, 'data', 'url');
  if (created.status !== 201 || typeof url !== 'string') {
    throw new Error(`POST /v1/inbound-webhooks answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const path = new URL(url).pathname;
  let next = 0;
  const send = async () => {
    for (let i = next++; i < events; i = next++) {
      const phone = `(11) 9${String(10_000_000 + i).slice(-8)}`;
      const res = await fetch(origin + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ lead: { name: `Lead ${i}`, phone } }),
      });
      await res.arrayBuffer();
      if (res.status !== 204) throw new Error(`POST ${path} answered ${res.status}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, send));
  const post_s = (performance.now() - started) / 1000;
  await until(
    async () => !(await any(api, `/v1/inbound-webhooks/${id}/events?status=pending&limit=1`)),
    600_000,
  );
  const drain_s = (performance.now() - started) / 1000;
  const log = `/v1/inbound-webhooks/${id}/events`;
  const failed =
    (await any(api, `${log}?status=failed&limit=1`)) || (await any(api, `${log}?has_warnings=true&limit=1`));
  return { events, post_s, drain_s, events_per_s: events / drain_s, any_failed: failed };
}
