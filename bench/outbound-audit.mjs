// The outbound drill's verdict: the journal's entries against what the receiver accepted.
import { field } from './api.mjs';

/** @typedef {import('./outbound-receiver.mjs').Arrival} Arrival */

/**
 * Every journal entry of the account, oldest first, through `GET /v1/events` and its cursor (the
 * feed a client would poll), with the cursor to poll from next.
 * @param {import('./api.mjs').Api} api @param {string} [from]
 */
export async function journal(api, from) {
  /** @type {{ id: string, type: string, record: string, version: number }[]} */
  const entries = [];
  let cursor = from;
  for (;;) {
    const page = await api(
      'GET',
      `/v1/events?sort=occurred_at&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    const rows = field(page.body, 'data');
    if (page.status !== 200 || !Array.isArray(rows))
      throw new Error(`GET /v1/events answered ${page.status}: ${JSON.stringify(page.body)}`);
    for (const row of rows)
      entries.push({
        id: String(field(row, 'id')),
        type: String(field(row, 'type')),
        record: `${field(row, 'record_type')}:${field(row, 'record_id')}`,
        version: Number(field(row, 'version')),
      });
    const next = field(page.body, 'meta', 'next_cursor');
    if (typeof next === 'string') cursor = encodeURIComponent(next);
    if (rows.length < 100) return { entries, cursor };
  }
}

/** The ids the receiver accepted (answered 2xx after verifying), each once. @param {Arrival[]} arrivals */
export const accepted = (arrivals) => new Set(arrivals.filter((a) => a.status < 300).map((a) => a.id));

/**
 * The targets: no entry lost, each accepted once after dedupe (and how many repeats came before
 * it), every signature verified, no record's version going back in the order accepted.
 * @param {{ id: string, record: string, version: number }[]} entries @param {Arrival[]} arrivals
 */
export function audit(entries, arrivals) {
  const got = accepted(arrivals);
  const lost = entries.filter((e) => !got.has(e.id)).map((e) => e.id);
  const known = new Set(entries.map((e) => e.id));
  const unknown = [...got].filter((id) => !known.has(id));
  /** @type {Map<string, number>} */
  const times = new Map();
  /** @type {Map<string, number>} */
  const lastVersion = new Map();
  const regressions = [];
  for (const a of arrivals) {
    if (a.status >= 300) continue;
    times.set(a.id, (times.get(a.id) ?? 0) + 1);
    if (!a.record || a.version === undefined) continue;
    const before = lastVersion.get(a.record) ?? 0;
    if (a.version < before) regressions.push(`${a.record} v${a.version} after v${before}`);
    else lastVersion.set(a.record, a.version);
  }
  const repeated = [...times.values()].filter((n) => n > 1).length;
  const unverified = arrivals.filter((a) => !a.verified).length;
  /** @type {Record<string, number>} */
  const answered = {};
  for (const a of arrivals) answered[a.status] = (answered[a.status] ?? 0) + 1;
  const records = new Set(entries.map((e) => e.record)).size;
  return {
    entries: entries.length,
    records,
    delivered_once_after_dedupe: got.size - unknown.length,
    lost: lost.length,
    lost_ids: lost.slice(0, 20),
    accepted_more_than_once: repeated,
    not_in_journal: unknown.length,
    unverified_signatures: unverified,
    version_regressions: regressions.length,
    regression_examples: regressions.slice(0, 20),
    requests_received: arrivals.length,
    answered,
    ok: lost.length === 0 && unknown.length === 0 && unverified === 0 && regressions.length === 0,
  };
}
