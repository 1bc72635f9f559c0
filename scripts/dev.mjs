// `npm run dev [-- wrangler dev args]`: create .dev.vars when missing, migrate the local D1, then
// serve. A script rather than a shell one-liner so it works the same in sh and in Windows cmd.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevVars } from './dev-vars.mjs';
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

const served = await supervise(process.execPath, [wranglerBin, 'dev', ...process.argv.slice(2)], {
  cwd: root,
  env: wranglerEnv,
  stdio: 'inherit',
});
process.exit(served);
