// `node bench/event-storage-dbstat.mjs [--quota-mib 8]`: what the event storage count says against
// what SQLite's dbstat measures, and how many posts one flooded URL takes to be refused, on the
// migrations of main before issue 34 (up to 0016) and with them all. The Workers runtime's D1 has
// no dbstat (and refuses PRAGMA page_count), so this runs on Node's SQLite (node:sqlite, which
// has it), replaying drizzle/ and inserting events as ingest stores them (the kept body of
// src/webhooks/ingest/stored-body.ts after issue 34, the whole body before). A smaller quota than 256 MiB
// keeps it quick; the posts scale with the quota.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MIB = 1024 * 1024;
const at = process.argv.indexOf('--quota-mib');
const quotaMib = at > 0 ? Number(process.argv[at + 1]) : 8;
if (!Number.isInteger(quotaMib) || quotaMib < 1) {
  console.error('--quota-mib takes a whole number of MiB');
  process.exit(2);
}

/** src/webhooks/ingest/stored-body.ts, bundled to run here. */
async function loadStoredBody() {
  const dir = mkdtempSync(join(tmpdir(), 'crm-stored-body-'));
  const outfile = join(dir, 'stored-body.mjs');
  await build({
    entryPoints: [join(root, 'src/webhooks/ingest/stored-body.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  const module = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return module;
}

/** @type {string[]} */
const tags = JSON.parse(readFileSync(join(root, 'drizzle/meta/_journal.json'), 'utf8')).entries.map(
  (/** @type {{ tag: string }} */ e) => e.tag,
);

/** A database with the migrations up to `last` (a tag), an account and two webhooks. @param {string} last */
function database(last) {
  const db = new DatabaseSync(':memory:');
  for (const tag of tags.slice(0, tags.indexOf(last) + 1)) {
    for (const statement of readFileSync(join(root, `drizzle/${tag}.sql`), 'utf8').split(
      /-->\s*statement-breakpoint/,
    ))
      db.exec(statement);
  }
  db.exec(`INSERT INTO accounts (id, name, created_at) VALUES (1, 'A', 0)`);
  for (const id of [1, 2])
    db.exec(`INSERT INTO inbound_webhooks (id, account_id, name, token, fields, flows, created_at, updated_at)
      VALUES (${id}, 1, 'W${id}', 'tok${id}', '[{"key":"telefone","type":"phone","required":true,"target":"contact.phone"}]', '[]', 0, 0)`);
  return db;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const random = (/** @type {number} */ n) =>
  Array.from(randomBytes(n), (b) => ALPHABET[b % ALPHABET.length]).join('');
/** A flood's post: a valid phone and 250 values of 1,000 random characters (256 KiB). */
const junk = (/** @type {number} */ n) => ({
  telefone: `119${String(50000000 + n)}`,
  ...Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f${i}`, random(1000)])),
});
const WORDS = [
  'Ana',
  'Souza',
  'João',
  'Silva',
  'Maria',
  'Oliveira',
  'Rua',
  'das',
  'Flores',
  'São',
  'Paulo',
  'Campinas',
  'compra',
  'site',
];
/** A lead as a form sends it: a name, an email, a phone, a message of words. */
const lead = (/** @type {number} */ n) => ({
  nome: `${WORDS[n % 5]} ${WORDS[(n * 7) % 14]}`,
  email: `lead${n}@example.com`,
  telefone: `119${String(60000000 + n)}`,
  mensagem: Array.from({ length: 30 }, (_, i) => WORDS[(n + i * 3) % WORDS.length]).join(' '),
});

/** @typedef {(text: string, body: object) => { text: string, warnings: unknown[] }} Kept */

/**
 * Inserts an event of webhook `hook` as ingest stores it; `kept` turns the body into the payload.
 * @param {DatabaseSync} db @param {number} hook @param {object} body @param {Kept} kept
 */
function insert(db, hook, body, kept) {
  const { text, warnings } = kept(JSON.stringify(body), body);
  db.prepare(
    `INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, warnings, received_at, queued_at)
     VALUES (1, ?, 'production', 'pending', ?, '{"content-type":"application/json"}', ?, 0, 0)`,
  ).run(hook, text, JSON.stringify(warnings));
}

/** @param {DatabaseSync} db @param {string} table @param {string} where */
const counted = (db, table, where) =>
  Number(db.prepare(`SELECT coalesce(sum(bytes), 0) AS b FROM ${table} WHERE ${where}`).get()?.b);
/** What dbstat measures of the events: their table, its indexes and the search index's tables. */
/** @param {DatabaseSync} db */
const measured = (db) =>
  Number(
    db
      .prepare(
        `SELECT sum(pgsize) AS b FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'inbound_events' AND type IN ('table', 'index'))
       OR name LIKE 'inbound\\_event\\_text%' ESCAPE '\\'`,
      )
      .get()?.b,
  );

const { storedBody } = await loadStoredBody();
const versions = [
  {
    name: 'before (issue 34: up to 0016)',
    last: '0016_event_search_rowids',
    /** @type {Kept} */
    kept: (text) => ({ text, warnings: [] }),
    share: 1,
  },
  {
    name: 'after (issue 34: every migration)',
    last: tags.at(-1) ?? '',
    /** @type {Kept} */
    kept: (text, body) => storedBody(text, body, ['telefone']),
    share: 0.25,
  },
];
for (const v of versions) {
  // 1. counted against dbstat, for 2,000 leads of words, then 200 events of random text.
  /** @type {[string, (n: number) => object, number][]} */
  const runs = [
    ['2,000 form leads', lead, 2000],
    ['200 random-text events (256 KiB posts)', junk, 200],
  ];
  for (const [label, make, n] of runs) {
    const db = database(v.last);
    const base = measured(db);
    db.exec('BEGIN');
    for (let i = 0; i < n; i++) insert(db, 1, make(i), v.kept);
    db.exec('COMMIT');
    const count = counted(db, 'account_event_storage', 'account_id = 1');
    const real = measured(db) - base;
    console.log(
      `${v.name}: ${label}: counted ${count} bytes, dbstat ${real} bytes: counted/dbstat ${(count / real).toFixed(2)}`,
    );
  }
  // 2. the flood: 256 KiB posts on webhook 1 until the count passes the quota (or the share).
  const db = database(v.last);
  const quota = quotaMib * MIB;
  const limit = quota * v.share;
  const table = v.share < 1 ? 'webhook_event_storage' : 'account_event_storage';
  const where = v.share < 1 ? 'webhook_id = 1' : 'account_id = 1';
  let posts = 0;
  while (counted(db, table, where) < limit) insert(db, 1, junk(posts++), v.kept);
  const account = counted(db, 'account_event_storage', 'account_id = 1');
  const others = account >= quota ? '429 event_storage_full (the account is full)' : '204 (room left)';
  const scaled = Math.round((posts * 256) / quotaMib);
  console.log(
    `${v.name}: flood of 256 KiB posts, ${quotaMib} MiB quota: the URL is refused after ${posts} posts (${scaled} at 256 MiB: ${(scaled / 600).toFixed(1)} min at 600/min); the account's other webhooks answer ${others}; dbstat ${measured(db)} bytes against ${account} counted`,
  );
}
