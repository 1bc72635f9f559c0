// `npm run dev [-- wrangler dev args]`: create .dev.vars when missing, migrate the local D1, then
// serve. A script rather than a shell one-liner so it works the same in sh and in Windows cmd.
// `SHARDS=3 npm run dev`: 3 local D1s (DB, DB_1, DB_2, through wrangler.shards.toml), each migrated
// and its id ranges seated (scripts/shards.mjs), one line per shard; without SHARDS, one as ever.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevVars } from './dev-vars.mjs';
import { quietStart } from './quiet-start.mjs';
import { bindingOf, migrateShard, writeShardsConfig } from './shards.mjs';
import { supervise } from './supervise.mjs';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureDevVars(root);

const shards = Number(process.env.SHARDS ?? '1');
if (!Number.isInteger(shards) || shards < 1 || shards > 64) {
  console.error(`SHARDS must be a whole number from 1 to 64, not ${process.env.SHARDS}.`);
  process.exit(1);
}

// wrangler prints the whole migration table again after each migration (hundreds of lines on a
// fresh database): scripts/shards.mjs keeps its output and shows it only when the apply fails.
const config = shards === 1 ? 'wrangler.toml' : writeShardsConfig(root, shards);
for (let shard = 0; shard < shards; shard++) {
  const applied = await migrateShard(root, { shard, config, where: '--local' });
  if (shards === 1) for (const name of applied) console.log(`Applied migration ${name}`);
  else {
    const count = `${applied.length} migration${applied.length === 1 ? '' : 's'} applied`;
    console.log(`Shard ${shard} (${bindingOf(shard)}): ${count}${shard > 0 ? ', its id ranges seated' : ''}`);
  }
}

// Its output goes through quietStart: the URL right after the migrations, no bindings tables.
// Standard input stays the terminal's, so wrangler's keys (b, d, c, x) still work; colours are
// kept when this script writes to a terminal.
/** @type {{ flush(): void } | undefined} */
let start;
const served = await supervise(
  process.execPath,
  // The API Worker first (it gets the requests), then the docs Worker its DOCS binding reads.
  [wranglerBin, 'dev', '-c', config, '-c', 'workers/docs/wrangler.toml', ...process.argv.slice(2)],
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
