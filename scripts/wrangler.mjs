// How every project script runs the project's own wrangler: this node, offline-friendly.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The CLI entry of the wrangler in node_modules, run with `process.execPath`. */
export const wranglerBin = join(
  dirname(createRequire(import.meta.url).resolve('wrangler/package.json')),
  'bin/wrangler.js',
);

/** No Request.cf download, no telemetry prompt. */
export const wranglerEnv = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_SEND_METRICS: 'false',
};
