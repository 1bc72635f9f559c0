// What a run's JSON keeps besides its figures: the machine it ran on, and numbers rounded for diffs.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem, type } from 'node:os';

const require = createRequire(import.meta.url);
/** @param {string} pkg @returns {string} */
const version = (pkg) => JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')).version;

/**
 * The machine and the versions that shape the figures. Other work on the machine shows in every
 * figure, so the load averages at the run's start (`loadAtStart`) and now are kept with them.
 * @param {number[]} loadAtStart @param {string[]} [tools] further packages whose versions matter
 */
export function machine(loadAtStart, tools = []) {
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpu_model: cpu[0]?.model ?? 'unknown',
    memory_gib: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    ...Object.fromEntries(['wrangler', 'workerd', ...tools].map((pkg) => [pkg, version(pkg)])),
    // 1, 5 and 15 minute load averages, before and after the run.
    load_average: { start: loadAtStart, end: loadavg() },
  };
}

/** One line on the machine, under a run's tables. @param {number[]} loadAtStart */
export function machineLine(loadAtStart) {
  const cpu = cpus();
  const load1 = (/** @type {number[]} */ averages) => (averages[0] ?? 0).toFixed(1);
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${load1(loadAtStart)} at start and ${load1(loadavg())} at end.`;
}

/** Writes `value` as indented JSON. @param {string} file @param {unknown} value */
export function writeJson(file, value) {
  writeFileSync(
    file,
    `${JSON.stringify(
      value,
      // Six decimals keep every printed figure; the digits past them would only lengthen diffs.
      // Integers stay as they are: an epoch in milliseconds times 1e6 is past 2^53.
      (_key, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v),
      2,
    )}\n`,
  );
}
