// The fault drill's verdict: what the sender saw, what D1 holds afterwards, and the targets.
import { KINDS, REJECTED_MARK } from './drill-events.mjs';

/**
 * The statements `audit` reads, for the drill's account: run them with bench/local.mjs `query`.
 * @param {number} accountId
 */
export function auditQueries(accountId) {
  const mine = `account_id = ${Number(accountId)}`;
  const marked = (/** @type {string} */ column) => `instr(${column}, '${REJECTED_MARK}') > 0`;
  return [
    // 0: every stored event (refused calls are kept apart, as rejected events: see 9)
    `SELECT idempotency_key AS key, CASE WHEN json_valid(payload) THEN json_extract(payload, '$.ref') END AS ref,
       status, coalesce(error, '') AS error, attempts, received_at FROM inbound_events WHERE ${mine} AND status <> 'rejected'`,
    // 1: contacts sharing a phone
    `SELECT phone, count(*) AS n FROM contacts WHERE ${mine} GROUP BY phone HAVING n > 1`,
    // 2: deals sharing a name, that is an event's ref
    `SELECT name, count(*) AS n FROM deals WHERE ${mine} GROUP BY name HAVING n > 1`,
    // 3: deals with more than one task
    `SELECT deal_id, count(*) AS n FROM tasks WHERE ${mine} AND deal_id IS NOT NULL GROUP BY deal_id HAVING n > 1`,
    // 4: deals of a contact beyond the events whose results name that contact
    `SELECT coalesce(sum(n - expected), 0) AS extra FROM (
       SELECT d.contact_id, count(*) AS n,
         (SELECT count(*) FROM inbound_event_results r WHERE r.account_id = d.account_id AND r.contact_id = d.contact_id) AS expected
       FROM deals d WHERE d.${mine} GROUP BY d.account_id, d.contact_id) WHERE n > expected`,
    // 5: processed events whose results lack their deal (named with their ref) or their one task
    `SELECT count(*) AS n FROM inbound_events e
       LEFT JOIN inbound_event_results r ON r.event_id = e.id
       LEFT JOIN deals d ON d.account_id = e.account_id AND d.id = r.deal_id
       LEFT JOIN tasks t ON t.account_id = e.account_id AND t.id = json_extract(r.task_ids, '$[0]') AND t.deal_id = d.id
     WHERE e.${mine} AND e.status = 'processed'
       AND (d.id IS NULL OR t.id IS NULL OR json_array_length(r.task_ids) <> 1
         OR substr(d.name, 1, length(json_extract(e.payload, '$.ref')) + 1) <> json_extract(e.payload, '$.ref') || ' ')`,
    // 6: anything holding a rejected event's mark, but the rejected events themselves
    `SELECT (SELECT count(*) FROM inbound_events WHERE ${mine} AND status <> 'rejected' AND (${marked('payload')} OR ${marked('idempotency_key')})) AS events,
       (SELECT count(*) FROM contacts WHERE ${mine} AND ${marked('name')}) AS contacts,
       (SELECT count(*) FROM deals WHERE ${mine} AND ${marked('name')}) AS deals,
       (SELECT count(*) FROM tasks WHERE ${mine} AND ${marked('name')}) AS tasks`,
    // 7: records made
    `SELECT (SELECT count(*) FROM contacts WHERE ${mine}) AS contacts, (SELECT count(*) FROM deals WHERE ${mine}) AS deals,
       (SELECT count(*) FROM tasks WHERE ${mine}) AS tasks`,
    // 8: deals per owner (round robin)
    `SELECT owner_id, count(*) AS n FROM deals WHERE ${mine} GROUP BY owner_id`,
    // 9: refused calls kept in the event log, and how many of them carry the mark
    `SELECT count(*) AS n, coalesce(sum(${marked('rejection')}), 0) AS marked, coalesce(sum(processed_at IS NOT NULL), 0) AS processed
       FROM inbound_events WHERE ${mine} AND status = 'rejected'`,
  ];
}

/** @param {Iterable<string>} items @returns {Record<string, number>} */
function tally(items) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

/** @param {unknown} value */
const num = (value) => Number(value ?? 0);

/**
 * @typedef {{ name: string, expected: string, actual: number | string, ok: boolean }} Target
 */

/**
 * The report: the burst as the sender saw it, D1 afterwards, and each target met or missed.
 * @param {{ events: import('./drill-events.mjs').DrillEvent[], burst: import('./drill-burst.mjs').Burst,
 *   rows: Record<string, unknown>[][], users: number[] }} input
 */
export function audit({ events, burst, rows, users }) {
  const [
    stored = [],
    phones = [],
    dealNames = [],
    taskDeals = [],
    perContact = [],
    incomplete = [],
    marked = [],
    made = [],
    owners = [],
    keptRefusals = [],
  ] = rows;
  const sent = burst.sent;
  const statusOf = (/** @type {number} */ i) => sent[i]?.status;
  const refused = (/** @type {number} */ i) => (statusOf(i) ?? 0) >= 400 && (statusOf(i) ?? 0) < 500;

  const valid = events.filter((e) => e.stores);
  const validKeys = new Set(valid.map((e) => e.key));
  const acceptedKeys = new Set(valid.filter((e) => statusOf(e.index) === 204).map((e) => e.key));
  const rejected = events.filter((e) => !e.stores);
  const orphanKeys = new Set(valid.filter((e) => e.stores === 'orphan').map((e) => e.key));

  const failures = sent.flatMap((s) => s?.failures ?? []);
  const answer = (/** @type {number} */ i) => String(statusOf(i) ?? 'none');
  const answers = tally(events.map((e) => answer(e.index)));
  const byKind = Object.fromEntries(
    Object.keys(KINDS).flatMap((kind) => {
      const of = events.filter((e) => e.kind === kind);
      return of.length ? [[kind, { events: of.length, answers: tally(of.map((e) => answer(e.index))) }]] : [];
    }),
  );
  // Retried after the restart cut them off, although the cut-off try had stored them already.
  const receivedAt = new Map(stored.map((r) => [String(r.key), num(r.received_at)]));
  const cutOff = events.filter((e) => sent[e.index]?.failures.some((f) => f.restart));
  const storedBeforeTheCut = cutOff.filter(
    (e) => (receivedAt.get(e.key) ?? Infinity) < burst.restart.killed_at,
  );

  const byKey = tally(stored.map((r) => String(r.key)));
  const storedKeys = new Set(Object.keys(byKey));
  const statuses = tally(stored.map((r) => String(r.status)));
  const failed = stored.filter((r) => r.status === 'failed');
  const processed = num(statuses.processed);
  const failedWithReason = failed.filter((r) => r.error !== '').length;
  const pending = num(statuses.pending);

  const [counts = {}] = made;
  const [marks = {}] = marked;
  const [extraPerContact = {}] = perContact;
  const [missing = {}] = incomplete;
  const deals = Object.fromEntries(users.map((id) => [id, 0]));
  for (const row of owners) deals[String(row.owner_id)] = num(row.n);
  const perOwner = Object.values(deals);

  const duplicates = {
    contacts_sharing_a_phone: phones.reduce((sum, r) => sum + num(r.n) - 1, 0),
    deals_of_one_event: dealNames.reduce((sum, r) => sum + num(r.n) - 1, 0),
    deals_per_contact_beyond_its_events: num(extraPerContact.extra),
    tasks_beyond_one_per_deal: taskDeals.reduce((sum, r) => sum + num(r.n) - 1, 0),
  };
  const [kept = {}] = keptRefusals;
  const rejectedRecords = {
    events: num(marks.events),
    contacts: num(marks.contacts),
    deals: num(marks.deals),
    tasks: num(marks.tasks),
  };
  const report = {
    sent: { events: events.length, distinct_keys_to_store: validKeys.size, by_kind: byKind },
    answers: {
      by_status: answers,
      accepted_204: num(answers[204]),
      rejected_4xx: events.filter((e) => refused(e.index)).length,
      not_accepted_in_restart: tally(failures.filter((f) => f.restart).map((f) => f.reason)),
      not_accepted_otherwise: tally(failures.filter((f) => !f.restart).map((f) => f.reason)),
      events_retried: sent.filter((s) => s && s.tries > 1).length,
      retried_and_then_answered: sent.filter((s) => s && s.tries > 1 && s.status !== undefined).length,
      cut_off_by_the_restart: cutOff.length,
      cut_off_but_stored_already: storedBeforeTheCut.length,
    },
    d1: {
      events_stored: stored.length,
      processed,
      failed: failed.length,
      failed_reasons: tally(failed.map((r) => String(r.error))),
      pending,
      processing_attempts: stored.reduce((sum, r) => sum + num(r.attempts), 0),
      keys_stored_more_than_once: Object.values(byKey).filter((n) => n > 1).length,
      accepted_not_stored: [...acceptedKeys].filter((k) => !storedKeys.has(k)).length,
      stored_not_accepted: [...storedKeys].filter((k) => !acceptedKeys.has(k)).length,
      stored_with_another_body: stored.filter((r) => r.ref !== r.key).length,
      records: { contacts: num(counts.contacts), deals: num(counts.deals), tasks: num(counts.tasks) },
      deals_per_owner: deals,
    },
    duplicates,
    processed_without_their_deal_and_task: num(missing.n),
    rejected_records: rejectedRecords,
    rejected_events_in_the_log: num(kept.n),
  };

  const sum = (/** @type {Record<string, number>} */ o) => Object.values(o).reduce((a, b) => a + b, 0);
  /** @param {string} name @param {number} expected @param {number} actual @param {boolean} [also] */
  const equal = (name, expected, actual, also = true) => ({
    name,
    expected: String(expected),
    actual,
    ok: actual === expected && also,
  });
  const d = report.d1;
  const acceptedOrphans = [...orphanKeys].filter((k) => acceptedKeys.has(k)).length;
  const spread = Math.max(...perOwner) - Math.min(...perOwner);
  /** @type {Target[]} */
  const targets = [
    equal('valid events accepted (204), after retries', validKeys.size, acceptedKeys.size),
    equal('invalid events rejected (4xx)', rejected.length, rejected.filter((e) => refused(e.index)).length),
    equal('requests not accepted outside the restart', 0, sum(report.answers.not_accepted_otherwise)),
    equal(
      'accepted events stored, once per key, with their body',
      acceptedKeys.size,
      stored.length,
      d.accepted_not_stored === 0 && d.keys_stored_more_than_once === 0 && d.stored_with_another_body === 0,
    ),
    equal('accepted = processed + failed with a reason', acceptedKeys.size, processed + failedWithReason),
    equal(
      'failed events: the orphans (no contact to create)',
      acceptedOrphans,
      failed.length,
      failed.every((r) => orphanKeys.has(String(r.key))),
    ),
    equal('pending after the cron window', 0, pending),
    equal('duplicate records', 0, sum(duplicates)),
    equal('processed events without their deal and task', 0, report.processed_without_their_deal_and_task),
    equal('records of rejected events', 0, sum(rejectedRecords)),
    // A refusal is kept as a rejected event, the newest MAX_REJECTED_EVENTS (100) per webhook; one
    // cut off by the restart and sent again may be kept twice.
    {
      name: 'refusals kept in the event log as rejected, marked and never processed',
      expected: `${Math.min(rejected.length, 100)} to 100`,
      actual: num(kept.n),
      ok:
        num(kept.n) >= Math.min(rejected.length, 100) &&
        num(kept.n) <= 100 &&
        num(kept.marked) === num(kept.n) &&
        num(kept.processed) === 0,
    },
    {
      name: 'round robin: deals per owner differ by at most 1',
      expected: '≤ 1',
      actual: spread,
      ok: spread <= 1,
    },
  ];
  return { report, targets };
}
