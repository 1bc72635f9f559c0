import { drizzle } from 'drizzle-orm/d1';
import { type BatchExtension, D1Meter, meteredD1 } from './meter';
import * as schema from './schema';

/** The one place a request's database client is made: sessions and metering hook in here. */
export function createDb(d1: D1DatabaseSession, meter: D1Meter, extension?: BatchExtension) {
  return drizzle(meteredD1(d1, meter, extension), { schema });
}

export type Db = ReturnType<typeof createDb>;

/** For work outside a request (queue, cron): it reads what was just written, so the primary, never a replica. */
export const primaryDb = (d1: D1Database) => createDb(d1.withSession('first-primary'), new D1Meter());
