// `node scripts/migrate-shards.mjs --remote [-c wrangler.toml]` (or `--local`): applies every
// migration to each shard the config declares (DB, DB_1, DB_2, …) and seats its id ranges, one line
// per shard (docs/deploy.md). wrangler has no "apply to every database" command; this is it.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bindingOf, migrateShard, shardsOf } from './shards.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    remote: { type: 'boolean', default: false },
    local: { type: 'boolean', default: false },
    config: { type: 'string', short: 'c', default: 'wrangler.toml' },
  },
});
if (values.remote === values.local) {
  console.error('Say where: --remote (the deployed databases) or --local (wrangler dev’s).');
  process.exit(1);
}
const config = resolve(root, values.config);
const shards = shardsOf(readFileSync(config, 'utf8'));
if (shards === 0) {
  console.error(`${values.config} declares no D1 binding named DB.`);
  process.exit(1);
}
const where = values.remote ? '--remote' : '--local';
for (let shard = 0; shard < shards; shard++) {
  const applied = await migrateShard(root, { shard, config, where });
  const count = `${applied.length} migration${applied.length === 1 ? '' : 's'} applied`;
  console.log(`Shard ${shard} (${bindingOf(shard)}): ${count}${shard > 0 ? ', its id ranges seated' : ''}`);
}
