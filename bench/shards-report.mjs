// The shards bench's tables (Markdown, as bench/report.mjs's) and JSON: the configs side by side,
// the accounts grouped as the flooder, the normal accounts that share its shard in the larger
// config, and the normal accounts on other shards there.
import { percentile } from './load.mjs';
import { table } from './report.mjs';
import { figures, KINDS } from './shards.mjs';

/**
 * @typedef {import('./shards.mjs').Kind} Kind
 * @typedef {import('./shards.mjs').TenantSample} TenantSample
 * @typedef {{ shards: number, tenants: import('./shards.mjs').Tenant[], samples: TenantSample[][], legs: { seconds: number, load_start: number, load_end: number, flood_posts_per_s: number, drain_s: number | null }[], alone?: TenantSample, events?: { waits: number[], failed: number }[], shardList?: unknown }} Config
 * @typedef {{ name: string, indexes: number[] }} Group
 */

/** @param {number | undefined} v @param {number} [digits] */
const fixed = (v, digits = 1) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(digits));
/** @param {number} a @param {number} b */
const ratio = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '');

/** The groups, by the larger config's placement: whom the flooder shares its shard with. @param {Config} wide */
function groups(wide) {
  const flooderShard = wide.tenants[0]?.shard;
  const normal = wide.tenants.slice(1);
  return [
    { name: 'flooder', indexes: [0] },
    {
      name: `normal, beside the flooder (shard ${flooderShard} of ${wide.shards})`,
      indexes: normal.filter((t) => t.shard === flooderShard).map((t) => t.index),
    },
    {
      name: `normal, other shards (of ${wide.shards})`,
      indexes: normal.filter((t) => t.shard !== flooderShard).map((t) => t.index),
    },
  ].filter((g) => g.indexes.length > 0);
}

/** A config's seconds under load (its legs). @param {Config} c */
const loaded = (c) => c.legs.reduce((sum, l) => sum + l.seconds, 0);

/** One group's figures for `kinds` in a config, both legs together. @param {Config} c @param {Group} g @param {Kind[]} kinds */
function groupFigures(c, g, kinds) {
  const samples = c.samples.flatMap((legSamples) =>
    g.indexes.flatMap((i) => kinds.map((k) => /** @type {TenantSample} */ (legSamples[i])[k])),
  );
  return figures(samples, loaded(c), g.indexes.length);
}

/** The side-by-side table of each group and kind. @param {Config[]} configs @param {Group[]} gs */
function kindTable(configs, gs) {
  const [a, b] = /** @type {[Config, Config]} */ (configs);
  const rows = [];
  const json = [];
  for (const g of gs) {
    const kinds = g.name === 'flooder' ? /** @type {Kind[]} */ (['hook']) : [...KINDS, 'all'];
    for (const kind of kinds) {
      const ks = kind === 'all' ? KINDS : [/** @type {Kind} */ (kind)];
      const [x, y] = [groupFigures(a, g, ks), groupFigures(b, g, ks)];
      json.push({ group: g.name, kind, [`shards_${a.shards}`]: x, [`shards_${b.shards}`]: y });
      rows.push([
        g.name,
        kind,
        fixed(x.rps_per_account, 2),
        fixed(x.p50_ms),
        fixed(x.p99_ms),
        fixed(x.d1_p50_ms),
        fixed(y.rps_per_account, 2),
        fixed(y.p50_ms),
        fixed(y.p99_ms),
        fixed(y.d1_p50_ms),
        ratio(y.p50_ms, x.p50_ms),
        ratio(y.p99_ms, x.p99_ms),
      ]);
    }
  }
  const h = (/** @type {Config} */ c, /** @type {string} */ s) => `${s} @${c.shards}`;
  const header = ['accounts', 'op', h(a, 'req/s/acct'), h(a, 'p50 ms'), h(a, 'p99 ms'), h(a, 'D1 p50')];
  header.push(h(b, 'req/s/acct'), h(b, 'p50 ms'), h(b, 'p99 ms'), h(b, 'D1 p50'), 'p50 ratio', 'p99 ratio');
  const align = /** @type {('l' | 'r')[]} */ (['l', 'l', ...Array(10).fill('r')]);
  return { markdown: table(header, rows, align), json };
}

/** A group's webhook events' waits (arrival to processed). @param {Config} c @param {Group} g */
function waits(c, g) {
  const all = g.indexes.flatMap((i) => c.events?.[i]?.waits ?? []).sort((p, q) => p - q);
  return { events: all.length, p50_ms: percentile(all, 50), p99_ms: percentile(all, 99) };
}

/** The Queue consumer's wait per group. @param {Config[]} configs @param {Group[]} gs */
function waitTable(configs, gs) {
  const [a, b] = /** @type {[Config, Config]} */ (configs);
  const json = gs.map((g) => ({
    group: g.name,
    [`shards_${a.shards}`]: waits(a, g),
    [`shards_${b.shards}`]: waits(b, g),
  }));
  const rows = gs.map((g) => {
    const [x, y] = [waits(a, g), waits(b, g)];
    return [
      g.name,
      String(x.events),
      fixed(x.p50_ms / 1000),
      fixed(x.p99_ms / 1000),
      String(y.events),
      fixed(y.p50_ms / 1000),
      fixed(y.p99_ms / 1000),
    ];
  });
  const header = ['accounts', `events @${a.shards}`, `wait p50 s @${a.shards}`, `wait p99 s @${a.shards}`];
  header.push(`events @${b.shards}`, `wait p50 s @${b.shards}`, `wait p99 s @${b.shards}`);
  return { markdown: table(header, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r']), json };
}

/** Each account, every kind together, side by side. @param {Config[]} configs */
function accountTable(configs) {
  const [a, b] = /** @type {[Config, Config]} */ (configs);
  const rows = b.tenants.map((t) => {
    const g = { name: '', indexes: [t.index] };
    const kinds = t.index === 0 ? /** @type {Kind[]} */ (['hook']) : KINDS;
    const [x, y] = [groupFigures(a, g, kinds), groupFigures(b, g, kinds)];
    const [wx, wy] = [waits(a, g), waits(b, g)];
    return [
      `${t.index}${t.index === 0 ? ' (flooder)' : ''}`,
      String(t.shard),
      ...[x, y].flatMap((f) => [fixed(f.rps_per_account, 2), fixed(f.p50_ms), fixed(f.p99_ms)]),
      fixed(wx.p50_ms / 1000),
      fixed(wy.p50_ms / 1000),
    ];
  });
  const header = ['account', `shard @${b.shards}`];
  for (const c of [a, b]) header.push(`req/s @${c.shards}`, `p50 ms @${c.shards}`, `p99 ms @${c.shards}`);
  header.push(`event wait p50 s @${a.shards}`, `@${b.shards}`);
  return table(header, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']);
}

/** Each account's figures per kind and its events' waits, for the JSON. @param {Config[]} configs */
function accountJson(configs) {
  const wide = /** @type {Config} */ (configs.at(-1));
  return wide.tenants.map((t) => {
    const g = { name: '', indexes: [t.index] };
    const kinds = t.index === 0 ? /** @type {Kind[]} */ (['hook']) : KINDS;
    const per = (/** @type {(c: Config) => unknown} */ f) =>
      Object.fromEntries(configs.map((c) => [`shards_${c.shards}`, f(c)]));
    return {
      index: t.index,
      flooder: t.index === 0,
      shard: Object.fromEntries(configs.map((c) => [`shards_${c.shards}`, c.tenants[t.index]?.shard])),
      kinds: Object.fromEntries(kinds.map((k) => [k, per((c) => groupFigures(c, g, [k]))])),
      event_waits: per((c) => waits(c, g)),
    };
  });
}

/** One request at a time, per kind. @param {Config[]} configs */
function aloneTable(configs) {
  const rows = KINDS.map((kind) => [
    kind,
    ...configs.flatMap((c) => {
      const f = figures(c.alone ? [c.alone[kind]] : [], 1, 1);
      return [fixed(f.p50_ms), fixed(f.d1_p50_ms, 0)];
    }),
  ]);
  const header = ['op', ...configs.flatMap((c) => [`p50 ms @${c.shards}`, `D1 p50 ms @${c.shards}`])];
  return table(header, rows, ['l', 'r', 'r', 'r', 'r']);
}

/** The legs in the order they ran. @param {Config[]} configs */
function legTable(configs) {
  const order = [0, 1, 1, 0];
  const seen = [0, 0];
  const rows = order.map((k, n) => {
    const c = /** @type {Config} */ (configs[k]);
    const l = c.legs[seen[k] ?? 0];
    seen[k] = (seen[k] ?? 0) + 1;
    return [
      String(n + 1),
      String(c.shards),
      fixed(l?.seconds),
      fixed(l?.load_start),
      fixed(l?.load_end),
      fixed(l?.flood_posts_per_s, 0),
      l?.drain_s === null ? 'not within the limit' : fixed(l?.drain_s),
    ];
  });
  const header = [
    'leg',
    'shards',
    'seconds',
    'load avg start',
    'load avg end',
    'flood posts/s',
    'backlog drained in s',
  ];
  return table(header, rows, ['r', 'r', 'r', 'r', 'r', 'r', 'l']);
}

/**
 * The Markdown tables, the JSON, and how many requests failed.
 * @param {Config[]} configs the 1-shard config, then the larger one
 * @param {{ rate: number, seconds: number, accounts: number, flood_connections: number }} settings
 */
export function report(configs, settings) {
  const wide = /** @type {Config} */ (configs.at(-1));
  const gs = groups(wide);
  const kinds = kindTable(configs, gs);
  const wait = waitTable(configs, gs);
  const placement = wide.tenants.map((t) => t.shard).join(' ');
  const markdown = [
    `### Placement on ${wide.shards} shards (accounts 0 to ${wide.tenants.length - 1}, least-filled): ${placement}`,
    `\n### Legs (A B B A; load average: 1 minute)\n\n${legTable(configs)}`,
    `\n### Per operation, grouped (normal accounts at ${settings.rate} req/s each; the flooder at ${settings.flood_connections} connections)\n\n${kinds.markdown}`,
    `\n### Webhook events: wait from arrival to processed by the Queue consumer\n\n${wait.markdown}`,
    `\n### Per account (all its operations)\n\n${accountTable(configs)}`,
    `\n### One request at a time, before the load (20 of each, one account)\n\n${aloneTable(configs)}`,
  ].join('\n');
  const failures = configs.reduce(
    (sum, c) =>
      sum +
      c.samples.flat().reduce((s, t) => s + KINDS.reduce((n, k) => n + t[k].failures, 0), 0) +
      (c.events ?? []).reduce((s, e) => s + e.failed, 0),
    0,
  );
  const json = {
    configs: configs.map((c) => ({
      shards: c.shards,
      placement: c.tenants.map((t) => ({ index: t.index, account_id: t.accountId, shard: t.shard })),
      legs: c.legs,
      shard_list: c.shardList,
    })),
    groups: kinds.json,
    event_waits: wait.json,
    accounts: accountJson(configs),
    alone: configs.map((c) => ({
      shards: c.shards,
      kinds: Object.fromEntries(
        KINDS.map((k) => {
          const { requests, p50_ms, p99_ms, d1_p50_ms } = figures(c.alone ? [c.alone[k]] : [], 1, 1);
          return [k, { requests, p50_ms, p99_ms, d1_p50_ms }];
        }),
      ),
    })),
  };
  return { markdown, json, failures };
}
