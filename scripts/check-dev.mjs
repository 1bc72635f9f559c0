// Part of `npm test`: `npm run dev` must stop wrangler and its workerd when it gets SIGTERM (a
// process manager, an editor's stop button), not leave them running and holding the port.
// Starts the real `npm run dev` in a process group of its own on a free port, waits until it
// serves, sends SIGTERM to npm alone and waits until no process of the group is left.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

if (process.platform === 'win32') {
  console.log('check-dev: skipped on Windows (no process groups to check)');
  process.exit(0);
}

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
const npm = process.env.npm_execpath;
const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
const dev = spawn(command, [...args, 'run', 'dev', '--', '--port', String(port), '--ip', '127.0.0.1'], {
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
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
  process.exit(1);
}

const started = Date.now();
for (;;) {
  if (Date.now() - started > READY_TIMEOUT_MS) fail(`not serving after ${READY_TIMEOUT_MS / 1000} s`);
  if (dev.exitCode !== null) fail(`exited with ${dev.exitCode} before serving`);
  const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
  if (res?.ok) break;
  await sleep(250);
}
const ready = Date.now();

process.kill(group, 'SIGTERM');
while (alive(group)) {
  if (Date.now() - ready > STOP_TIMEOUT_MS) fail(`processes left ${STOP_TIMEOUT_MS / 1000} s after SIGTERM`);
  await sleep(100);
}
const served = await fetch(`http://127.0.0.1:${port}/health`).then(
  () => true,
  () => false,
);
if (served) fail(`port ${port} still answers after every process ended`);
console.log(
  `check-dev: npm run dev served after ${((ready - started) / 1000).toFixed(1)} s and left nothing running ${((Date.now() - ready) / 1000).toFixed(1)} s after SIGTERM`,
);
