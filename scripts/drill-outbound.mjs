// `npm run drill:outbound [-- options]`: the outbound webhook drill (issue 39). A local receiver
// verifies every delivery with the `standardwebhooks` package and fails (500), throttles (429 with
// Retry-After), goes down (connection refused) and comes back, while about 1,000 changes are made
// through /v1 single writes, inbound webhook flows and batch writes; then every journal entry must
// have reached it, once after dedupe, no record's version going back. Then the deliveries per
// second of one endpoint answering at once. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, createAccount, field } from '../bench/api.mjs';
import { refusals } from '../bench/cli.mjs';
import { migrate, query, startWorker } from '../bench/local.mjs';
import { accepted, audit, journal } from '../bench/outbound-audit.mjs';
import { makeChanges } from '../bench/outbound-changes.mjs';
import { startReceiver } from '../bench/outbound-receiver.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';

const usage = `Usage: npm run drill:outbound -- [options]
  --changes N       journal entries to make, about (default 1000)
  --lanes N         concurrent requests per write path (default 4)
  --scale X         OUTBOUND_RETRY_SCALE: the retry schedule times X (default 0.002: 8 tries in ~3.5 min)
  --fail S          seconds the receiver answers 500 (default 20)
  --throttle S      then seconds it answers 429 (default 20)
  --retry-after S   the 429's Retry-After (default 3)
  --down S          then seconds it is down (default 20)
  --cron S          the Worker's cron every S seconds, as production's every 5 min (default 60)
  --timeout S       how long to wait for every entry to arrive (default 600)
  --throughput N    then N changes (batch creates) to an endpoint answering at once: deliveries/s (default 500, 0 skips)
  --keep            keep the local D1 directory
  --out FILE        where the JSON goes (default bench/drill-outbound.json)`;

const { values: args } = parseArgs({
  options: {
    changes: { type: 'string', default: '1000' },
    lanes: { type: 'string', default: '4' },
    scale: { type: 'string', default: '0.002' },
    fail: { type: 'string', default: '20' },
    throttle: { type: 'string', default: '20' },
    'retry-after': { type: 'string', default: '3' },
    down: { type: 'string', default: '20' },
    cron: { type: 'string', default: '60' },
    timeout: { type: 'string', default: '600' },
    throughput: { type: 'string', default: '500' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/drill-outbound.json' },
    help: { type: 'boolean', default: false },
  },
});
const { fail, positive } = refusals(usage);
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const scale = Number(args.scale);
if (!(scale > 0 && scale <= 1)) fail(`--scale takes a number above 0 and at most 1, not "${args.scale}".`);
const settings = {
  changes: positive('changes', args.changes),
  lanes: positive('lanes', args.lanes),
  retry_scale: scale,
  fail_s: positive('fail', args.fail),
  throttle_s: positive('throttle', args.throttle),
  retry_after_s: positive('retry-after', args['retry-after']),
  down_s: positive('down', args.down),
  cron_s: positive('cron', args.cron),
  timeout_s: positive('timeout', args.timeout),
  throughput: args.throughput === '0' ? 0 : positive('throughput', args.throughput),
};

/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const since = (/** @type {number} */ t) => (performance.now() - t) / 1000;
const load1 = () => Number((loadavg()[0] ?? 0).toFixed(2));

const loadAtStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'crm-drill-outbound-'));
const log = join(dir, 'wrangler.log');
const adminToken = randomBytes(24).toString('hex');
/** @type {import('../bench/local.mjs').LocalWorker | undefined} */
let worker;
const receiver = await startReceiver({ retryAfterS: settings.retry_after_s });
let cronTimer = /** @type {NodeJS.Timeout | undefined} */ (undefined);

async function cleanUp() {
  clearInterval(cronTimer);
  await worker?.stop();
  await receiver.stop();
  if (args.keep) progress(`Kept the local D1 and wrangler.log in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.once('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});

/** The receiver's phases, one after the other, each mode's start noted (s from `t0`). @param {number} t0 */
async function phases(t0) {
  /** @type {{ mode: string, at_s: number, load1: number }[]} */
  const timeline = [];
  for (const [mode, seconds] of /** @type {const} */ ([
    ['fail', settings.fail_s],
    ['throttle', settings.throttle_s],
    ['down', settings.down_s],
    ['ok', 0],
  ])) {
    await receiver.setMode(mode);
    timeline.push({ mode, at_s: since(t0), load1: load1() });
    progress(`   receiver: ${mode} at ${since(t0).toFixed(0)} s (load ${load1()})`);
    await sleep(seconds * 1000);
  }
  return timeline;
}

/** Resolves once the receiver has accepted every id of `ids`, or `timeout_s` passed; the seconds waited. @param {Set<string>} ids */
async function arrivalOf(ids) {
  const t = performance.now();
  let noted = 0;
  for (;;) {
    const got = accepted(receiver.arrivals);
    const missing = [...ids].filter((id) => !got.has(id)).length;
    if (missing === 0 || since(t) > settings.timeout_s) return since(t);
    if (since(t) - noted >= 15) {
      noted = since(t);
      progress(`   ${missing} of ${ids.size} not yet delivered after ${noted.toFixed(0)} s`);
    }
    await sleep(500);
  }
}

/** Waits until the account's inbound webhooks have nothing pending (their flows' entries all written). @param {import('../bench/api.mjs').Api} api */
async function flowsDone(api) {
  const hooks = field((await api('GET', '/v1/inbound-webhooks?limit=100')).body, 'data');
  for (const hook of Array.isArray(hooks) ? hooks : []) {
    const path = `/v1/inbound-webhooks/${field(hook, 'id')}/events?status=pending&limit=1`;
    for (let t = performance.now(); since(t) < settings.timeout_s; await sleep(1000)) {
      const rows = field((await api('GET', path)).body, 'data');
      if (Array.isArray(rows) && rows.length === 0) break;
    }
  }
}

/**
 * Deliveries per second of one endpoint whose receiver answers at once: `n` contacts created in
 * batches of 100 back to back, timed from the first batch's send to the last delivery's arrival.
 * @param {import('../bench/api.mjs').Api} api @param {string | undefined} cursor @param {number} n
 */
async function throughput(api, cursor, n) {
  const before = receiver.arrivals.length;
  const t0 = Date.now();
  for (let done = 0; done < n; done += 100) {
    const items = Array.from({ length: Math.min(100, n - done) }, (_, k) => ({
      op: 'create',
      data: { name: `Vazão ${done + k}` },
    }));
    const answer = await api('POST', '/v1/contacts/batch', { items });
    if (answer.status !== 200) throw new Error(`POST /v1/contacts/batch answered ${answer.status}`);
  }
  const written_s = (Date.now() - t0) / 1000;
  const { entries } = await journal(api, cursor);
  const wait_s = await arrivalOf(new Set(entries.map((e) => e.id)));
  const mine = receiver.arrivals.slice(before).filter((a) => a.status < 300);
  const last = Math.max(...mine.map((a) => a.at));
  const first = Math.min(...mine.map((a) => a.at));
  return {
    entries: entries.length,
    delivered: mine.length,
    written_s,
    waited_s: wait_s,
    first_to_last_s: (last - first) / 1000,
    total_s: (last - t0) / 1000,
    deliveries_per_s: entries.length / ((last - t0) / 1000),
    load1: load1(),
  };
}

const D1_SUMMARY = [
  'select status, count(*) as deliveries, sum(attempts) as attempts, max(attempts) as most_attempts from webhook_deliveries group by status',
  "select coalesce(cast(status as text), 'no answer') as answer, count(*) as attempts from webhook_attempts group by 1 order by 1",
];

let exitCode = 1;
try {
  progress(`== Outbound drill: a fresh local D1 in ${dir}; receiver ${receiver.url}`);
  await migrate(dir, log);
  worker = await startWorker({
    persistTo: dir,
    adminToken,
    log,
    // The local-only variables a .dev.vars would hold: http://127.0.0.1 receivers, a short schedule.
    vars: { OUTBOUND_ALLOW_HTTP_LOCALHOST: 'true', OUTBOUND_RETRY_SCALE: String(settings.retry_scale) },
  });
  const { origin } = worker;
  const { accountId, apiKey } = await createAccount(origin, adminToken, 'Outbound drill');
  const api = client(origin, apiKey);
  const endpoint = await api('POST', '/v1/webhook-endpoints', { url: receiver.url, event_types: ['*'] });
  const secret = field(endpoint.body, 'data', 'secret');
  if (endpoint.status !== 201 || typeof secret !== 'string')
    throw new Error(
      `POST /v1/webhook-endpoints answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`,
    );
  receiver.setSecret(secret);
  const running = worker;
  cronTimer = setInterval(() => running.scheduled().catch(() => undefined), settings.cron_s * 1000);

  progress(`   account ${accountId}; ~${settings.changes} changes over 3 paths × ${settings.lanes} lanes`);
  const t0 = performance.now();
  const [timeline, writes] = await Promise.all([
    phases(t0),
    makeChanges({ api, origin, changes: settings.changes, lanes: settings.lanes }).then((w) => {
      progress(
        `   writes done in ${w.seconds.toFixed(1)} s (${w.requests} requests, ${w.failed.length} refused)`,
      );
      return w;
    }),
  ]);
  await flowsDone(api);
  const { entries, cursor } = await journal(api);
  progress(`   ${entries.length} journal entries; waiting for the receiver to have them all`);
  const wait_s = await arrivalOf(new Set(entries.map((e) => e.id)));
  const total_s = since(t0);
  const verdict = audit(entries, receiver.arrivals);
  const rate = settings.throughput ? await throughput(api, cursor, settings.throughput) : undefined;
  clearInterval(cronTimer);
  // The last attempts' outcomes are written just after the receiver answered them.
  await sleep(5000);
  await worker.stop();
  const [byStatus, byAnswer] = await query(dir, D1_SUMMARY, log);

  const report = {
    generated_at: new Date().toISOString(),
    command: [
      'npm run drill:outbound',
      ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : []),
    ].join(' '),
    machine: machine(loadAtStart),
    settings,
    timeline,
    writes: { ...writes, failed: writes.failed.slice(0, 20), refused: writes.failed.length },
    waited_after_writes_s: wait_s,
    total_s,
    verdict,
    deliveries: byStatus,
    attempts: byAnswer,
    throughput: rate,
  };
  console.log(
    JSON.stringify({ verdict, deliveries: byStatus, attempts: byAnswer, throughput: rate }, null, 2),
  );
  writeJson(args.out, report);
  console.log(`\n${machineLine(loadAtStart)} JSON: ${args.out}`);
  exitCode = verdict.ok && writes.failed.length === 0 ? 0 : 1;
  if (!verdict.ok) console.error('\nMissed: see verdict');
} finally {
  await cleanUp();
}
process.exitCode = exitCode;
