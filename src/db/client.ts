import { DrizzleD1Database } from 'drizzle-orm/d1';
import { FastDialect } from './dialect';
import { type BatchExtension, D1Meter, meteredD1 } from './meter';
import { D1Session } from './rows';
import { type ShardBindings, shardOf } from './shards';

/** Shared by every request: it holds statement texts, never a request's values. */
const dialect = new FastDialect();

/**
 * The one place a request's database client is made: sessions and metering hook in here. Without
 * a schema: the relational API (`db.query`) is never used, and its config would be rebuilt from
 * every table on every request.
 */
export function createDb(
  d1: D1DatabaseSession,
  meter: D1Meter,
  extension?: BatchExtension,
  shard: () => number = () => 0,
) {
  const session = new D1Session(meteredD1(d1, meter, extension), dialect, undefined);
  const db = new DrizzleD1Database('async', dialect, session, undefined);
  // The shard its statements run on (src/db/shards.ts): what a new credential names (a webhook's
  // token, an API key made with this client). A request's is known once its credential is read.
  return Object.defineProperty(db, 'shard', { get: shard }) as typeof db & { readonly shard: number };
}

export type Db = ReturnType<typeof createDb>;

/**
 * For work outside a request (queue, cron) on shard n: it reads what was just written, so the
 * primary, never a replica.
 */
export const primaryDb = (env: ShardBindings, shard: number) =>
  createDb(shardOf(env, shard).withSession('first-primary'), new D1Meter(), undefined, () => shard);
