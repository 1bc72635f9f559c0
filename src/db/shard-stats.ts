/**
 * What `GET /admin/shards` tells of one shard: the rows of its main tables (exact counts: an
 * operator's question, never on a request's path) and its size in bytes, which D1 reports in every
 * result's `meta.size_after` (developers.cloudflare.com/d1/worker-api/return-object), so no PRAGMA.
 */
const COUNTED = [
  'accounts',
  'users',
  'companies',
  'contacts',
  'deals',
  'tasks',
  'inbound_events',
  'journal_entries',
  'webhook_deliveries',
] as const;

export type ShardStats = { rows: Record<(typeof COUNTED)[number], number>; bytes: number | null };

/** One round trip: a count per table, in one batch; the bytes from its last result. */
export async function shardStats(d1: D1Database): Promise<ShardStats> {
  const results = await d1.batch<{ n: number }>(
    COUNTED.map((table) => d1.prepare(`SELECT count(*) AS n FROM ${table}`)),
  );
  const rows = Object.fromEntries(COUNTED.map((table, i) => [table, results[i]?.results[0]?.n ?? 0]));
  return { rows: rows as ShardStats['rows'], bytes: results.at(-1)?.meta.size_after ?? null };
}
