import { DrizzleD1Database } from 'drizzle-orm/d1';
import { FastDialect } from './dialect';
import { type BatchExtension, D1Meter, meteredD1 } from './meter';
import { D1Session } from './rows';

/** Shared by every request: it holds statement texts, never a request's values. */
const dialect = new FastDialect();

/**
 * The one place a request's database client is made: sessions and metering hook in here. Without
 * a schema: the relational API (`db.query`) is never used, and its config would be rebuilt from
 * every table on every request.
 */
export function createDb(d1: D1DatabaseSession, meter: D1Meter, extension?: BatchExtension) {
  const session = new D1Session(meteredD1(d1, meter, extension), dialect, undefined);
  return new DrizzleD1Database('async', dialect, session, undefined);
}

export type Db = ReturnType<typeof createDb>;

/** For work outside a request (queue, cron): it reads what was just written, so the primary, never a replica. */
export const primaryDb = (d1: D1Database) => createDb(d1.withSession('first-primary'), new D1Meter());
