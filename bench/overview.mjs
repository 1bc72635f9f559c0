// `node --experimental-sqlite bench/overview.mjs [days]`: the webhook overview's hourly counts on
// SQLite (the engine under D1) at 100,000 events of one webhook spread over [days] (default 7): the
// per-hour seeks of src/webhooks/log/event-overview.ts against a GROUP BY of the hour, which sorts.
// Figures in docs/panel.md. Node 22's node:sqlite, on an in-memory copy of the migrations.
import { readdirSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

const N = 100_000;
const HOUR = 3_600_000;
const STATUSES = ['pending', 'processed', 'failed', 'test', 'rejected'];
const spanDays = Number(process.argv[2] ?? 7);

const db = new DatabaseSync(':memory:');
for (const file of readdirSync('drizzle')
  .filter((f) => f.endsWith('.sql'))
  .sort()) {
  for (const statement of readFileSync(`drizzle/${file}`, 'utf8').split('--> statement-breakpoint')) {
    if (statement.trim()) db.exec(statement);
  }
}

/** @param {string} sql @param {...(number | string)} params @returns {number} */
const idOf = (sql, ...params) => Number(db.prepare(sql).get(...params)?.id);

const account = idOf("INSERT INTO accounts (name, created_at) VALUES ('a', 1) RETURNING id");
const webhook = idOf(
  "INSERT INTO inbound_webhooks (account_id, name, token, fields, flows, created_at, updated_at) VALUES (?, 'a', 'whk_a', '[]', '[]', 1, 1) RETURNING id",
  account,
);
const now = Date.now();
const insert = db.prepare(
  "INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at) VALUES (?, ?, 'production', ?, '{}', '{}', ?, ?)",
);
// Processed events are the common case: three in seven.
const mix = ['processed', 'processed', 'processed', 'failed', 'test', 'rejected', 'pending'];
db.exec('BEGIN');
for (let i = 0; i < N; i++) {
  const at = now - Math.floor(Math.random() * spanDays * 24 * HOUR);
  insert.run(account, webhook, mix[i % mix.length] ?? 'processed', at, at);
}
db.exec('COMMIT');
db.exec('ANALYZE');

const start = (Math.floor(now / HOUR) - 167) * HOUR;
const last = start + 167 * HOUR;
const groupBy = db.prepare(
  `SELECT received_at / ${HOUR}, status, count(*) FROM inbound_events WHERE account_id = ?1 AND webhook_id = ?2 AND status IN (${STATUSES.map((s) => `'${s}'`).join(', ')}) AND received_at >= ?3 GROUP BY 1, status`,
);
const count = (/** @type {string} */ s) =>
  `(select count(*) from inbound_events where account_id = ?1 and webhook_id = ?2 and status = '${s}' and received_at >= h.t and received_at < h.t + ${HOUR}) as ${s}`;
const perHour = db.prepare(
  `select h.t, ${STATUSES.map(count).join(', ')} from (with recursive h(t) as (select ${start} union all select t + ${HOUR} from h where t < ${last}) select t from h) as h`,
);

/** Milliseconds per run, after a warm-up. @param {() => unknown} run */
function time(run) {
  for (let i = 0; i < 5; i++) run();
  const started = performance.now();
  for (let i = 0; i < 50; i++) run();
  return ((performance.now() - started) / 50).toFixed(2);
}

const inWindow = perHour
  .all(account, webhook)
  .reduce((n, row) => n + STATUSES.reduce((m, s) => m + Number(row[s]), 0), 0);
const seeks = time(() => perHour.all(account, webhook));
const sorted = time(() => groupBy.all(account, webhook, start));
console.log(
  `${N} events over ${spanDays} days, ${inWindow} in the window: per-hour seeks ${seeks} ms, GROUP BY ${sorted} ms`,
);
