// Part of `npm test`: the dev loop a newcomer gets from `npm install && npm run dev`, on a fresh copy
// of the project (no .dev.vars, no local D1) in a temporary directory, so the worktree is untouched:
// - the first start creates .dev.vars with a random ADMIN_TOKEN, printed once, and prints one line
//   per migration applied (no migration tables, no bindings table), then the URL;
// - an edit under src/ and one under public/ each reload the server;
// - SIGTERM to npm alone (a process manager, an editor's stop button) ends every process of the
//   group (npm, its shell, the script, wrangler, workerd, esbuild) and frees the port.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevVars } from './dev-vars.mjs';

const READY_TIMEOUT_MS = 90_000;
const RELOAD_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

if (process.platform === 'win32') {
  console.log('check-dev: skipped on Windows (no process groups to check)');
  process.exit(0);
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const copy = mkdtempSync(join(tmpdir(), 'crm-check-dev-'));
for (const entry of ['src', 'public', 'scripts', 'drizzle', 'workers', 'wrangler.toml', 'package.json']) {
  cpSync(join(root, entry), join(copy, entry), { recursive: true });
}
symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');

/** @returns {Promise<number>} */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });

/** @param {number} group */
function alive(group) {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const npm = process.env.npm_execpath;
const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
const dev = spawn(command, [...args, 'run', 'dev', '--', '--port', String(port), '--ip', '127.0.0.1'], {
  cwd: copy,
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
  // npm's own notices (an unknown config, an update) are not the dev server's output.
  env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
});
let output = '';
dev.stdout.on('data', (chunk) => {
  output += chunk;
});
dev.stderr.on('data', (chunk) => {
  output += chunk;
});
const group = dev.pid ?? 0;

/** @param {string} why */
function fail(why) {
  if (alive(group)) process.kill(-group, 'SIGKILL');
  console.error(`check-dev: ${why}\n--- npm run dev said:\n${output}`);
  rmSync(copy, { recursive: true, force: true });
  process.exit(1);
}

/**
 * Polls `path` until `ok(body)`, failing with `what` after `limit` ms.
 * @param {string} path @param {(body: string) => boolean} ok @param {number} limit @param {string} what
 */
async function until(path, ok, limit, what) {
  const since = Date.now();
  for (;;) {
    if (Date.now() - since > limit) fail(`${what} after ${limit / 1000} s`);
    if (dev.exitCode !== null) fail(`exited with ${dev.exitCode}`);
    const res = await fetch(`${base}${path}`).catch(() => undefined);
    if (res?.ok && ok(await res.text())) return;
    await sleep(500);
  }
}

const started = Date.now();
await until('/health', () => true, READY_TIMEOUT_MS, 'not serving');
const ready = Date.now();

// The server can answer before its "Ready on" line has come through npm's pipes.
while (!output.includes(`Ready on ${base}`) && Date.now() - ready < 10_000) await sleep(100);
checkFirstStart();

// A change under src/ (the Worker's code) and one under public/ (a static file) each reload.
const health = join(copy, 'src/http/health.ts');
const code = readFileSync(health, 'utf8');
if (!code.includes("{ status: 'ok' }"))
  fail("src/http/health.ts no longer answers /health with { status: 'ok' }");
writeFileSync(health, code.replace("{ status: 'ok' }", "{ status: 'reloaded' }"));
await until(
  '/health',
  (body) => body.includes('"reloaded"'),
  RELOAD_TIMEOUT_MS,
  'an edit of src/ not served',
);
const nonce = `// check-dev ${Date.now()}`;
writeFileSync(
  join(copy, 'public/docs/init.js'),
  `${readFileSync(join(copy, 'public/docs/init.js'), 'utf8')}${nonce}\n`,
);
await until(
  '/docs/init.js',
  (body) => body.includes(nonce),
  RELOAD_TIMEOUT_MS,
  'an edit of public/ not served',
);
const reloaded = Date.now();

process.kill(group, 'SIGTERM');
while (alive(group)) {
  if (Date.now() - reloaded > STOP_TIMEOUT_MS)
    fail(`processes left ${STOP_TIMEOUT_MS / 1000} s after SIGTERM`);
  await sleep(100);
}
const served = await fetch(`${base}/health`).then(
  () => true,
  () => false,
);
if (served) fail(`port ${port} still answers after every process ended`);
rmSync(copy, { recursive: true, force: true });
console.log(
  `check-dev: npm run dev created .dev.vars, migrated and served after ${((ready - started) / 1000).toFixed(1)} s, reloaded edits of src/ and public/, and left nothing running ${((Date.now() - reloaded) / 1000).toFixed(1)} s after SIGTERM`,
);

/** What a newcomer sees on the first start: short, and the token once. */
function checkFirstStart() {
  const token = /^ADMIN_TOKEN=(\S{32,})$/m.exec(readFileSync(join(copy, '.dev.vars'), 'utf8'))?.[1];
  if (!token) fail('.dev.vars has no ADMIN_TOKEN of 32 characters or more');
  if (output.split(token ?? '').length !== 2) fail('the ADMIN_TOKEN is not printed exactly once');
  const migrations = readdirSync(join(copy, 'drizzle'))
    .filter((name) => name.endsWith('.sql'))
    .sort();
  const applied = [...output.matchAll(/^Applied migration (\S+)$/gm)].map((m) => m[1]);
  if (applied.join() !== migrations.join()) fail(`expected one line per migration: ${migrations.join(', ')}`);
  if (/[│┌└├]/.test(output)) fail('a table of migrations was printed');
  // scripts/quiet-start.mjs holds back wrangler's start (banner, build line, the bindings table it
  // prints twice, the cron notice) and every later bindings table: the migrations, then the URL.
  if (output.includes('Your Worker has access to the following bindings'))
    fail('a bindings table was printed');
  const afterMigrations = output.slice(output.lastIndexOf('Applied migration'));
  const lines = afterMigrations.split('\n').filter((line) => line.trim() !== '');
  if (!/Ready on /.test(lines[1] ?? ''))
    fail(`the URL does not follow the migrations: ${lines.slice(0, 3).join(' | ')}`);
  if (!output.includes(`Ready on ${base}`)) fail(`no "Ready on ${base}"`);
  // Later starts find the file and print nothing of it.
  const log = console.log;
  let again = '';
  console.log = (/** @type {unknown[]} */ ...words) => {
    again += words.join(' ');
  };
  ensureDevVars(copy);
  console.log = log;
  if (again !== '' || !readFileSync(join(copy, '.dev.vars'), 'utf8').includes(token ?? '\0')) {
    fail('a second start replaced .dev.vars or printed it again');
  }
}
