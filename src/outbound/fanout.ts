import { and, asc, gt, inArray, sql } from 'drizzle-orm';
import { subscribes } from '../core/event-types';
import type { Db } from '../db/client';
import { takingDeliveries } from '../db/listening';
import { journalEntries, outboundCursor, webhookEndpoints } from '../db/schema';
import { deliveryInserts, type NewDelivery } from './deliveries';

export type EntryRow = typeof journalEntries.$inferSelect;

/** Journal entries one fan-out run reads at most; a full run asks for another. */
export const FANOUT_BATCH = 100;
const CURSOR = 'journal';

const cursorSeq = sql<number>`coalesce((select ${outboundCursor.seq} from ${outboundCursor} where ${outboundCursor.name} = ${CURSOR}), 0)`;

/**
 * Makes the deliveries of the journal entries past the cursor and moves the cursor past them, in
 * one batch (2 round trips in all): an entry's deliveries exist once the cursor has passed it, so
 * none is lost whatever fails between runs, and a run repeated (two at once, a retried message)
 * makes each delivery once (the unique (endpoint, message) index). An endpoint gets the entries
 * made after it was created, of the types it subscribes to. Returns the new deliveries' ids, and
 * whether entries are left for another run.
 */
export async function fanOut(
  db: Db,
  bodyOf: (entry: EntryRow) => string,
  now = Date.now(),
): Promise<{ deliveries: number[]; more: boolean }> {
  const e = journalEntries;
  const page = db
    .select({ accountId: e.accountId })
    .from(e)
    .where(gt(e.seq, cursorSeq))
    .orderBy(asc(e.seq))
    .limit(FANOUT_BATCH);
  const [entries, endpoints] = await db.batch([
    db.select().from(e).where(gt(e.seq, cursorSeq)).orderBy(asc(e.seq)).limit(FANOUT_BATCH),
    db
      .select()
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.accountId, page), takingDeliveries)),
  ]);
  const last = entries.at(-1);
  if (!last) return { deliveries: [], more: false };
  const rows: NewDelivery[] = entries.flatMap((entry) => {
    const targets = endpoints.filter(
      (p) =>
        p.accountId === entry.accountId &&
        p.createdAt <= entry.occurredAt &&
        subscribes(p.eventTypes, entry.type),
    );
    if (!targets.length) return [];
    const body = bodyOf(entry);
    return targets.map((p) => ({
      accountId: entry.accountId,
      endpointId: p.id,
      messageId: entry.id,
      type: entry.type,
      body,
      recordKey: `${entry.recordType}:${entry.recordId}`,
      version: entry.version,
    }));
  });
  const advance = db
    .insert(outboundCursor)
    .values({ name: CURSOR, seq: last.seq })
    .onConflictDoUpdate({
      target: outboundCursor.name,
      set: { seq: sql`max(${outboundCursor.seq}, ${last.seq})` },
    });
  const results = await db.batch([advance, ...deliveryInserts(db, rows, now)]);
  const inserted = results.slice(1).flat() as { id: number }[];
  return { deliveries: inserted.map((r) => r.id), more: entries.length === FANOUT_BATCH };
}
