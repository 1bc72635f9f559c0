/**
 * Which D1 database is shard n (docs/scaling.md). `DB` is shard 0; further shards are the bindings
 * `DB_1`, `DB_2`, … declared in wrangler.toml, counted from 1 while they follow one another (a gap
 * ends the count: a shard past it is unreachable, never another shard's). Nothing else reads a D1
 * binding: every request, queue message and cron job reaches its database through here, and a
 * shard number from outside (a credential, a message) is only used once `isShard` says it exists.
 */

/**
 * At most 64 shards: the search indexes pack ids into FTS5 rowids (`account_id * 2^32 + id` for
 * users, contacts and companies, drizzle/0003_search.sql; `account_id * 2^40 + id` for events,
 * drizzle/0016_event_search_rowids.sql, with account ids below 2^23), so those ids must stay under
 * those bounds on every shard, and 64 ranges of them still hold more rows than a 10 GB database can.
 */
export const MAX_SHARDS = 64;

/**
 * Each shard's ids of a table start at shard * span (its `sqlite_sequence`), so an id is unique
 * across shards and a moved account's rows never meet the new shard's own. Most tables take 2^40
 * ids per shard; the ones a search rowid packs take their bound's 64th part.
 */
const NARROW_SPANS: Readonly<Record<string, number>> = {
  accounts: 2 ** 23 / MAX_SHARDS,
  users: 2 ** 32 / MAX_SHARDS,
  contacts: 2 ** 32 / MAX_SHARDS,
  companies: 2 ** 32 / MAX_SHARDS,
  inbound_events: 2 ** 40 / MAX_SHARDS,
};
const WIDE_SPAN = 2 ** 40;

/** How many ids of `table` each shard has (its range is shard * span to (shard + 1) * span - 1). */
export const idSpan = (table: string): number =>
  Object.hasOwn(NARROW_SPANS, table) ? (NARROW_SPANS[table] as number) : WIDE_SPAN;

/** The D1 bindings of the Worker, as this module reads them (src/env.ts's Bindings has them). */
export type ShardBindings = { readonly DB: D1Database } & {
  readonly [binding: `DB_${number}`]: D1Database | undefined;
};

const counts = new WeakMap<object, number>();

/** How many shards the Worker has: 1 plus the `DB_n` bindings from `DB_1` on without a gap. */
export function shardCount(env: ShardBindings): number {
  let count = counts.get(env);
  if (count === undefined) {
    count = 1;
    while (count < MAX_SHARDS && env[`DB_${count}`]) count += 1;
    counts.set(env, count);
  }
  return count;
}

/** True for a whole number naming one of the Worker's shards: the only shard numbers used. */
export const isShard = (env: ShardBindings, n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n < shardCount(env);

/** Shard n's database; a number that is not one of the Worker's shards is an error of the caller. */
export function shardOf(env: ShardBindings, n: number): D1Database {
  if (!isShard(env, n)) throw new Error(`no shard ${n}`);
  const d1 = n === 0 ? env.DB : env[`DB_${n}`];
  if (!d1) throw new Error(`no shard ${n}`);
  return d1;
}

/** Every shard, in order: for the cron and the admin API, which go through them one by one. */
export const allShards = (env: ShardBindings): number[] =>
  Array.from({ length: shardCount(env) }, (_, n) => n);

/** The shard whose id range of `table` holds `id`: where the row was made (a moved account's keep theirs). */
export const homeShardOfId = (table: string, id: number): number => Math.floor(id / idSpan(table));

/**
 * The statements that seat shard n's id ranges: every AUTOINCREMENT table's `sqlite_sequence` to at
 * least n * its span, idempotently (`max`), after the migrations (a table first appears in
 * `sqlite_sequence` with its first insert, so the seat inserts its row when missing).
 */
export function seatIdRangeSql(n: number): string[] {
  const narrow = Object.entries(NARROW_SPANS)
    .map(([table, span]) => `WHEN '${table}' THEN ${n * span}`)
    .join(' ');
  const floor = (name: string) => `CASE ${name} ${narrow} ELSE ${n * WIDE_SPAN} END`;
  const autoincrement = "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'";
  return [
    `INSERT INTO sqlite_sequence (name, seq) SELECT name, 0 FROM (${autoincrement}) WHERE name NOT IN (SELECT name FROM sqlite_sequence)`,
    `UPDATE sqlite_sequence SET seq = max(seq, ${floor('name')}) WHERE name IN (${autoincrement})`,
  ];
}

/**
 * A request's shard: chosen where its credential is parsed (the API key, the webhook's token, the
 * panel's session), before its first statement, so reaching the right database costs no round
 * trip. A request that names none (the sign-in page, /admin's shard 0 work) runs on shard 0.
 */
export class RequestShard {
  #n = 0;
  #started = false;

  constructor(private readonly env: ShardBindings) {}

  /**
   * Picks shard n; false when n is none of the Worker's shards (a credential naming it is then an
   * unknown one: 401 or 404, never a 500).
   */
  choose(n: number): boolean {
    if (!isShard(this.env, n)) return false;
    if (this.#started && n !== this.#n)
      throw new Error('a request chose its shard after its first statement');
    this.#n = n;
    return true;
  }

  get n(): number {
    return this.#n;
  }

  /** The chosen shard's database, on the request's first statement; the choice is final from then. */
  database(): D1Database {
    this.#started = true;
    return shardOf(this.env, this.#n);
  }
}
