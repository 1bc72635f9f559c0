import { env } from 'cloudflare:workers';
import { afterAll, expect } from 'vitest';

// Storage is isolated per test file; each file starts from the migrated schema. Every migration's
// statements go in one batch, in order: one D1 round trip per file instead of two per migration
// (applyD1Migrations' bookkeeping, which no test of this database reads), for any number of them.
await env.DB.batch(
  env.TEST_MIGRATIONS.flatMap(({ queries }) => queries.map((query) => env.DB.prepare(query))),
);

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
