// `npm run dev [-- wrangler dev args]`: migrate the local D1, then serve. A script rather than
// a shell one-liner so it works the same in sh and in Windows cmd.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const wrangler = join(
  dirname(createRequire(import.meta.url).resolve('wrangler/package.json')),
  'bin/wrangler.js',
);
// Offline-friendly: no Request.cf download, no telemetry prompt.
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' };

/** @param {string[]} args @param {'ignore' | 'inherit'} stdin */
function run(args, stdin) {
  const { status } = spawnSync(process.execPath, [wrangler, ...args], {
    env,
    stdio: [stdin, 'inherit', 'inherit'],
  });
  if (status !== 0) process.exit(status ?? 1);
}

// stdin closed: wrangler treats the run as non-interactive and applies without a confirmation prompt.
run(['d1', 'migrations', 'apply', 'DB', '--local'], 'ignore');
run(['dev', ...process.argv.slice(2)], 'inherit');
