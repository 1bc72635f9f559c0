// `npm run dev [-- wrangler dev args]`: create .dev.vars when missing, migrate the local D1, then
// serve. A script rather than a shell one-liner so it works the same in sh and in Windows cmd.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevVars } from './dev-vars.mjs';
import { quietStart } from './quiet-start.mjs';
import { supervise } from './supervise.mjs';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureDevVars(root);

// wrangler prints the whole migration table again after each migration (hundreds of lines on a
// fresh database): keep its output, and show it only when the apply fails.
let said = '';
// stdin closed: wrangler treats the run as non-interactive and applies without a confirmation prompt.
const applied = await supervise(
  process.execPath,
  [wranglerBin, 'd1', 'migrations', 'apply', 'DB', '--local'],
  { cwd: root, env: wranglerEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  (child) => {
    child.stdout?.on('data', (chunk) => {
      said += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      said += chunk;
    });
  },
);
if (applied !== 0) {
  process.stderr.write(said);
  process.exit(applied);
}
// The names wrangler listed as "to be applied", once each, in its order.
for (const name of new Set(said.match(/\d{4}_[\w-]+\.sql/g) ?? [])) console.log(`Applied migration ${name}`);

// Its output goes through quietStart: the URL right after the migrations, no bindings tables.
// Standard input stays the terminal's, so wrangler's keys (b, d, c, x) still work; colours are
// kept when this script writes to a terminal.
/** @type {{ flush(): void } | undefined} */
let start;
const served = await supervise(
  process.execPath,
  // The API Worker first (it gets the requests), then the docs Worker its DOCS binding reads.
  [wranglerBin, 'dev', '-c', 'wrangler.toml', '-c', 'workers/docs/wrangler.toml', ...process.argv.slice(2)],
  {
    cwd: root,
    env: process.stdout.isTTY ? { ...wranglerEnv, FORCE_COLOR: '1' } : wranglerEnv,
    stdio: ['inherit', 'pipe', 'pipe'],
  },
  (child) => {
    if (child.stdout && child.stderr) {
      start = quietStart({ stdout: child.stdout, stderr: child.stderr }, process);
    }
  },
);
start?.flush();
process.exit(served);
