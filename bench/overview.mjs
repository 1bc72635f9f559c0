// `node --experimental-sqlite bench/overview.mjs [days]`: the webhook overview's hourly counts on SQLite (the
// engine under D1) at 100,000 events of one webhook spread over [days] (default 7): the per-hour seeks
// of src/webhooks/event-overview.ts against a GROUP BY of the hour. Figures in docs/panel.md.

import { readdirSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

const N = 100000;
const spanDays = Number(process.argv[2] ?? 7);
const db = new DatabaseSync(':memory:');
for (const f of readdirSync('drizzle')
  .filter((f) => f.endsWith('.sql'))
  .sort())
  for (const stmt of readFileSync(`drizzle/${f}`, 'utf8').split('--> statement-breakpoint'))
    if (stmt.trim()) db.exec(stmt);
db.exec("INSERT INTO accounts (name, created_at) VALUES ('a', 1)");
const acct = db.prepare('SELECT id FROM accounts').get().id;
const w = db
  .prepare(
    "INSERT INTO inbound_webhooks (account_id, name, token, fields, flows, created_at, updated_at) VALUES (?, 'a', 'whk_a', '[]', '[]', 1, 1) RETURNING id",
  )
  .get(acct).id;
const now = Date.now();
const statuses = ['processed', 'processed', 'processed', 'failed', 'test', 'rejected', 'pending'];
const ev = db.prepare(
  "INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at) VALUES (?, ?, 'production', ?, '{}', '{}', ?, ?)",
);
db.exec('BEGIN');
for (let i = 0; i < N; i++) {
  const t = now - Math.floor(Math.random() * spanDays * 86400000);
  ev.run(acct, w, statuses[i % 7], t, t);
}
db.exec('COMMIT');
db.exec('ANALYZE');
const H = 3600000,
  start = (Math.floor(now / H) - 167) * H,
  last = start + 167 * H;
const groupBy = db.prepare(
  `SELECT received_at / 3600000, status, count(*) FROM inbound_events WHERE account_id = ?1 AND webhook_id = ?2 AND status IN ('pending','processed','failed','test','rejected') AND received_at >= ?3 GROUP BY 1, status`,
);
const cnt = (s) =>
  `(select count(*) from inbound_events where account_id = ?1 and webhook_id = ?2 and status = '${s}' and received_at >= h.t and received_at < h.t + ${H}) as ${s}`;
const perHour = db.prepare(
  `select h.t, ${['pending', 'processed', 'failed', 'test', 'rejected'].map(cnt).join(', ')} from (with recursive h(t) as (select ${start} union all select t + ${H} from h where t < ${last}) select t from h) as h`,
);
const time = (q, ...a) => {
  for (let i = 0; i < 5; i++) q.all(...a);
  const t0 = performance.now();
  for (let i = 0; i < 50; i++) q.all(...a);
  return ((performance.now() - t0) / 50).toFixed(2);
};
const inWin = perHour
  .all(acct, w)
  .reduce((n, x) => n + x.pending + x.processed + x.failed + x.test + x.rejected, 0);
console.log(
  `${N} events over ${spanDays} days, ${inWin} in the window: per-hour seeks ${time(perHour, acct, w)} ms, GROUP BY ${time(groupBy, acct, w, start)} ms`,
);
