import { and, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { inboundEvents, inboundWebhooks } from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { matching } from './event-filter';
import { type EventRow, eventExtras } from './event-reads';

/** How many events a search across the account's webhooks shows, newest first. */
export const LEAD_SEARCH_LIMIT = 50;

/**
 * The account's events, of every webhook, whose text matches `q` (a name, a phone in any format,
 * an email, a CNPJ: the FTS5 index of the event list), newest first, with the webhooks they came
 * to (name and fields, to name each lead): one round trip.
 */
export async function searchLeads(db: Db, keyHash: KeyRef, q: string) {
  const account = accountOf(keyHash);
  const events = db
    .select({ ...getTableColumns(inboundEvents), ...eventExtras })
    .from(inboundEvents)
    .where(and(eq(inboundEvents.accountId, account), matching(keyHash, q)))
    .orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id))
    .limit(LEAD_SEARCH_LIMIT);
  const hooks = db
    .select({ id: inboundWebhooks.id, name: inboundWebhooks.name, fields: inboundWebhooks.fields })
    .from(inboundWebhooks)
    .where(
      and(
        eq(inboundWebhooks.accountId, account),
        sql`${inboundWebhooks.id} in (select ${inboundEvents.webhookId} from ${inboundEvents} where ${inboundEvents.accountId} = ${account} and ${matching(keyHash, q)})`,
      ),
    );
  const [, rows, webhooks] = await scoped(db, keyHash, events, hooks);
  return { events: rows as EventRow[], webhooks };
}
