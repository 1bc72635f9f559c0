import journal from '../../drizzle/meta/_journal.json';
import { DomainError } from '../core/errors';

/**
 * The newest migration this Worker was built with, as wrangler records it in `d1_migrations`. A
 * shard that has not applied it has a schema older than the code expects (a deploy ran before
 * scripts/migrate-shards.mjs reached that shard): it serves none of its accounts until it has.
 */
const LATEST = `${journal.entries.at(-1)?.tag}.sql`;

/**
 * Shards this isolate found up to date. Only success is kept: a shard once current stays current
 * (migrations only add), while a lagging or silent one is asked again on its next request, so it
 * serves again as soon as its migrations are applied. The hot path pays one lookup per shard and
 * isolate, outside the request's batches (Server-Timing counts the request's own statements).
 */
const current = new Set<number>();

/**
 * Throws `shard_unavailable` (503, Retry-After) when shard n lags the Worker's migrations or does
 * not answer, with one log line; a no-op once this isolate has seen it current.
 */
export async function assertShardCurrent(d1: D1Database, shard: number): Promise<void> {
  if (current.has(shard)) return;
  let applied = false;
  let error: string | undefined;
  try {
    applied = Boolean(
      await d1.prepare('SELECT 1 AS ok FROM d1_migrations WHERE name = ?').bind(LATEST).first(),
    );
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (applied) {
    current.add(shard);
    return;
  }
  console.error(
    JSON.stringify({
      level: 'error',
      msg: 'shard refused: migrations lag the Worker',
      shard,
      needs: LATEST,
      error,
    }),
  );
  throw new DomainError('shard_unavailable', 'This account cannot be served right now: retry shortly.');
}
