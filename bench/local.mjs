// The Worker and its D1 on this machine, through the project's wrangler, in a directory of their
// own (`--persist-to`) so every run starts from an empty database and leaves `.wrangler/` alone.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { wranglerBin, wranglerEnv } from '../scripts/wrangler.mjs';

/**
 * Runs wrangler to completion, its output appended to `log`. stdin is closed: wrangler then runs
 * non-interactively (no confirmation prompt before applying migrations).
 * @param {string[]} args @param {string} log
 */
export function wrangler(args, log) {
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [wranglerBin, ...args], {
    env: wranglerEnv,
    stdio: ['ignore', out, out],
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(undefined)
        : reject(new Error(`wrangler ${args[0]} ${args[1]} failed:\n${tail(log)}`)),
    );
  });
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
 * `wrangler dev` on free ports over the D1 in `persistTo`, with `adminToken` as the ADMIN_TOKEN
 * secret and the rate limiters off; resolves once `/health` answers.
 * @param {{ persistTo: string, adminToken: string, log: string }} options
 * @returns {Promise<LocalWorker>}
 */
export async function startWorker({ persistTo, adminToken, log }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const out = openSync(log, 'a');
  const child = spawn(
    process.execPath,
    [
      wranglerBin,
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      persistTo,
      '--var',
      `ADMIN_TOKEN:${adminToken}`,
      // A load run sends thousands of requests a minute with one API key or webhook: the rate
      // limiters (per key and minute, wrangler.toml) would answer most of them 429.
      '--var',
      'RATE_LIMITS:off',
      '--show-interactive-dev-session=false',
      // wrangler's line per request costs a third of /health's throughput here; the Worker's own
      // errors are still logged.
      '--log-level',
      'warn',
    ],
    // Its own process group, so stopping it also stops the workerd it starts.
    { env: wranglerEnv, stdio: ['ignore', out, out], detached: process.platform !== 'win32' },
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
