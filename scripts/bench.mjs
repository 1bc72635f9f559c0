// `npm run bench [-- options]`: the Worker on a fresh local D1, one seeded account, and each
// endpoint under fixed-concurrency load. See "Benchmarks" in the README.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, release, tmpdir, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, field } from '../bench/api.mjs';
import { endpoints } from '../bench/endpoints.mjs';
import { load } from '../bench/load.mjs';
import { startWorker, wrangler } from '../bench/local.mjs';
import {
  growth,
  growthTable,
  notes,
  RESULT_ALIGN,
  RESULT_HEADER,
  resultRow,
  table,
} from '../bench/report.mjs';
import { seed } from '../bench/seed.mjs';

/** The issue's budget: a list's p50 at the larger size within this factor of the smaller's. */
const BUDGET = 1.3;

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
    out: { type: 'string', default: 'bench/results.json' },
    help: { type: 'boolean', default: false },
  },
});

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

/** @param {string} name @param {string} value */
function positive(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a positive integer, not "${value}".`);
  return n;
}

if (args.help) {
  console.log(usage);
  process.exit(0);
}
const sizes = (args.rows ?? (args.compare ? '1000,100000' : '1000'))
  .split(',')
  .map((n) => positive('rows', n));
if (sizes.length > 2) fail('--rows takes one size, or two to compare.');
if (args.check && sizes.length !== 2) fail('--check needs two sizes (--compare or --rows A,B).');
const settings = {
  connections: positive('connections', args.connections),
  duration_s: positive('duration', args.duration),
  warmup_s: positive('warmup', args.warmup),
  cron: args.cron,
};

const require = createRequire(import.meta.url);
/** @param {string} pkg @returns {string} */
const version = (pkg) => JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;

/** @type {import('../bench/local.mjs').LocalWorker | undefined} */
let worker;
/** The run's database directory, removed at the end however the run ends. */
let scratch = '';
// wrangler dev runs in its own process group, so Ctrl-C reaches only this script: stop it here.
process.once('SIGINT', async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
  process.exit(130);
});

/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);

/**
 * Fresh D1, an account through the admin API, bulk seed, then every endpoint under load.
 * @param {number} rows
 */
async function runSize(rows) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-bench-'));
  scratch = dir;
  const log = join(dir, 'wrangler.log');
  const adminToken = randomBytes(24).toString('hex');
  try {
    progress(`\n== ${rows} rows: migrating a fresh local D1 in ${dir}`);
    await wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', dir], log);

    worker = await startWorker({ persistTo: dir, adminToken, log });
    const admin = client(worker.origin, adminToken);
    const created = await admin('POST', '/admin/accounts', { name: `Benchmark ${rows}` });
    const accountId = Number(field(created.body, 'data', 'account', 'id'));
    const apiKey = String(field(created.body, 'data', 'api_key', 'key'));
    if (created.status !== 201 || !Number.isInteger(accountId)) {
      throw new Error(`POST /admin/accounts answered ${created.status}: ${JSON.stringify(created.body)}`);
    }
    // The seed writes the database file directly; the dev server must not hold it meanwhile.
    await worker.stop();

    let started = performance.now();
    const seeded = seed({ accountId, rows, now: Date.now() });
    const file = join(dir, 'seed.sql');
    writeFileSync(file, seeded.sql);
    const generate_s = (performance.now() - started) / 1000;
    started = performance.now();
    await wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', dir, '--file', file], log);
    const execute_s = (performance.now() - started) / 1000;
    progress(
      `   seeded account ${accountId} (${(seeded.sql.length / 1e6).toFixed(1)} MB of SQL): generated in ${generate_s.toFixed(1)} s, executed in ${execute_s.toFixed(1)} s`,
    );

    worker = await startWorker({ persistTo: dir, adminToken, log });
    if (settings.cron) {
      // Production runs it every 15 minutes, so a database that size has planner statistics.
      await worker.scheduled();
      progress('   ran the cron (PRAGMA optimize)');
    }
    const results = await measureAll(worker.origin, apiKey, seeded.probe);
    return {
      rows,
      seed: { rows: seeded.counts, sql_mb: seeded.sql.length / 1e6, generate_s, execute_s },
      endpoints: results,
    };
  } finally {
    await worker?.stop();
    worker = undefined;
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * @param {string} origin @param {string} apiKey @param {import('../bench/seed.mjs').Probe} probe
 * @returns {Promise<import('../bench/report.mjs').EndpointResult[]>}
 */
async function measureAll(origin, apiKey, probe) {
  const api = client(origin, apiKey);
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const chosen = endpoints(probe).filter(
    (e) => e.kind === 'floor' || args.only === undefined || e.name.includes(args.only),
  );
  /** @type {import('../bench/report.mjs').EndpointResult[]} */
  const results = [];
  /** @type {import('../bench/load.mjs').Measured | undefined} */
  let health;
  for (const endpoint of chosen) {
    const { name, kind } = endpoint;
    const skipped = await endpoint.prepare?.(api);
    if (skipped) {
      progress(`   ${name}: skipped, ${skipped}`);
      results.push({ name, kind, skipped });
      continue;
    }
    // One request alone first: it must succeed, and its Server-Timing gives the round trips.
    const call = endpoint.next();
    const sample = await api(call.method, call.path, call.body);
    if (sample.status < 200 || sample.status > 299) {
      const error = `${call.method} ${call.path} answered ${sample.status}: ${JSON.stringify(field(sample.body, 'detail') ?? sample.body)}`;
      progress(`   ${name}: ${error}`);
      results.push({ name, kind, error });
      continue;
    }
    const trips = /desc="(\d+) round trips?"/.exec(sample.serverTiming);
    const run = { origin, headers, next: endpoint.next, connections: settings.connections };
    await load({ ...run, seconds: settings.warmup_s });
    const m = await load({ ...run, seconds: settings.duration_s });
    if (kind === 'floor') health = m;
    const result = {
      name,
      kind,
      requests: m.requests,
      rps: m.rps,
      p50_ms: m.p50,
      p99_ms: m.p99,
      round_trips: trips ? Number(trips[1]) : 0,
      failures: m.failures,
      ...(health && {
        vs_health: { rps: m.rps / health.rps, p50: m.p50 / health.p50, p99: m.p99 / health.p99 },
      }),
    };
    results.push(result);
    progress(`   ${resultRow(result).join('  ').trimEnd()}`);
  }
  return results;
}

const runs = [];
for (const rows of sizes) runs.push(await runSize(rows));

for (const run of runs) {
  const s = run.seed;
  console.log(
    `\n### ${run.rows} rows per table (seed: ${s.sql_mb.toFixed(1)} MB of SQL, generated in ${s.generate_s.toFixed(1)} s, executed in ${s.execute_s.toFixed(1)} s)\n`,
  );
  console.log(table(RESULT_HEADER, run.endpoints.map(resultRow), RESULT_ALIGN));
  const why = notes(run.endpoints);
  if (why.length) console.log(`\n${why.join('\n')}`);
}

const [small, large] = runs;
const growthRows = small && large ? growth(small.endpoints, large.endpoints, BUDGET) : [];
if (small && large) {
  console.log(
    `\n### Growth from ${small.rows} to ${large.rows} rows (budget: a list's p50 within ${BUDGET}x)\n`,
  );
  console.log(growthTable(growthRows, small.endpoints, large.endpoints, [small.rows, large.rows]));
}

const cpu = cpus();
writeFileSync(
  args.out,
  `${JSON.stringify(
    {
      generated_at: new Date().toISOString(),
      machine: {
        cpus: cpu.length,
        cpu_model: cpu[0]?.model ?? 'unknown',
        memory_gib: Math.round(totalmem() / 2 ** 30),
        os: `${type()} ${release()}`,
        node: process.version,
        wrangler: version('wrangler'),
        workerd: version('workerd'),
        autocannon: version('autocannon'),
      },
      settings,
      runs,
      ...(small &&
        large && { growth: { from: small.rows, to: large.rows, budget: BUDGET, endpoints: growthRows } }),
    },
    null,
    2,
  )}\n`,
);
console.log(`\nJSON: ${args.out}`);

const broken = runs.flatMap((run) => run.endpoints.filter((r) => r.error || r.failures));
if (broken.length) {
  console.error(
    `\n${broken.length} endpoint(s) failed or answered non-2xx under load: ${broken.map((r) => r.name).join(', ')}`,
  );
}
const over = growthRows.filter((g) => g.over);
if (over.length) console.error(`\nOver the ${BUDGET}x p50 budget: ${over.map((g) => g.name).join(', ')}`);
process.exitCode = broken.length || (args.check && over.length) ? 1 : 0;
