// `npm run bench:shards`: the same mixed load on 1 and on 4 shards in one run (issue 36). Each
// config is its own `wrangler dev` over fresh local D1s (bench/local.mjs), the same accounts made
// in the same order through `POST /admin/accounts` (the least-filled rule spreads them); their legs
// alternate A B B A so a machine that slows down meanwhile weighs on both. The load and its
// figures: bench/shards.mjs. What it can and cannot show locally: docs/scaling.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { client, field } from '../bench/api.mjs';
import { refusals } from '../bench/cli.mjs';
import { startWorker, wrangler } from '../bench/local.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';
import { alone, drained, eventWaits, leg, makeTenants } from '../bench/shards.mjs';
import { report } from '../bench/shards-report.mjs';
import { seatIdRangeSql } from '../src/core/id-ranges.ts';
import { bindingOf, writeShardsConfig } from './shards.mjs';

const usage = `npm run bench:shards [-- options]

  --seconds N            load per config, in two legs of N/2 (A B B A; default 50)
  --rate N               requests per second of each normal account, e.g. 0.5 (default 0.5)
  --accounts N           accounts, the first of them flooding (default 20)
  --seed N               contacts seeded per account (default 200)
  --flood-connections N  the flooder's parallel senders (default 8)
  --drain N              after each leg, at most N s for the Queue consumer to clear the backlog (default 120)
  --out FILE             where the JSON goes (default bench/shards.json)`;

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '50' },
    rate: { type: 'string', default: '0.5' },
    accounts: { type: 'string', default: '20' },
    seed: { type: 'string', default: '200' },
    'flood-connections': { type: 'string', default: '8' },
    drain: { type: 'string', default: '120' },
    out: { type: 'string', default: 'bench/shards.json' },
    help: { type: 'boolean', default: false },
  },
});
const { fail, positive } = refusals(usage);
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const settings = {
  seconds: positive('seconds', args.seconds),
  rate: Number(args.rate),
  accounts: positive('accounts', args.accounts),
  seed: positive('seed', args.seed),
  flood_connections: positive('flood-connections', args['flood-connections']),
  drain_limit_s: positive('drain', args.drain),
};
if (!(settings.rate > 0 && settings.rate <= 50))
  fail(`--rate takes a number of requests per second from 0 to 50, not "${args.rate}".`);
if (settings.accounts < 2) fail('--accounts takes at least 2: one floods, the others are measured.');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARDS = [1, 4];
/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);

/**
 * @typedef {object} Config
 * @property {number} shards
 * @property {string} dir its local D1s
 * @property {import('../bench/local.mjs').LocalWorker} [worker]
 * @property {string} adminToken
 * @property {import('../bench/shards.mjs').Tenant[]} tenants
 * @property {import('../bench/shards.mjs').TenantSample} [alone] one request at a time, before the load
 * @property {import('../bench/shards.mjs').TenantSample[][]} samples per leg, per account
 * @property {Leg[]} legs
 * @property {{ waits: number[], failed: number }[]} [events] per account, after the legs
 * @property {unknown} [shardList] GET /admin/shards after the legs
 *
 * @typedef {{ shards: number, seconds: number, load_start: number, load_end: number, flood_posts_per_s: number, drain_s: number | null }} Leg
 */
/** @type {Config[]} */
const configs = [];
async function cleanUp() {
  for (const config of configs) {
    await config.worker?.stop();
    rmSync(config.dir, { recursive: true, force: true });
    rmSync(join(root, `wrangler.bench-shards-${config.shards}.toml`), { force: true });
  }
}
process.once('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});

/**
 * Fresh local D1s for `shards` shards, each migrated (and, past shard 0, its id ranges seated, as
 * `SHARDS=n npm run dev` does), the Worker serving them, and the accounts.
 * @param {number} shards @returns {Promise<Config>}
 */
async function prepare(shards) {
  const dir = mkdtempSync(join(tmpdir(), `crm-bench-shards-${shards}-`));
  /** @type {Config} */
  const config = {
    shards,
    dir,
    adminToken: randomBytes(24).toString('hex'),
    tenants: [],
    samples: [],
    legs: [],
  };
  configs.push(config);
  const log = join(dir, 'wrangler.log');
  const file =
    shards === 1
      ? join(root, 'wrangler.toml')
      : writeShardsConfig(root, shards, `wrangler.bench-shards-${shards}.toml`);
  progress(`== ${shards} shard(s): migrating ${shards} fresh local D1(s) in ${dir}`);
  for (let shard = 0; shard < shards; shard++) {
    const where = ['--local', '--persist-to', dir, '-c', file];
    await wrangler(['d1', 'migrations', 'apply', bindingOf(shard), ...where], log);
    if (shard > 0) {
      await wrangler(
        ['d1', 'execute', bindingOf(shard), ...where, '--command', seatIdRangeSql(shard).join('; ')],
        log,
      );
    }
  }
  const { adminToken } = config;
  config.worker = await startWorker({ persistTo: dir, adminToken, log, config: file });
  config.tenants = await makeTenants(config.worker.origin, adminToken, settings.accounts, settings.seed);
  progress(
    `   [${shards} shard(s)] ${settings.accounts} accounts on shards ${config.tenants.map((t) => t.shard).join(' ')}`,
  );
  return config;
}

/** One leg of `config`'s load, then the wait for its Queue consumer to clear the backlog. @param {Config} config */
async function runLeg(config) {
  const origin = /** @type {import('../bench/local.mjs').LocalWorker} */ (config.worker).origin;
  const load_start = loadavg()[0] ?? 0;
  const { samples, seconds } = await leg(origin, config.tenants, {
    seconds: settings.seconds / 2,
    rate: settings.rate,
    floodConnections: settings.flood_connections,
  });
  const load_end = loadavg()[0] ?? 0;
  config.samples.push(samples);
  const flood_posts_per_s = (samples[0]?.hook.latencies.length ?? 0) / seconds;
  progress(
    `   [${config.shards} shard(s)] leg of ${seconds.toFixed(1)} s, load ${load_start.toFixed(1)} → ${load_end.toFixed(1)}, flood ${flood_posts_per_s.toFixed(0)} posts/s; draining…`,
  );
  const drain_s = (await drained(origin, config.tenants, settings.drain_limit_s)) ?? null;
  progress(
    `   drained in ${drain_s === null ? `more than ${settings.drain_limit_s}` : drain_s.toFixed(1)} s`,
  );
  config.legs.push({ shards: config.shards, seconds, load_start, load_end, flood_posts_per_s, drain_s });
}

/** What is read back after the legs: the event log's waits and the shards' counts. @param {Config} config */
async function readBack(config) {
  const origin = /** @type {import('../bench/local.mjs').LocalWorker} */ (config.worker).origin;
  config.events = [];
  // The flooder's log is the long one: its newest 3,000 events are enough for a p99.
  for (const tenant of config.tenants)
    config.events.push(await eventWaits(origin, tenant, tenant.index === 0 ? 30 : 100));
  config.shardList = field((await client(origin, config.adminToken)('GET', '/admin/shards')).body, 'data');
}

const loadAtStart = loadavg();
try {
  // Both configs at once: their migrations are most of the setup's time.
  await Promise.all(SHARDS.map(prepare));
  configs.sort((a, b) => a.shards - b.shards);
  for (const config of configs) {
    const tenant = /** @type {import('../bench/shards.mjs').Tenant} */ (config.tenants[1]);
    config.alone = await alone(
      /** @type {import('../bench/local.mjs').LocalWorker} */ (config.worker).origin,
      tenant,
      20,
    );
  }
  for (const k of [0, 1, 1, 0]) await runLeg(/** @type {Config} */ (configs[k]));
  for (const config of configs) await readBack(config);
} finally {
  await cleanUp();
}

const summary = report(configs, settings);
console.log(summary.markdown);
writeJson(args.out, {
  generated_at: new Date().toISOString(),
  machine: machine(loadAtStart),
  settings,
  ...summary.json,
});
console.log(`\n${machineLine(loadAtStart)} JSON: ${args.out}`);
const failures = summary.failures;
if (failures) console.error(`\n${failures} request(s) failed or answered non-2xx, or events failed.`);
process.exitCode = failures ? 1 : 0;
