// `npm test`: every check, the independent ones at the same time. On a 2-core machine most steps
// wait on something (a dev server starting, a browser, a queue's delay) as much as they compute, so
// running them side by side, not in turn, is most of what makes the run short.
//   1. at once: typecheck, lint, check:layers, openapi, check:dev (own copy of the project) and
//      e2e (own D1 and port; it builds dist/assets, which vitest then rebuilds and reads);
//   2. then check:bundle (its wrangler build rewrites dist/assets, which e2e serves), then the
//      browser run of /mcp's OAuth flow (`e2e:oauth`, its own D1, KV and port; after e2e, so two
//      browsers never share the two cores), then vitest (`npm run test:workers`), its output shown
//      as it comes.
// A step's output is shown when it fails, or when a green step prints something a green run must
// not (wrangler's "Using secrets defined in", a generator's warning, Redocly's ignore notice): then
// `npm test` fails too, so the run stays quiet and anything printed is news.
import { spawn } from 'node:child_process';

const npm = process.env.npm_execpath;
const [command, prefix] = npm ? [process.execPath, [npm]] : ['npm', []];

/** Noise a green step must not print: each was once printed by every run. */
const NOISE = [/Using secrets defined in/, /explicitly ignored/, /⚠/];

/**
 * Runs `npm run <script>`; resolves with its status, output and seconds. `live`: output goes to the
 * terminal as it comes (and is kept for the noise check).
 * @param {string} script @param {boolean} [live]
 * @returns {Promise<{ script: string, status: number, output: string, seconds: number }>}
 */
function run(script, live = false) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, [...prefix, 'run', '--silent', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // npm's own notices (a config it does not know, an update) are not the step's output.
      env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
    });
    let output = '';
    const keep = (/** @type {NodeJS.WriteStream} */ to) => (/** @type {Buffer} */ chunk) => {
      output += chunk;
      if (live) to.write(chunk);
    };
    child.stdout.on('data', keep(process.stdout));
    child.stderr.on('data', keep(process.stderr));
    child.on('close', (code, signal) => {
      resolve({ script, status: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

let failed = false;
/** @param {Awaited<ReturnType<typeof run>>} result @param {boolean} shown */
function report({ script, status, output, seconds }, shown) {
  const noise = status === 0 ? NOISE.find((pattern) => pattern.test(output)) : undefined;
  if (status === 0 && !noise) {
    const last = output.trim().split('\n').at(-1) ?? '';
    console.log(`✓ ${script} (${seconds.toFixed(0)} s)${shown || !last ? '' : `: ${last}`}`);
    return;
  }
  failed = true;
  if (!shown) process.stderr.write(output);
  console.error(
    `✗ ${script} (${seconds.toFixed(0)} s): ${status !== 0 ? `exit ${status}` : `printed what a green run must not (${noise})`}`,
  );
}

const started = Date.now();
const first = ['typecheck', 'lint', 'check:layers', 'openapi', 'check:dev', 'e2e'];
await Promise.all(first.map((script) => run(script).then((result) => report(result, false))));
if (!failed) report(await run('check:bundle'), false);
if (!failed) report(await run('e2e:oauth'), false);
if (!failed) report(await run('test:workers', true), true);
console.log(`npm test: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
process.exit(failed ? 1 : 0);
