// The Worker and its D1 on this machine, through the project's wrangler, in a directory of their
// own (`--persist-to`) so every run starts from an empty database and leaves `.wrangler/` alone.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { wranglerBin, wranglerEnv } from '../scripts/wrangler.mjs';

/**
 * Runs wrangler to completion, its output appended to `log`, or with `capture` its standard output
 * returned instead. stdin is closed: wrangler then runs non-interactively (no confirmation prompt
 * before applying migrations). `cwd`: the checkout whose wrangler.toml and migrations it uses
 * (this one by default; `npm run bench -- --against` passes another build's).
 * @param {string[]} args @param {string} log @param {boolean} [capture] @param {string} [cwd]
 * @returns {Promise<string>}
 */
export function wrangler(args, log, capture = false, cwd = undefined) {
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [wranglerBin, ...args], {
    cwd,
    env: wranglerEnv,
    stdio: ['ignore', capture ? 'pipe' : out, out],
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`wrangler ${args[0]} ${args[1]} failed:\n${tail(log)}`)),
    );
  });
}

/** Applies the migrations to a fresh local D1 in `dir`. @param {string} dir @param {string} log @param {string} [cwd] */
export const migrate = (dir, log, cwd = undefined) =>
  wrangler(['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', dir], log, false, cwd);

/**
 * The rows of each SQL statement, run on the local D1 in `dir` by `wrangler d1 execute`.
 * @param {string} dir @param {string[]} statements @param {string} log
 * @returns {Promise<Record<string, unknown>[][]>}
 */
export async function query(dir, statements, log) {
  const file = join(dir, 'query.sql');
  writeFileSync(file, `${statements.join(';\n')};\n`);
  const out = await wrangler(
    ['d1', 'execute', 'DB', '--local', '--persist-to', dir, '--json', '--file', file],
    log,
    true,
  );
  /** @type {{ results: Record<string, unknown>[] }[]} */
  const parsed = JSON.parse(out);
  return parsed.map((statement) => statement.results);
}

/** The last lines of a log, for an error message. @param {string} log */
function tail(log) {
  return readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
}

/** A TCP port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @typedef {object} LocalWorker
 * @property {string} origin e.g. `http://127.0.0.1:40123`
 * @property {() => Promise<void>} scheduled runs the Worker's scheduled handler, as its cron would
 * @property {() => Promise<void>} stop
 */

/**
 * `wrangler dev` over the D1 in `persistTo`, with `adminToken` as the ADMIN_TOKEN secret, the rate
 * limiters off, and `vars` as further variables, on `port` (a restart keeps its URL) or a free one;
 * resolves once `/health` answers. `cwd`: the checkout it serves (this one by default); `config`:
 * another wrangler config than wrangler.toml (more shards: scripts/shards.mjs).
 * @param {{ persistTo: string, adminToken: string, log: string, vars?: Record<string, string>, port?: number, cwd?: string, config?: string }} options
 * @returns {Promise<LocalWorker>}
 */
export async function startWorker({ persistTo, adminToken, log, vars = {}, port: fixed, cwd, config }) {
  const port = fixed ?? (await freePort());
  const inspectorPort = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const out = openSync(log, 'a');
  const child = spawn(
    process.execPath,
    [
      wranglerBin,
      'dev',
      ...(config ? ['-c', config] : []),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      persistTo,
      // A load run sends thousands of requests a minute with one API key or webhook: the rate
      // limiters (per key and minute, wrangler.toml) would answer most of them 429.
      ...Object.entries({ RATE_LIMITS: 'off', ...vars, ADMIN_TOKEN: adminToken }).flatMap(([name, value]) => [
        '--var',
        `${name}:${value}`,
      ]),
      '--show-interactive-dev-session=false',
      // wrangler's line per request costs a third of /health's throughput here; the Worker's own
      // errors are still logged.
      '--log-level',
      'warn',
    ],
    // Its own process group, so stopping it also stops the workerd it starts.
    { cwd, env: wranglerEnv, stdio: ['ignore', out, out], detached: process.platform !== 'win32' },
  );
  /** @type {Promise<void>} */
  const exited = new Promise((resolve) => child.on('exit', () => resolve()));
  let running = true;
  child.on('exit', () => {
    running = false;
  });

  const stop = async () => {
    if (!running || child.pid === undefined) return;
    if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGTERM');
    await exited;
  };

  const scheduled = async () => {
    const res = await fetch(`${origin}/cdn-cgi/local/scheduled`);
    if (!res.ok) throw new Error(`the scheduled handler answered ${res.status}: ${await res.text()}`);
  };

  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && running) {
    try {
      const res = await fetch(`${origin}/health`);
      if (res.ok) return { origin, scheduled, stop };
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  await stop();
  throw new Error(`wrangler dev did not answer /health:\n${tail(log)}`);
}
