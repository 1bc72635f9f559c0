// CPU per request of each perf-ref target, split by process: the user workerd (the Worker, the
// local D1, miniflare's entry Worker and trace store), wrangler's proxy workerd in front of it,
// wrangler's own Node, and the client (autocannon, this process). Request rates move by tens of
// percent on a shared machine; the CPU each process spends per answer moves far less, and says
// where a difference between two Workers is spent (docs/performance.md, Rounds 5 and 6). No rate
// is printed: autocannon ends a fixed number of requests on its one-second tick, so one would be
// N ÷ whole seconds.
//
//   node ../shared/perf-ref/compare.mjs . --rows 1000 --serve > serve.json &
//   node bench/cpu-per-request.mjs serve.json --path /health --path '/v1/companies?limit=50'
//
// Linux only (it reads /proc). GET only: the targets' API key is sent, nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { refusals } from './cli.mjs';
import { percentile } from './load.mjs';
import { table } from './report.mjs';
import { machineLine } from './run-info.mjs';

/** @typedef {{ id: string, origin: string, pid: number, apiKey: string }} Target */
/** @typedef {{ user: number, proxy: number, wrangler: number }} ProcessCpu ms of CPU so far */
/** @typedef {ProcessCpu & { client: number }} PerRequest ms per 2xx answer */

const USAGE = `node bench/cpu-per-request.mjs SERVE_JSON [--path P]... [--targets A,B,V] [--requests N] [--rounds R]
  SERVE_JSON  what \`compare.mjs ... --serve\` printed (its targets, while it keeps them up)
  --path      a GET path, several allowed (default /health)
  --targets   target id prefixes, in order (default A,B,V: every one present)
  --requests  requests per target and round, at 10 connections (default 1500)
  --rounds    rounds; the order reverses every other round (default 4)`;

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** The CPU so far of every process in `group`, by the part it plays. @param {number} group */
function cpuOf(group) {
  /** @type {ProcessCpu} */
  const cpu = { user: 0, proxy: 0, wrangler: 0 };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    let command;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    // Fields after the command name's closing parenthesis: state, ppid, pgrp, ... utime (12), stime (13).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== group) continue;
    const ms = (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // wrangler's user workerd listens on a port of its own choosing (:0); the proxy on the target's.
    if (!name.startsWith('workerd')) cpu.wrangler += ms;
    else if (command.includes('entry=127.0.0.1:0')) cpu.user += ms;
    else cpu.proxy += ms;
  }
  return cpu;
}

/** `amount` GETs of `path` at 10 connections. @param {Target} target @param {string} path @param {number} amount */
function load(target, path, amount) {
  return autocannon({
    url: target.origin + path,
    connections: 10,
    amount,
    headers: { authorization: `Bearer ${target.apiKey}` },
  });
}

/** One round against one target. @param {Target} target @param {string} path @param {number} amount @returns {Promise<PerRequest>} */
async function measure(target, path, amount) {
  const before = cpuOf(target.pid);
  const client = process.cpuUsage();
  const result = await load(target, path, amount);
  const spent = process.cpuUsage(client);
  const after = cpuOf(target.pid);
  const answered = result['2xx'];
  if (answered < amount) throw new Error(`${target.id} ${path}: ${amount - answered} answers were not 2xx`);
  return {
    user: (after.user - before.user) / answered,
    proxy: (after.proxy - before.proxy) / answered,
    wrangler: (after.wrangler - before.wrangler) / answered,
    client: (spent.user + spent.system) / 1000 / answered,
  };
}

/** @param {number[]} values */
/** The same median as `npm run bench`'s (nearest rank). @param {number[]} values */
const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const COLUMNS = ['target', 'user workerd', 'proxy workerd', 'wrangler', 'client', 'sum'];

/** Every round of `path`, each target in turn, then the medians as a table. @param {Target[]} targets @param {string} path @param {{ requests: number, rounds: number }} plan */
async function cpuTable(targets, path, plan) {
  for (const target of targets) await load(target, path, 300); // warm-up
  /** @type {Map<string, PerRequest[]>} */
  const rounds = new Map(targets.map((t) => [t.id, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (const target of round % 2 ? [...targets].reverse() : targets) {
      rounds.get(target.id)?.push(await measure(target, path, plan.requests));
    }
  }
  const rows = [...rounds].map(([id, measured]) => {
    /** @param {keyof PerRequest} key */
    const m = (key) => median(measured.map((r) => r[key]));
    const sum = m('user') + m('proxy') + m('wrangler') + m('client');
    return [id, ...[m('user'), m('proxy'), m('wrangler'), m('client'), sum].map((x) => x.toFixed(3))];
  });
  const align = /** @type {('l' | 'r')[]} */ (COLUMNS.map((_, i) => (i ? 'r' : 'l')));
  return `GET ${path}: ms of CPU per request, median of ${plan.rounds} rounds\n\n${table(COLUMNS, rows, align)}`;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    path: { type: 'string', multiple: true },
    targets: { type: 'string', default: 'A,B,V' },
    requests: { type: 'string', default: '1500' },
    rounds: { type: 'string', default: '4' },
    help: { type: 'boolean', default: false },
  },
});
const { fail, positive } = refusals(USAGE);
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length !== 1) fail('One SERVE_JSON, the file `compare.mjs ... --serve` printed.');
if (process.platform !== 'linux') fail('cpu-per-request reads /proc: Linux only.');
const plan = { requests: positive('requests', values.requests), rounds: positive('rounds', values.rounds) };
/** @type {{ targets: Target[] }} */
const served = JSON.parse(readFileSync(positionals[0], 'utf8'));
const prefixes = values.targets.split(',');
const targets = prefixes.flatMap((p) => served.targets.filter((t) => t.id.startsWith(p)));
if (targets.length === 0) fail(`No target of ${positionals[0]} starts with ${prefixes.join(', ')}.`);
const loadAtStart = loadavg();
for (const path of values.path ?? ['/health']) console.log(`${await cpuTable(targets, path, plan)}\n`);
console.log(machineLine(loadAtStart));
