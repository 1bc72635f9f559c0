// The local secrets `wrangler dev` reads (.dev.vars, git-ignored): created on the first
// `npm run dev` with a fresh ADMIN_TOKEN, so a fresh clone needs no copy step before /admin works.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Creates `<dir>/.dev.vars` when it is missing and says so, with the token: the only time it is
 * printed (later runs find the file and print nothing; the README reads the token from the file).
 * @param {string} dir
 */
export function ensureDevVars(dir) {
  const file = join(dir, '.dev.vars');
  if (existsSync(file)) return;
  const token = randomBytes(32).toString('base64url');
  writeFileSync(
    file,
    `# Local secrets for \`npm run dev\` (git-ignored; never commit). Created by scripts/dev-vars.mjs.\n# The /admin API's bearer token; delete this file for a new one.\nADMIN_TOKEN=${token}\n`,
    { flag: 'wx', mode: 0o600 },
  );
  console.log(`Created ${file} with a new ADMIN_TOKEN (the /admin bearer token, shown only now): ${token}`);
}
