/**
 * Each shard's id ranges (docs/scaling.md). Pure, so Node runs it as it is: the Worker's
 * src/db/shards.ts, the tests' setup and the scripts that migrate shards (scripts/migrate-shards.mjs)
 * seat the same ranges.
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
