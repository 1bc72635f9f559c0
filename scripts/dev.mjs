// `npm run dev [-- wrangler dev args]`: migrate the local D1, then serve. A script rather than
// a shell one-liner so it works the same in sh and in Windows cmd.
import { spawnSync } from 'node:child_process';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

/** @param {string[]} args @param {'ignore' | 'inherit'} stdin */
function run(args, stdin) {
  const { status } = spawnSync(process.execPath, [wranglerBin, ...args], {
    env: wranglerEnv,
    stdio: [stdin, 'inherit', 'inherit'],
  });
  if (status !== 0) process.exit(status ?? 1);
}

// stdin closed: wrangler treats the run as non-interactive and applies without a confirmation prompt.
run(['d1', 'migrations', 'apply', 'DB', '--local'], 'ignore');
run(['dev', ...process.argv.slice(2)], 'inherit');
