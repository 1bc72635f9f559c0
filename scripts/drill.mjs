// `npm run drill [-- options]`: the webhook fault drill. A burst of events, with duplicates,
// invalid bodies and injected faults, against the Worker on a fresh local D1, restarted once in
// the middle; then the cron's recovery and a count of what D1 holds. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, createAccount, field } from '../bench/api.mjs';
import { refusals } from '../bench/cli.mjs';
import { audit, auditQueries } from '../bench/drill-audit.mjs';
import { burst } from '../bench/drill-burst.mjs';
import { drillEvents, webhookConfig } from '../bench/drill-events.mjs';
import { drillReport } from '../bench/drill-report.mjs';
import { migrate, query, startWorker } from '../bench/local.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';

const usage = `Usage: npm run drill -- [options]
  --events N           events in the burst (default 5000)
  --connections N      concurrent senders (default 50)
  --duplicates P       % of events that repeat an earlier one's Idempotency-Key and body (default 10)
  --invalid P          % of events with a body or key the ingest must refuse (default 5)
  --consumer-faults P  % of the other events whose first processing attempt throws (default 5)
  --send-faults P      % of the other events whose Queue send is skipped (default 5)
  --orphans P          % of the other events that must fail: no name, unknown phone (default 2)
  --window S           the cron's stranded window (STRANDED_AFTER_MS), also its period (default 15)
  --timeout S          how long to wait for pending events after the burst (default 240)
  --seed N             the events' PRNG seed (default 1)
  --keep               keep the local D1 directory (its path is printed)
  --out FILE           where the JSON goes (default bench/drill.json)`;

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '50' },
    duplicates: { type: 'string', default: '10' },
    invalid: { type: 'string', default: '5' },
    'consumer-faults': { type: 'string', default: '5' },
    'send-faults': { type: 'string', default: '5' },
    orphans: { type: 'string', default: '2' },
    window: { type: 'string', default: '15' },
    timeout: { type: 'string', default: '240' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench/drill.json' },
    help: { type: 'boolean', default: false },
  },
});

const { fail, positive } = refusals(usage);
/** @param {string} name @param {string | undefined} value */
function share(name, value) {
  const n = Number(value);
  if (!(n >= 0 && n <= 100)) fail(`--${name} takes a percentage from 0 to 100, not "${value}".`);
  return n / 100;
}

if (args.help) {
  console.log(usage);
  process.exit(0);
}
const settings = {
  events: positive('events', args.events),
  connections: positive('connections', args.connections),
  shares: {
    duplicates: share('duplicates', args.duplicates),
    invalid: share('invalid', args.invalid),
    consumerFaults: share('consumer-faults', args['consumer-faults']),
    sendFaults: share('send-faults', args['send-faults']),
    orphans: share('orphans', args.orphans),
  },
  window_s: positive('window', args.window),
  timeout_s: positive('timeout', args.timeout),
  seed: positive('seed', args.seed),
};
const { shares } = settings;
if (shares.duplicates + shares.invalid >= 1) fail('--duplicates and --invalid leave no event to store.');
if (shares.consumerFaults + shares.sendFaults + shares.orphans > 1)
  fail('The fault and orphan shares pass 100%.');

/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (/** @type {number} */ since) => (performance.now() - since) / 1000;

const loadAtStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'crm-drill-'));
const log = join(dir, 'wrangler.log');
const adminToken = randomBytes(24).toString('hex');
// Fault injection and the short window exist only as these command-line variables.
const options = {
  persistTo: dir,
  adminToken,
  log,
  vars: { FAULT_INJECTION: 'on', STRANDED_AFTER_MS: String(settings.window_s * 1000) },
};
/** @type {import('../bench/local.mjs').LocalWorker | undefined} */
let worker;
let restarting = false;

async function cleanUp() {
  await worker?.stop();
  if (args.keep) progress(`Kept the local D1 and wrangler.log in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.once('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});

/**
 * The cron, as production's would fire, every window until stopped; skipped while the server is
 * down (a real cron fires on a running Worker).
 */
function cronLoop() {
  const state = { runs: 0, errors: /** @type {string[]} */ ([]) };
  /** @type {(value: false) => void} */
  let stop = () => {};
  /** @type {Promise<false>} */
  const stopped = new Promise((resolve) => {
    stop = resolve;
  });
  const done = (async () => {
    while (await Promise.race([sleep(settings.window_s * 1000).then(() => true), stopped])) {
      if (restarting || !worker) continue;
      try {
        await worker.scheduled();
        state.runs++;
      } catch (err) {
        // Cut off by the restart, as a real cron run would be: the next one re-queues the same.
        if (!restarting) state.errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  })();
  return {
    state,
    stop: async () => {
      stop(false);
      await done;
    },
  };
}

/**
 * @param {string} what @param {import('../bench/api.mjs').Answer} answer
 * @returns {never}
 */
function unexpected(what, answer) {
  throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/**
 * Waits until the webhook has no pending event, or `timeout_s` has passed; returns the seconds
 * waited. @param {import('../bench/api.mjs').Api} api @param {number} hookId
 */
async function drain(api, hookId) {
  const start = performance.now();
  let noted = 0;
  while (seconds(start) < settings.timeout_s) {
    const page = await api('GET', `/v1/inbound-webhooks/${hookId}/events?status=pending&limit=100`);
    const data = field(page.body, 'data');
    if (page.status !== 200 || !Array.isArray(data)) unexpected('GET .../events?status=pending', page);
    if (data.length === 0) break;
    if (seconds(start) - noted >= 10) {
      noted = seconds(start);
      progress(`   ${data.length === 100 ? '100 or more' : data.length} pending after ${noted.toFixed(0)} s`);
    }
    await sleep(2000);
  }
  return seconds(start);
}

let exitCode = 1;
try {
  progress(`== Fault drill: a fresh local D1 in ${dir}`);
  await migrate(dir, log);
  worker = await startWorker(options);
  const origin = worker.origin;
  const port = Number(new URL(origin).port);
  const { accountId, apiKey } = await createAccount(origin, adminToken, 'Fault drill');
  const api = client(origin, apiKey);
  /** @type {number[]} */
  const users = [];
  for (const [name, email] of [
    ['Rita Brandão', 'rita@drill.example'],
    ['Caio Peixoto', 'caio@drill.example'],
    ['Inês Falcão', 'ines@drill.example'],
  ]) {
    const created = await api('POST', '/v1/users', { name, email });
    const id = field(created.body, 'data', 'id');
    if (typeof id !== 'number') unexpected('POST /v1/users', created);
    users.push(id);
  }
  const created = await api('POST', '/v1/inbound-webhooks', webhookConfig(users));
  const hookId = field(created.body, 'data', 'id');
  const url = field(created.body, 'data', 'url');
  if (typeof url !== 'string' || typeof hookId !== 'number') unexpected('POST /v1/inbound-webhooks', created);
  const path = new URL(url).pathname;

  const events = drillEvents({ count: settings.events, shares, seed: settings.seed });
  progress(
    `   account ${accountId}, webhook ${hookId}; sending ${events.length} events over ${settings.connections} connections`,
  );
  const cron = cronLoop();
  const started = performance.now();
  const sent = await burst({
    url: origin + path,
    events,
    connections: settings.connections,
    restartAt: Math.floor(events.length / 2),
    restart: async () => {
      restarting = true;
      await worker?.stop();
      worker = await startWorker({ ...options, port });
      restarting = false;
    },
    progress,
  });
  progress(
    `   burst done in ${sent.seconds.toFixed(1)} s; waiting for pending events (cron every ${settings.window_s} s)`,
  );

  const drain_s = await drain(api, hookId);
  await cron.stop();
  const total_s = seconds(started);
  await worker.stop();

  progress('   reading D1');
  const rows = await query(dir, auditQueries(accountId), log);
  const verdict = audit({ events, burst: sent, rows, users });
  const timing = {
    burst_s: sent.seconds,
    restart: sent.restart,
    drain_s,
    total_s,
    cron_runs: cron.state.runs,
    cron_errors: cron.state.errors,
  };
  const date = new Date().toISOString().slice(0, 10);
  const title = `### ${settings.events} events over ${settings.connections} connections (${date})`;
  console.log(`\n${drillReport({ title, audit: verdict, timing, windowSeconds: settings.window_s })}`);
  const { report, targets } = verdict;
  writeJson(args.out, {
    generated_at: new Date().toISOString(),
    command: ['npm run drill', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(
      ' ',
    ),
    machine: machine(loadAtStart),
    settings,
    timing,
    ...report,
    targets,
  });
  console.log(`\n${machineLine(loadAtStart)} JSON: ${args.out}`);
  const missed = targets.filter((t) => !t.ok);
  if (missed.length) console.error(`\nMissed: ${missed.map((t) => t.name).join('; ')}`);
  exitCode = missed.length ? 1 : 0;
} finally {
  await cleanUp();
}
process.exitCode = exitCode;
