// `npm run bench [-- options]`: the Worker on a fresh local D1, one seeded account, and each
// endpoint under fixed-concurrency load. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, createAccount, field } from '../bench/api.mjs';
import { checkout } from '../bench/checkout.mjs';
import { refusals } from '../bench/cli.mjs';
import { drain } from '../bench/consumer.mjs';
import { endpoints } from '../bench/endpoints.mjs';
import { load, summarize } from '../bench/load.mjs';
import { migrate, startWorker, wrangler } from '../bench/local.mjs';
import {
  against,
  againstTable,
  growth,
  growthTable,
  notes,
  RESULT_ALIGN,
  RESULT_HEADER,
  resultRow,
  table,
  withHealth,
} from '../bench/report.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';
import { seed } from '../bench/seed.mjs';

/** The issue's budget: a list's p50 at the larger size within this factor of the smaller's. */
const BUDGET = 1.3;

/** The D1 round trips each kind of endpoint may take (docs/performance.md): a read 1, a write 2. */
const TRIPS = { floor: 0, list: 1, get: 1, write: 2 };

const usage = `Usage: npm run bench -- [options]
  --rows N | A,B    rows per table (companies, contacts, deals, tasks); two sizes compare (default 1000)
  --compare         the same as --rows 1000,100000
  --check           with two sizes: exit 1 when a list's p50 grows more than ${BUDGET}x
  --duration S      seconds of load per endpoint (default 4)
  --warmup S        seconds of unmeasured load before each (default 1)
  --connections N   concurrent connections (default 10)
  --no-cron         skip running the Worker's cron (PRAGMA optimize) after seeding: the query
                    planner then has no statistics, as on a database the cron has not reached yet
  --only TEXT       only endpoints whose name contains TEXT (/health always runs)
  --writes          only the write endpoints (/health always runs)
  --against REF     this checkout against the build of git REF (e.g. 87f3307^), one size, each
                    on its own Worker and D1 seeded alike, loads alternating A B B A; a table of
                    the ratios (this ÷ REF) after the two runs
  --rounds N        repeat each endpoint's A B B A N times (default 1)
  --pair 'A|B'      two endpoints of one build, by exact name, loaded A B B A (--rounds times);
                    prints B's req/s and p50 over A's (e.g. an MCP tools/call over its /v1 list)
  --events N        webhook events for the Queue consumer's throughput, after the endpoints
                    (a flow of contact + deal + task each; default 1000, 0 skips it)
  --out FILE        where the JSON goes (default bench/results.json)`;

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    rows: { type: 'string' },
    compare: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    cron: { type: 'boolean', default: true },
    only: { type: 'string' },
    writes: { type: 'boolean', default: false },
    against: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    pair: { type: 'string' },
    events: { type: 'string', default: '1000' },
    out: { type: 'string', default: 'bench/results.json' },
    help: { type: 'boolean', default: false },
  },
});

const { fail, positive } = refusals(usage);

if (args.help) {
  console.log(usage);
  process.exit(0);
}
const sizes = (args.rows ?? (args.compare ? '1000,100000' : '1000'))
  .split(',')
  .map((n) => positive('rows', n));
if (sizes.length > 2) fail('--rows takes one size, or two to compare.');
if (args.check && sizes.length !== 2) fail('--check needs two sizes (--compare or --rows A,B).');
if (args.against !== undefined && sizes.length !== 1) fail('--against takes one size (--rows N).');
const pair = args.pair?.split('|');
if (pair && (pair.length !== 2 || sizes.length !== 1 || args.against !== undefined)) {
  fail("--pair takes two names, 'A|B', and one size, without --against.");
}
const settings = {
  connections: positive('connections', args.connections),
  duration_s: positive('duration', args.duration),
  warmup_s: positive('warmup', args.warmup),
  cron: args.cron,
  consumer_events: args.events === '0' ? 0 : positive('events', args.events),
  rounds: positive('rounds', args.rounds),
};
/** @param {string} ref */
function checkoutOrFail(ref) {
  try {
    return checkout(ref);
  } catch (err) {
    const why = err instanceof Error && 'stderr' in err ? String(err.stderr).trim() : String(err);
    return fail(`--against: no build of "${ref}" (${why}).`);
  }
}
// The build measured against: a temporary worktree of the ref, removed by cleanUp.
const base = args.against === undefined ? undefined : checkoutOrFail(args.against);
/** What each run is: its size, or with --against the build. */
const builds = base
  ? [
      { rows: sizes[0] ?? 1000, label: 'this checkout', cwd: undefined },
      { rows: sizes[0] ?? 1000, label: `${args.against} (${base.commit.slice(0, 7)})`, cwd: base.dir },
    ]
  : sizes.map((rows) => ({ rows, label: String(rows), cwd: undefined }));

/**
 * One size, ready to load: its Worker running over its own seeded database.
 * @typedef {object} Target
 * @property {number} rows
 * @property {string} label its size, or with --against its build
 * @property {string | undefined} cwd the checkout it serves (undefined: this one)
 * @property {string} dir its database directory
 * @property {import('../bench/local.mjs').LocalWorker} [worker]
 * @property {string} apiKey
 * @property {import('../bench/endpoints.mjs').Endpoint[]} endpoints
 * @property {{ rows: Record<string, number>, sql_mb: number, generate_s: number, execute_s: number }} seed
 */

// Other work on the machine shows in every figure: the load averages are kept with them.
const loadAtStart = loadavg();

/** @type {Target[]} */
const targets = [];
/** Stops every Worker and removes every database directory: at the end, however the run ends. */
async function cleanUp() {
  for (const target of targets) {
    await target.worker?.stop();
    rmSync(target.dir, { recursive: true, force: true });
  }
  base?.remove();
}
// wrangler dev runs in its own process group, so Ctrl-C reaches only this script: stop it here.
process.once('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});

/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);

/**
 * A fresh D1, an account through the admin API, the bulk seed, and the Worker serving it.
 * @param {{ rows: number, label: string, cwd: string | undefined }} build
 * @returns {Promise<Target>}
 */
async function prepare({ rows, label, cwd }) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-bench-'));
  /** @type {Target} */
  const target = {
    rows,
    label,
    cwd,
    dir,
    apiKey: '',
    endpoints: [],
    seed: { rows: {}, sql_mb: 0, generate_s: 0, execute_s: 0 },
  };
  targets.push(target);
  const log = join(dir, 'wrangler.log');
  const adminToken = randomBytes(24).toString('hex');
  progress(`== ${label}: ${rows} rows, migrating a fresh local D1 in ${dir}`);
  await migrate(dir, log, cwd);

  target.worker = await startWorker({ persistTo: dir, adminToken, log, cwd });
  const { accountId, apiKey } = await createAccount(target.worker.origin, adminToken, `Benchmark ${rows}`);
  target.apiKey = apiKey;
  // The seed writes the database file directly; the dev server must not hold it meanwhile.
  await target.worker.stop();

  let started = performance.now();
  const seeded = seed({ accountId, rows, now: Date.now() });
  const file = join(dir, 'seed.sql');
  writeFileSync(file, seeded.sql);
  const generate_s = (performance.now() - started) / 1000;
  started = performance.now();
  await wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', dir, '--file', file], log, false, cwd);
  const execute_s = (performance.now() - started) / 1000;
  target.seed = { rows: seeded.counts, sql_mb: seeded.sql.length / 1e6, generate_s, execute_s };
  progress(
    `   seeded account ${accountId} (${target.seed.sql_mb.toFixed(1)} MB of SQL): generated in ${generate_s.toFixed(1)} s, executed in ${execute_s.toFixed(1)} s`,
  );

  target.worker = await startWorker({ persistTo: dir, adminToken, log, cwd });
  if (settings.cron) {
    // Production runs it every 15 minutes, so a database that size has planner statistics.
    await target.worker.scheduled();
    progress('   ran the cron (PRAGMA optimize)');
  }
  target.endpoints = endpoints(seeded.probe).filter(
    (e) =>
      e.kind === 'floor' ||
      (pair
        ? pair.includes(e.name)
        : (args.only === undefined || e.name.includes(args.only)) && (!args.writes || e.kind === 'write')),
  );
  return target;
}

/**
 * @typedef {import('../bench/report.mjs').EndpointResult} EndpointResult
 * @typedef {{ result: EndpointResult, run?: Omit<Parameters<typeof load>[0], 'seconds'>, samples: import('../bench/load.mjs').Sample[] }} Slot
 */

/**
 * Readies endpoint `index` of `target`: its setup, then one request alone, which must succeed and
 * whose Server-Timing gives the round trips. No `run` in the slot when it cannot be loaded.
 * @param {Target} target @param {number} index @returns {Promise<Slot>}
 */
async function ready(target, index) {
  const endpoint = target.endpoints[index];
  if (!endpoint || !target.worker) throw new Error(`no endpoint ${index} at ${target.label}`);
  const { name, kind } = endpoint;
  const api = client(target.worker.origin, target.apiKey);
  const skipped = await endpoint.prepare?.(api);
  if (skipped) return { result: { name, kind, skipped }, samples: [] };
  const call = endpoint.next();
  const sample = await api(call.method, call.path, call.body, call.headers);
  if (sample.status < 200 || sample.status > 299) {
    const detail = JSON.stringify(field(sample.body, 'detail') ?? sample.body);
    return {
      result: { name, kind, error: `${call.method} ${call.path} answered ${sample.status}: ${detail}` },
      samples: [],
    };
  }
  const trips = /desc="(\d+) round trips?"/.exec(sample.serverTiming);
  return {
    result: { name, kind, round_trips: trips ? Number(trips[1]) : 0 },
    run: {
      origin: target.worker.origin,
      headers: { Authorization: `Bearer ${target.apiKey}`, 'Content-Type': 'application/json' },
      next: endpoint.next,
      connections: settings.connections,
    },
    samples: [],
  };
}

/**
 * Endpoint `index` at every size, or endpoints `index` and `second` of one build (--pair). Two
 * loads alternate A B B A, each half the duration, so a machine that slows down or speeds up
 * meanwhile (it is shared) weighs on both alike.
 * @param {number} index @param {number} [second] @returns {Promise<EndpointResult[]>} one per slot
 */
async function measure(index, second) {
  /** @type {Slot[]} */
  const slots = [];
  if (second === undefined) for (const target of targets) slots.push(await ready(target, index));
  else for (const k of [index, second]) slots.push(await ready(/** @type {Target} */ (targets[0]), k));
  const live = slots.filter((slot) => slot.run);
  for (const { run } of live) if (run) await load({ ...run, seconds: settings.warmup_s });
  const round = live.length === 2 ? [0, 1, 1, 0] : live.map((_, k) => k);
  const order = Array.from({ length: settings.rounds }, () => round).flat();
  const seconds = settings.duration_s / (live.length === 2 ? 2 : 1);
  for (const k of order) {
    const slot = live[k];
    if (slot?.run) slot.samples.push(await load({ ...slot.run, seconds }));
  }
  return slots.map(({ result, run, samples }) => {
    if (!run) return result;
    const m = summarize(samples);
    return {
      ...result,
      requests: m.requests,
      rps: m.rps,
      p50_ms: m.p50,
      p99_ms: m.p99,
      failures: m.failures,
    };
  });
}

/** @type {{ rows: number, label: string, seed: Target['seed'], endpoints: EndpointResult[], consumer?: import('../bench/consumer.mjs').Drain }[]} */
const runs = [];

/** --pair: the two endpoints' loads alternated in one build, and B over A. @param {string[]} names */
async function measurePair(names) {
  const found = names.map((name) => targets[0]?.endpoints.findIndex((e) => e.name === name) ?? -1);
  const [a, b] = found;
  if (a === undefined || b === undefined || a < 0 || b < 0) {
    throw new Error(`--pair: no endpoint named ${names.filter((_, k) => (found[k] ?? -1) < 0).join(', ')}`);
  }
  const results = await measure(a, b);
  runs[0]?.endpoints.push(...results);
  const [x, y] = results;
  if (x?.rps && y?.rps && x.p50_ms && y.p50_ms) {
    progress(
      `   ${y.name} ÷ ${x.name}: req/s ${(y.rps / x.rps).toFixed(2)}x, p50 ${(y.p50_ms / x.p50_ms).toFixed(2)}x`,
    );
  }
}
try {
  for (const build of builds) {
    const target = await prepare(build);
    runs.push({ rows: build.rows, label: build.label, seed: target.seed, endpoints: [] });
  }
  if (pair) await measurePair(pair);
  for (let index = 0; !pair && index < (targets[0]?.endpoints.length ?? 0); index++) {
    (await measure(index)).forEach((result, k) => {
      const run = runs[k];
      if (!run) return;
      run.endpoints.push(withHealth(result, run.endpoints[0] ?? result));
      const figures = result.skipped
        ? `skipped, ${result.skipped}`
        : (result.error ?? resultRow(result).slice(1, 5).join('  '));
      progress(`   [${run.label}] ${result.name}  ${figures}`);
    });
  }
  if (settings.consumer_events) {
    for (const [k, target] of targets.entries()) {
      const run = runs[k];
      if (!run || !target.worker) continue;
      const { origin } = target.worker;
      run.consumer = await drain(client(origin, target.apiKey), origin, {
        events: settings.consumer_events,
        connections: settings.connections,
      });
      progress(`   [${run.label}] Queue consumer  ${run.consumer.events_per_s.toFixed(1)} events/s`);
    }
  }
} finally {
  await cleanUp();
}

for (const run of runs) {
  const s = run.seed;
  console.log(
    `\n### ${base ? `${run.label}: ` : ''}${run.rows} rows per table (seed: ${s.sql_mb.toFixed(1)} MB of SQL, generated in ${s.generate_s.toFixed(1)} s, executed in ${s.execute_s.toFixed(1)} s)\n`,
  );
  console.log(table(RESULT_HEADER, run.endpoints.map(resultRow), RESULT_ALIGN));
  const why = notes(run.endpoints);
  if (why.length) console.log(`\n${why.join('\n')}`);
  const q = run.consumer;
  if (q) {
    console.log(
      `\nQueue consumer (flow: contact + deal + task): ${q.events} events posted in ${q.post_s.toFixed(1)} s, all processed ${q.drain_s.toFixed(1)} s after the first post: ${q.events_per_s.toFixed(1)} events/s${q.any_failed ? ' (some FAILED)' : ''}`,
    );
  }
}

const [small, large] = runs;
const againstRows = base && small && large ? against(small.endpoints, large.endpoints) : [];
if (base && small && large) {
  console.log(`\n### This checkout ÷ ${large.label} "${base.subject}" (target: req/s ratio ≥ 0.90)\n`);
  console.log(againstTable(againstRows, [small.label, large.label]));
}
const growthRows = !base && small && large ? growth(small.endpoints, large.endpoints, BUDGET) : [];
if (!base && small && large) {
  console.log(
    `\n### Growth from ${small.rows} to ${large.rows} rows (budget: a list's p50 within ${BUDGET}x)\n`,
  );
  console.log(growthTable(growthRows, small.endpoints, large.endpoints, [small.rows, large.rows]));
}

writeJson(args.out, {
  generated_at: new Date().toISOString(),
  machine: machine(loadAtStart, ['autocannon']),
  settings,
  ...(base && {
    against: { ref: args.against, commit: base.commit, subject: base.subject, endpoints: againstRows },
  }),
  runs,
  ...(!base &&
    small &&
    large && { growth: { from: small.rows, to: large.rows, budget: BUDGET, endpoints: growthRows } }),
});
console.log(`\n${machineLine(loadAtStart)} JSON: ${args.out}`);

const broken = runs.flatMap((run) => [
  ...run.endpoints.filter((r) => r.error || r.failures),
  ...(run.consumer?.any_failed ? [{ name: 'Queue consumer' }] : []),
]);
if (broken.length) {
  console.error(
    `\n${broken.length} endpoint(s) failed or answered non-2xx under load: ${broken.map((r) => r.name).join(', ')}`,
  );
}
const over = growthRows.filter((g) => g.over);
if (over.length) console.error(`\nOver the ${BUDGET}x p50 budget: ${over.map((g) => g.name).join(', ')}`);
const extraTrips = runs.flatMap((run) =>
  run.endpoints.filter((r) => r.round_trips !== undefined && r.round_trips > TRIPS[r.kind]),
);
if (extraTrips.length) {
  console.error(
    `\nOver the round-trip budget (a read 1, a write 2): ${extraTrips.map((r) => `${r.name} (${r.round_trips})`).join(', ')}`,
  );
}
process.exitCode = broken.length || extraTrips.length || (args.check && over.length) ? 1 : 0;
