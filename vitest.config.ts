import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { buildSync } from 'esbuild';
import { defineConfig } from 'vitest/config';
import { buildAssets } from './scripts/assets.mjs';

// The docs Worker's files (dist/assets) must exist before the runtime starts; the test pool does not
// run wrangler's [build] command.
buildAssets();

// The plugin reads wrangler.toml through wrangler, which says "Using secrets defined in .dev.vars"
// for every test file (npm run dev creates that file); the config below sets every binding a test
// needs, so wrangler's info lines are noise here. Its warnings and errors still print.
process.env.WRANGLER_LOG ??= 'warn';

/**
 * The internet as the Worker's outbound fetch sees it: a Worker of its own (test/internet/worker.ts:
 * an OAuth client's metadata document, the outbound log, and a webhook receiver that verifies with
 * the `standardwebhooks` package), bundled here because an auxiliary Worker is not built by Vite.
 */
const internet = fileURLToPath(new URL('./dist/test-internet.js', import.meta.url));
buildSync({
  entryPoints: [fileURLToPath(new URL('./test/internet/worker.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  outfile: internet,
  logLevel: 'warning',
});

export default defineConfig({
  // The bundle's `zod` (wrangler.toml [alias]): the exact specifier only, so its own `zod/v4` resolves.
  resolve: {
    alias: [
      { find: /^zod$/, replacement: fileURLToPath(new URL('./src/contracts/zod.ts', import.meta.url)) },
    ],
  },
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        outboundService: 'internet',
        // Shards 1 and 2 beside wrangler.toml's DB (shard 0): the suite runs on 3 shards, its accounts
        // spread over them by the least-filled rule (docs/scaling.md). And an empty database on
        // which a test replays the migrations one by one.
        d1Databases: { DB_1: 'shard-1', DB_2: 'shard-2', MIGRATION_DB: 'migration-db' },
        // A queue no consumer reads: the move tests send a move's step messages there and run
        // each step themselves (test/moves/support.ts), so they can look at a move between steps.
        queueProducers: { PARKED_MOVES: { queueName: 'crm-moves-parked' } },
        // The docs Worker the DOCS binding reads (workers/docs/wrangler.toml): its files alone.
        workers: [
          { name: 'internet', modules: true, scriptPath: internet, compatibilityDate: '2026-10-23' },
          {
            name: 'crm-docs',
            modules: true,
            script: 'export default { fetch: (request, env) => env.ASSETS.fetch(request) };',
            compatibilityDate: '2026-10-23',
            assets: {
              directory: fileURLToPath(new URL('./dist/assets', import.meta.url)),
              binding: 'ASSETS',
            },
          },
        ],
        // The suite sends thousands of requests with few keys: its limiters never trip. A test of
        // the 429s swaps in the low ones (same kind of binding, distinct namespaces).
        ratelimits: {
          API_RATE_LIMITER: { namespace_id: '1001', simple: { limit: 1_000_000, period: 60 } },
          HOOK_RATE_LIMITER: { namespace_id: '1002', simple: { limit: 1_000_000, period: 60 } },
          CLIENT_RATE_LIMITER: { namespace_id: '1003', simple: { limit: 1_000_000, period: 60 } },
          SIGN_IN_RATE_LIMITER: { namespace_id: '1004', simple: { limit: 1_000_000, period: 60 } },
          LOW_API_RATE_LIMITER: { namespace_id: '9001', simple: { limit: 3, period: 60 } },
          LOW_HOOK_RATE_LIMITER: { namespace_id: '9002', simple: { limit: 3, period: 60 } },
          LOW_CLIENT_RATE_LIMITER: { namespace_id: '9003', simple: { limit: 3, period: 60 } },
          LOW_SIGN_IN_RATE_LIMITER: { namespace_id: '9004', simple: { limit: 3, period: 60 } },
        },
        bindings: {
          ADMIN_TOKEN: 'test-admin-token',
          FAULT_INJECTION: 'on',
          // Property tests (test/properties): another seed or a multiple of the runs, for a longer hunt.
          PROPERTY_SEED: process.env.PROPERTY_SEED ?? '',
          PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? '',
          TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL('./drizzle', import.meta.url))),
        },
      },
    })),
  ],
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against a hang, not a speed target: some tests send hundreds of requests in turn
    // (every route with every malformed id), which a loaded 2-core machine takes past the 5 s default.
    testTimeout: 30_000,
    setupFiles: ['./test/setup.ts'],
    // One runtime per vitest worker for all the files it runs, not one per file: starting a runtime
    // and fetching and evaluating the app's ~200 modules again was more than half of each file's
    // time (on a quiet 2-core machine the suite went from 557 s to 169 s). What a file may not assume follows
    // (test/setup.ts): an empty database (each test makes its own account; a test that replays the
    // migrations empties MIGRATION_DB first) or fresh module state; a file that breaks something
    // shared (a table renamed, a trigger planted, a limiter's count) puts it back or uses its own.
    isolate: false,
    // Vitest's default is one worker less than the cores: 1 on a 2-core machine, so the files ran in
    // turn while much of each one's time is waiting (the queue's delivery, a retry's delay, D1). Two
    // at a time halve the suite there; each worker has its own runtime and storage, so they cannot
    // meet. Larger machines keep vitest's default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
