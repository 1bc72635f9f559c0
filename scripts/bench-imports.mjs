// `npm run bench:imports [-- options]`: the CSV import's figures (issue 40) through the real path,
// POST /v1/imports -> R2 -> the crm-imports Queue's consumer -> D1, on `wrangler dev` over a fresh
// local D1; the Worker's memory at two sizes; the batch endpoint against single calls. See
// bench/README.md ("CSV import").
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, createAccount } from '../bench/api.mjs';
import { refusals } from '../bench/cli.mjs';
import {
  batchAgainstSingles,
  companiesCsv,
  contactsCsv,
  inspector,
  timedImport,
  workerProcess,
} from '../bench/imports.mjs';
import { migrate, startWorker } from '../bench/local.mjs';
import { table } from '../bench/report.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';

const usage = `Usage: npm run bench:imports -- [options]
  --rows N      rows of the large companies and contacts files (default 100000)
  --small N     rows of the small ones, the memory's baseline (default 10000); the small contacts
                file holds one bad row, which must fail alone
  --rounds N    rounds of 100 single POSTs against batches (default 2)
  --batches N   batches of 100 items per round (default 10)
  --out FILE    where the JSON goes (default bench/imports.json)`;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    small: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '2' },
    batches: { type: 'string', default: '10' },
    out: { type: 'string', default: 'bench/imports.json' },
    help: { type: 'boolean', default: false },
  },
});
const { fail, positive } = refusals(usage);
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const large = positive('rows', args.rows);
const small = positive('small', args.small);
if (small >= large) fail('--small must be under --rows.');
const rounds = positive('rounds', args.rounds);
const batches = positive('batches', args.batches);

const loadAtStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'crm-bench-imports-'));
const log = join(dir, 'wrangler.log');
/** @type {import('../bench/local.mjs').LocalWorker | undefined} */
let worker;
const cleanUp = async () => {
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
};
process.once('SIGINT', async () => {
  await cleanUp();
  process.exit(130);
});
/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);

try {
  const adminToken = randomBytes(24).toString('hex');
  progress(`migrating a fresh local D1 in ${dir}`);
  await migrate(dir, log);
  worker = await startWorker({ persistTo: dir, adminToken, log });
  const { apiKey } = await createAccount(worker.origin, adminToken, 'Import benchmark');
  const api = client(worker.origin, apiKey);
  const { pid, inspectorPort } = workerProcess(Number(new URL(worker.origin).port));
  const heap = await inspector(inspectorPort);
  const target = { origin: worker.origin, apiKey, api, pid, heap };

  /** @type {import('../bench/imports.mjs').ImportRun[]} */
  const imports = [];
  /** @param {string} name @param {string} query @param {() => string} csv */
  const run = async (name, query, csv) => {
    progress(`importing ${name}`);
    const result = await timedImport(target, name, query, csv());
    const { peak_hwm_mb, heap_peak_mb } = result.memory;
    progress(
      `   ${result.rows_per_s.toFixed(0)} rows/s, peak RSS ${peak_hwm_mb.toFixed(0)} MB, peak heap ${heap_peak_mb.toFixed(0)} MB`,
    );
    imports.push(result);
    return result;
  };
  // Companies small then large (distinct CNPJs); contacts linked to the large file's companies.
  await run(`${small} companies`, 'resource=companies', () => companiesCsv(0, small));
  await run(`${large} companies`, 'resource=companies', () => companiesCsv(small, large));
  const link = { companyFrom: small, companies: large };
  const bad = Math.floor(small / 3);
  const withBad = await run(`${small} contacts with company by CNPJ, 1 bad row`, 'resource=contacts', () =>
    contactsCsv({ tag: 1, rows: small, ...link, bad }),
  );
  await run(`${large} contacts with company by CNPJ`, 'resource=contacts', () =>
    contactsCsv({ tag: 2, rows: large, ...link }),
  );
  const linked = await api('GET', '/v1/contacts?limit=100');
  const rows = /** @type {{ company_id: number | null }[]} */ (
    /** @type {{ data: unknown }} */ (linked.body).data
  );
  const unlinked = rows.filter((r) => r.company_id === null).length;

  heap.close();
  progress('batch against single calls');
  const batch = await batchAgainstSingles(api, { rounds, batches });

  const ok =
    withBad.counts.failed === 1 &&
    withBad.counts.created === small - 1 &&
    imports.every((i) => i === withBad || i.counts.failed === 0) &&
    unlinked === 0;
  const results = {
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    settings: { large, small, rounds, batches },
    imports,
    newest_contacts_without_company: unlinked,
    batch,
    ok,
  };
  writeJson(args.out, results);
  const mb = (/** @type {number} */ n) => n.toFixed(0);
  const load = (/** @type {{ start: number[], end: number[] }} */ l) =>
    `${(l.start[0] ?? 0).toFixed(1)} → ${(l.end[0] ?? 0).toFixed(1)}`;
  console.log(
    table(
      [
        'import',
        'rows',
        'MB',
        'upload s',
        'total s',
        'rows/s',
        'created',
        'updated',
        'failed',
        'RSS before MB',
        'peak RSS MB',
        'heap before MB',
        'peak heap MB',
        'heap at end MB',
        'load 1 min',
      ],
      imports.map((i) => [
        i.name,
        String(i.rows),
        i.file_mb.toFixed(1),
        i.upload_s.toFixed(1),
        i.total_s.toFixed(1),
        i.rows_per_s.toFixed(0),
        String(i.counts.created),
        String(i.counts.updated),
        String(i.counts.failed),
        mb(i.memory.before_mb),
        mb(Math.max(i.memory.peak_hwm_mb, i.memory.peak_sampled_mb)),
        i.memory.heap_before_mb.toFixed(1),
        i.memory.heap_peak_mb.toFixed(1),
        i.memory.heap_end_mb.toFixed(1),
        load(i.load_average),
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  const memoryOf = (/** @type {number} */ n) =>
    /** @type {import('../bench/imports.mjs').ImportRun} */ (imports[n]).memory;
  const rss = (/** @type {number} */ n) => Math.max(memoryOf(n).peak_hwm_mb, memoryOf(n).peak_sampled_mb);
  const heapPeak = (/** @type {number} */ n) => memoryOf(n).heap_peak_mb;
  const ratio = (/** @type {(n: number) => number} */ f) =>
    `companies ${(f(1) / f(0)).toFixed(2)}x, contacts ${(f(3) / f(2)).toFixed(2)}x`;
  console.log(
    `\n${large} ÷ ${small} rows: the Worker's peak heap ${ratio(heapPeak)}; the workerd's peak RSS ${ratio(rss)}.`,
  );
  console.log(`Newest 100 contacts without their company: ${unlinked}.\n`);
  console.log(
    table(
      ['round', 'single calls items/s', 'batch items/s', 'batch ÷ single', 'load 1 min'],
      batch.map((b) => [
        String(b.round + 1),
        b.single_items_per_s.toFixed(1),
        b.batch_items_per_s.toFixed(1),
        `${b.ratio.toFixed(1)}x`,
        load(b.load_average),
      ]),
      ['r', 'r', 'r', 'r', 'l'],
    ),
  );
  console.log(`\n${machineLine(loadAtStart)} ${ok ? 'Every check met.' : 'A CHECK FAILED (see the JSON).'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await cleanUp();
}
