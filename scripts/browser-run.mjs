// The frame of a browser run (`npm run e2e`, `npm run e2e:oauth`): a directory of its own for the
// local D1 and wrangler's log, a time limit, and wrangler and Chromium stopped on every way out
// (success, a failed check, the limit, SIGINT or SIGTERM).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** @param {unknown} condition @param {string} message */
export function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Starts the frame of the run called `name` (its messages' prefix). `held` takes the worker and the
 * browser once started, so every way out stops them; `finish(main)` runs the run and cleans up.
 * @param {string} name @param {number} limitMs
 */
export function browserRun(name, limitMs) {
  const dir = mkdtempSync(join(tmpdir(), `crm-${name.replaceAll(' ', '-')}-`));
  /** @type {{ worker?: { stop(): Promise<unknown> }, browser?: import('playwright-core').Browser }} */
  const held = {};
  async function cleanUp() {
    await held.browser?.close().catch(() => {});
    await held.worker?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  /** @param {string} message */
  async function fail(message) {
    console.error(`${name}: ${message}`);
    await cleanUp();
    process.exit(1);
  }
  const timer = setTimeout(() => void fail(`over ${limitMs / 1000} s`), limitMs);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void fail(`stopped by ${signal}`));
  /** @param {() => Promise<void>} main */
  async function finish(main) {
    try {
      await main();
    } catch (err) {
      clearTimeout(timer);
      await fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
    }
    clearTimeout(timer);
    await cleanUp();
  }
  return { dir, log: join(dir, 'wrangler.log'), held, finish };
}
