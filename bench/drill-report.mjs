// The fault drill's report in GitHub Markdown, so a run's output can go into bench/README.md as printed.
import { KINDS } from './drill-events.mjs';
import { table } from './report.mjs';

/**
 * @typedef {ReturnType<typeof import('./drill-audit.mjs').audit>} Audit
 * @typedef {object} Timing
 * @property {number} burst_s @property {number} drain_s until nothing was pending, after the burst
 * @property {import('./drill-burst.mjs').Burst['restart']} restart
 * @property {number} cron_runs @property {string[]} cron_errors
 */

/** `a: 1, b: 2`, or `0` for none. @param {Record<string, number>} counts */
const listed = (counts) =>
  Object.entries(counts)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ') || '0';
/** @param {Record<string, number>} counts */
const total = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * @param {{ title: string, audit: Audit, timing: Timing, windowSeconds: number }} input
 * @returns {string}
 */
export function drillReport({ title, audit: { report, targets }, timing, windowSeconds }) {
  const { sent, answers, d1, duplicates, rejected_records } = report;
  const kinds = Object.entries(sent.by_kind).map(([kind, k]) => [
    `${KINDS[/** @type {keyof typeof KINDS} */ (kind)]} (\`${kind}\`)`,
    String(k.events),
    listed(k.answers),
  ]);
  const restart = timing.restart;
  const cut = answers.cut_off_by_the_restart;
  return [
    title,
    '',
    table(
      ['events', 'sent', 'answers'],
      [...kinds, ['all', String(sent.events), listed(answers.by_status)]],
      ['l', 'r', 'l'],
    ),
    '',
    `- The burst took ${timing.burst_s.toFixed(1)} s. The server was stopped at event ${restart.at_event} and answered again ${restart.down_s.toFixed(1)} s later: ${cut} requests were cut off (${listed(answers.not_accepted_in_restart)}), then retried with the same Idempotency-Key; ${answers.retried_and_then_answered} of ${answers.events_retried} retried events got an answer. ${answers.cut_off_but_stored_already} of the cut-off requests had stored their event already, so their retry stored nothing.`,
    `- Requests not accepted outside the restart: ${listed(answers.not_accepted_otherwise)}.`,
    `- Nothing was pending ${timing.drain_s.toFixed(1)} s after the burst; the cron (window ${windowSeconds} s) ran ${timing.cron_runs} times${timing.cron_errors.length ? `, ${timing.cron_errors.length} failed` : ''}.`,
    '',
    table(
      ['in D1', ''],
      [
        ['events stored', String(d1.events_stored)],
        ['processed', String(d1.processed)],
        ['failed', `${d1.failed} (${listed(d1.failed_reasons)})`],
        ['pending', String(d1.pending)],
        ['processing attempts', String(d1.processing_attempts)],
        ['records', listed(d1.records)],
        ['deals per owner (round robin)', Object.values(d1.deals_per_owner).join(', ')],
        ['duplicate records', `${total(duplicates)} (${listed(duplicates)})`],
        [
          'processed events without their deal and task',
          String(report.processed_without_their_deal_and_task),
        ],
        ['records of rejected events', `${total(rejected_records)} (${listed(rejected_records)})`],
        ['rejected events in the log (newest 100 kept)', String(report.rejected_events_in_the_log)],
      ],
      ['l', 'l'],
    ),
    '',
    table(
      ['target', 'expected', 'actual', ''],
      targets.map((t) => [t.name, t.expected, String(t.actual), t.ok ? 'met' : 'MISSED']),
      ['l', 'r', 'r', 'l'],
    ),
  ].join('\n');
}
