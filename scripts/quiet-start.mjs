// What `npm run dev` shows of `wrangler dev`: nothing before its "Ready on" line but real warnings
// (held back: the banner, the build line, the bindings table twice over, the notice that crons do
// not run locally, which README and docs/development.md tell instead), then everything but the
// bindings table, which wrangler prints again on every reload and every change of its dev
// registry. What was held back is shown if wrangler ends before it is ready.
import { createInterface } from 'node:readline';

const TABLE_START = /Your Worker has access to the following bindings/;
const READY = /Ready on \S+/;
const CRON_NOTICE = /Scheduled Workers are not automatically triggered/;
const CRON_NOTICE_END = /For more details, see/;

/** Calls `each` with every line of `stream`. */
const lines = (/** @type {NodeJS.ReadableStream} */ stream, /** @type {(line: string) => void} */ each) =>
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', each);

/**
 * @param {{ stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream }} from wrangler's output
 * @param {{ stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }} to where a developer reads it
 * @returns {{ flush(): void }} `flush` writes what was held back (when wrangler ends unready)
 */
export function quietStart(from, to) {
  let ready = false;
  let inTable = false;
  let inNotice = false;
  /** @type {string[]} */
  const heldOut = [];
  /** @type {string[]} */
  const warnings = [];
  const write = (/** @type {NodeJS.WritableStream} */ out, /** @type {string[]} */ held) =>
    out.write(held.map((line) => `${line}\n`).join(''));
  lines(from.stdout, (line) => {
    if (!ready) {
      if (!READY.test(line)) {
        heldOut.push(line);
        return;
      }
      ready = true;
      to.stdout.write(`${line}\n`);
      write(to.stderr, warnings);
      return;
    }
    // A table runs from its heading to the blank line after it.
    if (TABLE_START.test(line)) inTable = true;
    if (!inTable) to.stdout.write(`${line}\n`);
    else if (line.trim() === '') inTable = false;
  });
  lines(from.stderr, (line) => {
    if (ready) return void to.stderr.write(`${line}\n`);
    if (CRON_NOTICE.test(line)) inNotice = true;
    if (!inNotice && line.trim() !== '') warnings.push(line);
    if (CRON_NOTICE_END.test(line)) inNotice = false;
  });
  return {
    flush() {
      if (ready) return;
      write(to.stdout, heldOut);
      write(to.stderr, warnings);
    },
  };
}
