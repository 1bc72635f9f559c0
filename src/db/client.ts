import { drizzle } from 'drizzle-orm/d1';
import { type D1Meter, meteredD1 } from './meter';
import * as schema from './schema';

/** The one place a request's database client is made: sessions and metering hook in here. */
export function createDb(d1: D1DatabaseSession, meter: D1Meter) {
  return drizzle(meteredD1(d1, meter), { schema });
}

export type Db = ReturnType<typeof createDb>;
