import { env } from 'cloudflare:workers';
import { afterAll, expect } from 'vitest';
import { allShards, seatIdRangeSql, shardOf } from '../src/db/shards';

// One runtime, and so one set of D1 shards, serves every file a vitest worker runs (`isolate:
// false`): the first file migrates each shard and seats its id range (src/db/shards.ts), the next
// ones find them ready. Each test makes its own account, so files share the databases as accounts
// share them in production. Every migration's statements go in one batch, in order, with wrangler's
// record of them (`d1_migrations`, which the Worker reads: src/db/shard-ready.ts): one D1 round trip
// instead of two per migration (applyD1Migrations' way), for any number of them.
//
// The cron's `PRAGMA optimize` (run by some files) leaves planner statistics of tables that were tiny
// then; each file starts without them, so a query plan a test asserts is the schema's, whatever ran
// before it.
// wrangler's table, as `wrangler d1 migrations apply` makes it.
const D1_MIGRATIONS =
  'CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)';
for (const shard of allShards(env)) {
  const d1 = shardOf(env, shard);
  const present = await d1
    .prepare("SELECT name FROM sqlite_master WHERE name IN ('accounts', 'sqlite_stat1')")
    .all<{ name: string }>();
  const names = new Set(present.results.map(({ name }) => name));
  if (!names.has('accounts'))
    await d1.batch([
      ...env.TEST_MIGRATIONS.flatMap(({ queries }) => queries.map((query) => d1.prepare(query))),
      d1.prepare(D1_MIGRATIONS),
      ...env.TEST_MIGRATIONS.map(({ name }) =>
        d1.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(name),
      ),
      ...seatIdRangeSql(shard).map((query) => d1.prepare(query)),
    ]);
  if (names.has('sqlite_stat1'))
    await d1.batch([d1.prepare('DELETE FROM sqlite_stat1'), d1.prepare('ANALYZE sqlite_schema')]);
}

// One isolate serves every account, so a key planted on a shared prototype (`__proto__.x` walked
// onto a plain object) reaches them all. Every test file ends with the prototypes as they began:
// any pollution, by any route or helper, fails the suite.
const shared = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype };
const ownKeys = () =>
  Object.fromEntries(
    Object.entries(shared).map(([name, prototype]) => [name, Reflect.ownKeys(prototype).map(String).sort()]),
  );
const before = ownKeys();

afterAll(() => {
  expect(ownKeys(), 'a shared prototype gained or lost own keys').toEqual(before);
});

// The database outlives the file too: a test that plants a trigger, renames a table or makes a table
// of its own must take it away, or a later file (another's, by chance of order) fails for it.
// Every file ends with the schema it began with, word for word (renaming a table and back rewrites
// its dependents' SQL), so the one that leaves something is the one named.
const schema = async () =>
  (
    await env.DB.prepare(
      "SELECT type || ' ' || name || ': ' || coalesce(sql, '') AS object FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY 1",
    ).all<{ object: string }>()
  ).results.map(({ object }) => object);
const schemaBefore = await schema();

afterAll(async () => {
  expect(await schema(), 'the database schema gained or lost an object').toEqual(schemaBefore);
});
