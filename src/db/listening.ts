import { and, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { webhookEndpoints } from './schema';

const w = webhookEndpoints;

/**
 * The endpoints that take deliveries: those on, and those the service turned off (a 410, 5 days
 * failing), whose deliveries fail at once and wait for a recover (nothing they missed is lost).
 * One a person turned off, or in the trash, takes none.
 */
export const takingDeliveries = and(
  isNull(w.deletedAt),
  or(eq(w.enabled, true), isNotNull(w.disabledReason)),
);

/**
 * Whether the key's account has an endpoint taking deliveries, as a column of a write's key lookup
 * (`scoped`): a write then knows, with no round trip of its own, whether a fan-out run could make
 * any delivery of its entries (outbound/after-write.ts). A read's lookup leaves it out: nothing
 * reads it there. The key's table is named in full: Drizzle
 * writes a column of the select's own table unqualified, which inside this subquery would be the
 * endpoint's.
 */
export const listening =
  sql<boolean>`exists (select 1 from ${w} where ${w.accountId} = ${sql.identifier('api_keys')}.${sql.identifier('account_id')} and ${takingDeliveries})`.mapWith(
    Boolean,
  );
