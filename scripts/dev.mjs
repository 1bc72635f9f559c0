// `npm run dev [-- wrangler dev args]`: migrate the local D1, then serve. A script rather than
// a shell one-liner so it works the same in sh and in Windows cmd.
import { supervise } from './supervise.mjs';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

/** @param {string[]} args @param {'ignore' | 'inherit'} stdin */
async function run(args, stdin) {
  const status = await supervise(process.execPath, [wranglerBin, ...args], {
    env: wranglerEnv,
    stdio: [stdin, 'inherit', 'inherit'],
  });
  if (status !== 0) process.exit(status);
}

// stdin closed: wrangler treats the run as non-interactive and applies without a confirmation prompt.
await run(['d1', 'migrations', 'apply', 'DB', '--local'], 'ignore');
await run(['dev', ...process.argv.slice(2)], 'inherit');
