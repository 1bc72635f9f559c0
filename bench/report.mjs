// Tables in GitHub Markdown, so a run's output can go into bench/README.md as printed.

/**
 * @typedef {object} EndpointResult
 * @property {string} name
 * @property {import('./endpoints.mjs').Endpoint['kind']} kind
 * @property {string} [skipped] why it did not run
 * @property {string} [error] why it could not be measured
 * @property {number} [requests] @property {number} [rps] @property {number} [p50_ms] @property {number} [p99_ms]
 * @property {number} [round_trips] D1 round trips of one request, from its Server-Timing
 * @property {number} [failures] non-2xx answers and connection errors under load
 * @property {{ rps: number, p50: number, p99: number }} [vs_health] each figure divided by /health's
 *
 * @typedef {object} Growth
 * @property {string} name
 * @property {EndpointResult['kind']} kind
 * @property {number} p50 @property {number} p99 @property {number} rps larger size's figure over the smaller's
 * @property {boolean} over a list whose p50 grew past the budget
 */

/** @param {number | undefined} value @param {number} digits */
const fixed = (value, digits) => (value === undefined || Number.isNaN(value) ? '' : value.toFixed(digits));
/** @param {number | undefined} value */
const times = (value) => (value === undefined || Number.isNaN(value) ? '' : `${value.toFixed(2)}x`);

/** @param {string[]} header @param {string[][]} rows @param {('l' | 'r')[]} align */
export function table(header, rows, align) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  /** @param {string[]} cells */
  const line = (cells) =>
    `| ${cells.map((cell, i) => (align[i] === 'r' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const RESULT_HEADER = [
  'endpoint',
  'req/s',
  'p50 ms',
  'p99 ms',
  'D1 trips',
  'req/s ÷ health',
  'p50 ÷ health',
  'p99 ÷ health',
];
/** @type {('l' | 'r')[]} */
export const RESULT_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];

/** @param {EndpointResult} r @returns {string[]} */
export function resultRow(r) {
  // The reason goes under the table (see notes), so it does not stretch a column.
  if (r.skipped) return [r.name, 'skipped', '', '', '', '', '', ''];
  if (r.error) return [r.name, 'error', '', '', '', '', '', ''];
  return [
    r.failures ? `${r.name} (${r.failures} failed)` : r.name,
    fixed(r.rps, 0),
    fixed(r.p50_ms, 1),
    fixed(r.p99_ms, 1),
    String(r.round_trips ?? ''),
    times(r.vs_health?.rps),
    times(r.vs_health?.p50),
    times(r.vs_health?.p99),
  ];
}

/**
 * `result` with its figures divided by /health's from the same run.
 * @param {EndpointResult} result @param {EndpointResult} health @returns {EndpointResult}
 */
export function withHealth(result, health) {
  if (result.rps === undefined || health.rps === undefined) return result;
  const ratio = (/** @type {number | undefined} */ a, /** @type {number | undefined} */ b) =>
    (a ?? Number.NaN) / (b ?? Number.NaN);
  return {
    ...result,
    vs_health: {
      rps: ratio(result.rps, health.rps),
      p50: ratio(result.p50_ms, health.p50_ms),
      p99: ratio(result.p99_ms, health.p99_ms),
    },
  };
}

/** Why endpoints were skipped or failed, one line each. @param {EndpointResult[]} results */
export const notes = (results) =>
  results.flatMap((r) =>
    r.skipped ? [`- ${r.name}: skipped, ${r.skipped}`] : r.error ? [`- ${r.name}: ${r.error}`] : [],
  );

/**
 * Each endpoint's figures at `large` rows over the same at `small` rows.
 * @param {EndpointResult[]} small @param {EndpointResult[]} large @param {number} budget
 * @returns {Growth[]}
 */
export function growth(small, large, budget) {
  return small.flatMap((before) => {
    const after = large.find((r) => r.name === before.name);
    if (!after || before.rps === undefined || after.rps === undefined) return [];
    const p50 = (after.p50_ms ?? Number.NaN) / (before.p50_ms ?? Number.NaN);
    return [
      {
        name: before.name,
        kind: before.kind,
        p50,
        p99: (after.p99_ms ?? Number.NaN) / (before.p99_ms ?? Number.NaN),
        rps: after.rps / before.rps,
        over: before.kind === 'list' && p50 > budget,
      },
    ];
  });
}

/** @param {Growth[]} rows @param {EndpointResult[]} small @param {EndpointResult[]} large @param {[number, number]} sizes */
export function growthTable(rows, small, large, sizes) {
  /** @param {EndpointResult[]} results @param {string} name */
  const p50 = (results, name) => fixed(results.find((r) => r.name === name)?.p50_ms, 1);
  return table(
    [
      'endpoint',
      `p50 ms @${sizes[0]}`,
      `p50 ms @${sizes[1]}`,
      'p50 growth',
      'p99 growth',
      'req/s growth',
      'budget',
    ],
    rows.map((g) => [
      g.name,
      p50(small, g.name),
      p50(large, g.name),
      times(g.p50),
      times(g.p99),
      times(g.rps),
      g.kind !== 'list' ? '' : g.over ? 'OVER' : 'ok',
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
}

/**
 * With `--against`: each endpoint's figures on this checkout over the same on the other build.
 * @param {EndpointResult[]} head @param {EndpointResult[]} other
 * @returns {{ name: string, kind: EndpointResult['kind'], rps: [number, number], p50: [number, number], rps_ratio: number, p50_ratio: number }[]}
 */
export function against(head, other) {
  return head.flatMap((mine) => {
    const theirs = other.find((r) => r.name === mine.name);
    if (!theirs || mine.rps === undefined || theirs.rps === undefined) return [];
    const p50 = /** @type {[number, number]} */ ([mine.p50_ms ?? Number.NaN, theirs.p50_ms ?? Number.NaN]);
    return [
      {
        name: mine.name,
        kind: mine.kind,
        rps: /** @type {[number, number]} */ ([mine.rps, theirs.rps]),
        p50,
        rps_ratio: mine.rps / theirs.rps,
        p50_ratio: p50[0] / p50[1],
      },
    ];
  });
}

/** @param {ReturnType<typeof against>} rows @param {[string, string]} labels */
export function againstTable(rows, labels) {
  return table(
    [
      'endpoint',
      `req/s ${labels[0]}`,
      `req/s ${labels[1]}`,
      'req/s ratio',
      `p50 ms ${labels[0]}`,
      `p50 ms ${labels[1]}`,
      'p50 ratio',
    ],
    rows.map((r) => [
      r.name,
      fixed(r.rps[0], 0),
      fixed(r.rps[1], 0),
      times(r.rps_ratio),
      fixed(r.p50[0], 1),
      fixed(r.p50[1], 1),
      times(r.p50_ratio),
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}
