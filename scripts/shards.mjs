// The shards' migrations for `npm run dev` (SHARDS=n) and scripts/migrate-shards.mjs: wrangler has no
// "apply to every database" command, so each shard's migrations are applied on their own, then its
// id ranges are seated (src/core/id-ranges.ts, docs/scaling.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seatIdRangeSql } from '../src/core/id-ranges.ts';
import { supervise } from './supervise.mjs';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

/** The binding of shard n: `DB` for shard 0, `DB_n` after it. */
export const bindingOf = (/** @type {number} */ n) => (n === 0 ? 'DB' : `DB_${n}`);

/**
 * The D1 bindings a wrangler config declares, in shard order: `DB`, then `DB_1`, `DB_2`, … while
 * they follow one another (as the Worker counts them, src/db/shards.ts).
 * @param {string} config the config file's text
 */
export function shardsOf(config) {
  const bindings = new Set([...config.matchAll(/^\s*binding\s*=\s*"(DB(?:_\d+)?)"/gm)].map((m) => m[1]));
  let count = 0;
  while (bindings.has(bindingOf(count))) count += 1;
  return count;
}

/**
 * Writes `wrangler.shards.toml` beside wrangler.toml (wrangler resolves `main` and the aliases from
 * the config's folder; the file is in .gitignore): wrangler.toml and `shards - 1` more local D1s.
 * `name`: another file (`npm run bench:shards` writes its own, so a `SHARDS=n npm run dev` in the
 * same checkout keeps its config).
 * @param {string} root
 * @param {number} shards
 * @param {string} [name]
 */
export function writeShardsConfig(root, shards, name = 'wrangler.shards.toml') {
  const extra = Array.from({ length: shards - 1 }, (_, i) => {
    const n = i + 1;
    return `
[[d1_databases]]
binding = "${bindingOf(n)}"
database_name = "crm-shard-${n}"
database_id = "local-shard-${n}"
migrations_dir = "drizzle"
`;
  }).join('');
  const path = join(root, name);
  const header =
    '# Written by scripts/shards.mjs for `SHARDS=n npm run dev`: wrangler.toml and more local shards.\n';
  writeFileSync(path, header + readFileSync(join(root, 'wrangler.toml'), 'utf8') + extra);
  return path;
}

/**
 * Runs wrangler quietly, its output kept and shown only when it fails.
 * @param {string} root
 * @param {string[]} args
 */
async function wrangler(root, args) {
  let said = '';
  const status = await supervise(
    process.execPath,
    [wranglerBin, ...args],
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
  if (status !== 0) {
    process.stderr.write(said);
    process.exit(status);
  }
  return said;
}

/**
 * Applies every migration to shard n and seats its id ranges; returns the names of the migrations
 * it applied (wrangler lists them as "to be applied", once each).
 * @param {string} root
 * @param {{ shard: number, config: string, where: '--local' | '--remote' }} target
 */
export async function migrateShard(root, { shard, config, where }) {
  const binding = bindingOf(shard);
  // stdin closed: wrangler treats the run as non-interactive and applies without a prompt.
  const said = await wrangler(root, ['d1', 'migrations', 'apply', binding, where, '-c', config]);
  const applied = [...new Set(said.match(/\d{4}_[\w-]+\.sql/g) ?? [])];
  // Shard 0's ranges start at 0: nothing to seat, so a one-shard project runs exactly as before.
  if (shard > 0) {
    await wrangler(root, [
      'd1',
      'execute',
      binding,
      where,
      '-c',
      config,
      '--command',
      seatIdRangeSql(shard).join('; '),
    ]);
  }
  return applied;
}
