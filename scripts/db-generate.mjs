// `npm run db:generate [-- --name <name>]`: drizzle-kit's migration of src/db/schema.ts (named when
// a name is given: npm passes the arguments here, not to the last command of a chain), then the
// search's migration (scripts/search-migration.mjs), which drizzle-kit knows nothing of.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** @param {string} command @param {string[]} args */
const run = (command, args) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;

const search = fileURLToPath(new URL('./search-migration.mjs', import.meta.url));
process.exit(
  run('npx', ['drizzle-kit', 'generate', ...process.argv.slice(2)]) ||
    run(process.execPath, ['--disable-warning=ExperimentalWarning', search]),
);
