import { env } from 'cloudflare:workers';

// Storage is isolated per test file; each file starts from the migrated schema. Every migration's
// statements go in one batch, in order: one D1 round trip per file instead of two per migration
// (applyD1Migrations' bookkeeping, which no test of this database reads), for any number of them.
await env.DB.batch(
  env.TEST_MIGRATIONS.flatMap(({ queries }) => queries.map((query) => env.DB.prepare(query))),
);
