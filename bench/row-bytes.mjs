// `npm run bench:row-bytes [-- --rows 100000 --journal 1000]` (Node 22: node:sqlite): the bytes one row of each table
// takes in a shard, for the capacity model (docs/scaling.md). A fresh local D1 (bench/local.mjs)
// gets one account through `POST /admin/accounts` and `npm run bench`'s seed (bench/seed.mjs:
// `--rows` companies, contacts, deals, tasks and webhook events, with followers and owners), then
// `--journal` contact updates through `POST /v1/contacts/batch` (each writes a journal entry).
// SQLite's dbstat then measures every table, its indexes and its search index's tables (the
// Workers runtime's D1 has no dbstat, so the local database file is opened with node:sqlite, as
// bench/event-storage-dbstat.mjs does), and `GET /admin/shards` gives D1's own size before and after.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { client, createAccount, field } from './api.mjs';
import { refusals } from './cli.mjs';
import { migrate, startWorker, wrangler } from './local.mjs';
import { table } from './report.mjs';
import { seed } from './seed.mjs';

const usage = `npm run bench:row-bytes [-- options]

  --rows N      companies, contacts, deals, tasks and webhook events seeded (default 100000)
  --journal N   contact updates through the batch endpoint, one journal entry each (default 1000)`;
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    journal: { type: 'string', default: '1000' },
    help: { type: 'boolean', default: false },
  },
});
const { fail, positive } = refusals(usage);
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const rows = positive('rows', args.rows);
const journal = positive('journal', args.journal);
if (journal > rows) fail('--journal takes at most --rows: it updates the seeded contacts 1 to N.');

/** The search index of a table, whose shadow tables (`<name>_data`, `_idx`, …) are counted with it. */
const SEARCH = {
  users_search: 'users',
  contacts_search: 'contacts',
  companies_search: 'companies',
  inbound_event_text: 'inbound_events',
};

/** The local D1's SQLite file under `dir` (wrangler's `--persist-to` layout). @param {string} dir */
function sqliteFile(dir) {
  const folder = join(dir, 'v3', 'd1', 'miniflare-D1DatabaseObject');
  const name = readdirSync(folder).find((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  if (!name) throw new Error(`no SQLite file in ${folder}`);
  return join(folder, name);
}

/**
 * Per table: its rows, and the bytes of its own b-tree, of its indexes and of its search index.
 * @param {string} file
 */
function measure(file) {
  const db = new DatabaseSync(file);
  /** @type {Map<string, { rows: number, table: number, indexes: number, search: number }>} */
  const tables = new Map();
  const master = /** @type {{ name: string, tbl_name: string, type: string }[]} */ (
    db.prepare("SELECT name, tbl_name, type FROM sqlite_master WHERE type IN ('table', 'index')").all()
  );
  const owner = new Map(master.map((m) => [m.name, m]));
  const sizes = /** @type {{ name: string, bytes: number }[]} */ (
    db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all()
  );
  for (const { name, bytes } of sizes) {
    const search = Object.entries(SEARCH).find(
      ([prefix]) => name === prefix || name.startsWith(`${prefix}_`),
    );
    const base = search ? search[1] : (owner.get(name)?.tbl_name ?? name);
    const entry = tables.get(base) ?? { rows: 0, table: 0, indexes: 0, search: 0 };
    if (search) entry.search += bytes;
    else if (owner.get(name)?.type === 'index') entry.indexes += bytes;
    else entry.table += bytes;
    tables.set(base, entry);
  }
  for (const [name, entry] of tables) {
    if (!owner.has(name) || name.startsWith('sqlite_')) continue;
    entry.rows = Number(
      /** @type {{ n: number }} */ (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get()).n,
    );
  }
  const total = Number(
    /** @type {{ b: number }} */ (db.prepare('SELECT sum(pgsize) AS b FROM dbstat').get()).b,
  );
  db.close();
  return { tables, total };
}

/** D1's size of shard 0 as `GET /admin/shards` reports it. @param {string} origin @param {string} adminToken */
async function shardBytes(origin, adminToken) {
  const answer = await client(origin, adminToken)('GET', '/admin/shards');
  const shards = field(answer.body, 'data');
  return Number(field(Array.isArray(shards) ? shards[0] : undefined, 'bytes'));
}

const dir = mkdtempSync(join(tmpdir(), 'crm-row-bytes-'));
const log = join(dir, 'wrangler.log');
const adminToken = randomBytes(24).toString('hex');
/** @type {import('./local.mjs').LocalWorker | undefined} */
let worker;
try {
  await migrate(dir, log);
  worker = await startWorker({ persistTo: dir, adminToken, log });
  const { accountId, apiKey } = await createAccount(worker.origin, adminToken, 'Row bytes');
  const before = await shardBytes(worker.origin, adminToken);
  await worker.stop();
  const file = join(dir, 'seed.sql');
  writeFileSync(file, seed({ accountId, rows, now: Date.now() }).sql);
  await wrangler(['d1', 'execute', 'DB', '--local', '--persist-to', dir, '--file', file], log);
  worker = await startWorker({ persistTo: dir, adminToken, log });
  const api = client(worker.origin, apiKey);
  for (let done = 0; done < journal; done += 100) {
    const items = Array.from({ length: Math.min(100, journal - done) }, (_, k) => ({
      op: 'update',
      id: done + k + 1,
      data: { name: `Contato revisado ${done + k + 1}` },
    }));
    const answer = await api('POST', '/v1/contacts/batch', { items });
    if (answer.status !== 200) throw new Error(`POST /v1/contacts/batch answered ${answer.status}`);
  }
  const after = await shardBytes(worker.origin, adminToken);
  await worker.stop();
  const { tables, total } = measure(sqliteFile(dir));
  const lines = [...tables]
    .filter(([, t]) => t.rows > 0)
    .sort((a, b) => b[1].table + b[1].indexes + b[1].search - (a[1].table + a[1].indexes + a[1].search))
    .map(([name, t]) => {
      const all = t.table + t.indexes + t.search;
      return [
        name,
        String(t.rows),
        ...[t.table, t.indexes, t.search].map((b) => (b / 1e6).toFixed(1)),
        (all / 1e6).toFixed(1),
        (all / t.rows).toFixed(0),
      ];
    });
  const header = ['table', 'rows', 'table MB', 'indexes MB', 'search MB', 'all MB', 'bytes/row (all)'];
  console.log(`### Bytes per row: ${rows} rows per table, ${journal} journal entries\n`);
  console.log(table(header, lines, ['l', 'r', 'r', 'r', 'r', 'r', 'r']));
  console.log(
    `\ndbstat: ${(total / 1e6).toFixed(1)} MB in all. GET /admin/shards bytes: ${(before / 1e6).toFixed(2)} MB before the seed, ${(after / 1e6).toFixed(1)} MB after.`,
  );
} finally {
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
}
