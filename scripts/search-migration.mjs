// Part of `npm run db:generate`, after drizzle-kit: the search's views, FTS5 tables and triggers
// are generated from `searchIndexes` (src/db/search-ddl.ts), which drizzle-kit knows nothing of.
// Replays drizzle/ into an in-memory SQLite (node:sqlite), compares what it built with what
// searchIndexes gives, and when they differ writes one custom migration (through drizzle-kit, so
// its journal and snapshot stay whole) that rebuilds what changed and fills the rebuilt indexes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const drizzleDir = join(root, 'drizzle');
const BREAK = '\n--> statement-breakpoint\n';

/** src/db/search-ddl.ts, bundled to run here (the app's modules import nothing from `cloudflare:`). */
async function loadGenerator() {
  const dir = mkdtempSync(join(tmpdir(), 'crm-search-'));
  const outfile = join(dir, 'search-ddl.mjs');
  await build({
    entryPoints: [join(root, 'src/db/search-ddl.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  const generator = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return generator;
}

/** The migrations of the journal, in order. */
const migrations = () =>
  JSON.parse(readFileSync(join(drizzleDir, 'meta/_journal.json'), 'utf8')).entries.map(
    (/** @type {{ tag: string }} */ e) => join(drizzleDir, `${e.tag}.sql`),
  );

/** @param {DatabaseSync} db @param {string} file */
const apply = (db, file) => {
  for (const statement of readFileSync(file, 'utf8').split(/-->\s*statement-breakpoint/)) db.exec(statement);
};

/** The search's objects a database holds, by name. @param {DatabaseSync} db */
function built(db) {
  const rows = db
    .prepare(
      `SELECT type, name, sql FROM sqlite_master
       WHERE (type = 'view' AND name LIKE 'search\\_%' ESCAPE '\\')
          OR (type = 'trigger' AND name LIKE '%\\_search\\_%' ESCAPE '\\')
          OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name <> 'inbound_event_text')`,
    )
    .all();
  return new Map(rows.map((r) => [String(r.name), { type: String(r.type), sql: String(r.sql) }]));
}

/**
 * The statements that turn the `before` objects into the generated ones: the triggers and views
 * go and come back (they name every index), an FTS5 table only when its own SQL changed, and
 * each new or rebuilt table is filled from its base table.
 * @param {Map<string, { type: string, sql: string }>} before
 * @param {any} generator
 */
function rebuild(before, generator) {
  /** @type {{ type: string, name: string, sql: string }[]} */
  const wanted = generator.searchSchema();
  const same = (/** @type {string} */ name, /** @type {string} */ sql) =>
    before.has(name) && generator.sameSql(before.get(name)?.sql) === generator.sameSql(sql);
  const tables = wanted.filter((o) => o.type === 'table');
  const changed = tables.filter((o) => !same(o.name, o.sql));
  const gone = [...before].filter(([name, o]) => o.type === 'table' && !tables.some((t) => t.name === name));
  const drops = [
    ...[...before].filter(([, o]) => o.type === 'trigger').map(([name]) => `DROP TRIGGER \`${name}\`;`),
    ...['search_grams', 'search_text'].filter((v) => before.has(v)).map((v) => `DROP VIEW \`${v}\`;`),
    ...[...changed.filter((o) => before.has(o.name)), ...gone.map(([name]) => ({ name }))].map(
      (o) => `DROP TABLE \`${o.name}\`;`,
    ),
  ];
  const creates = wanted.filter((o) => o.type !== 'table' || changed.includes(o)).map((o) => `${o.sql};`);
  const fills = changed.map((o) => `${generator.searchBackfill(o.name)};`);
  return { statements: [...drops, ...creates, ...fills], rebuilt: changed.map((o) => o.name) };
}

/** A new custom migration from drizzle-kit, filled with `sql`; its path. @param {string} sql */
function writeMigration(sql) {
  const made = spawnSync('npx', ['drizzle-kit', 'generate', '--custom', '--name', 'search'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (made.status !== 0) throw new Error('drizzle-kit generate --custom failed');
  const [file] = migrations().slice(-1);
  writeFileSync(file, sql);
  return file;
}

const generator = await loadGenerator();
const db = new DatabaseSync(':memory:');
for (const file of migrations()) apply(db, file);
/** Whether a database's search objects are the generated ones. @param {DatabaseSync} db */
function agrees(db) {
  const found = built(db);
  /** @type {{ name: string, sql: string }[]} */
  const wanted = generator.searchSchema();
  return (
    found.size === wanted.length &&
    wanted.every((o) => generator.sameSql(found.get(o.name)?.sql ?? '') === generator.sameSql(o.sql))
  );
}

if (agrees(db)) {
  console.log('search: searchIndexes and the migrations agree, no migration to write');
} else {
  const { statements, rebuilt } = rebuild(built(db), generator);
  const header = `-- Generated by scripts/search-migration.mjs from searchIndexes (src/db/search.ts): the search's\n-- triggers and views again, and ${rebuilt.length ? `the FTS5 tables rebuilt and filled: ${rebuilt.join(', ')}` : 'no FTS5 table rebuilt'}.\n-- See drizzle/0003_search.sql for how the search works.\n`;
  const file = writeMigration(header + statements.join(BREAK));
  apply(db, file);
  if (!agrees(db)) throw new Error(`${file} does not build what searchIndexes gives`);
  console.log(`search: wrote ${file}`);
}
