import { and, asc, eq, gt, gte, inArray, lt, notInArray, sql } from 'drizzle-orm';
import { subscribes } from '../core/event-types';
import { idSpan } from '../core/id-ranges';
import type { Db } from '../db/client';
import { takingDeliveries } from '../db/listening';
import { accountFreezes, journalEntries, outboundCursor, webhookEndpoints } from '../db/schema';
import { deliveryInserts, type NewDelivery } from './deliveries';

export type EntryRow = typeof journalEntries.$inferSelect;
type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** Journal entries one fan-out run reads at most; a full run asks for another. */
export const FANOUT_BATCH = 100;
const CURSOR = 'journal';

const cursorSeq = sql<number>`coalesce((select ${outboundCursor.seq} from ${outboundCursor} where ${outboundCursor.name} = ${CURSOR}), 0)`;

/**
 * The entries a shard fans out: its own (seq in its id range: a moved account's entries keep the
 * seq of the shard they were made on, and were fanned out there, or are by the move itself, see
 * `fanOutMoved`), of accounts not frozen by a move here (their deliveries could not be written; the
 * move fans them out on the account's new shard).
 */
const fannedOutHere = (shard: number) =>
  and(
    gt(journalEntries.seq, cursorSeq),
    gte(journalEntries.seq, shard * idSpan('journal_entries')),
    notInArray(journalEntries.accountId, sql`(select ${accountFreezes.accountId} from ${accountFreezes})`),
  );

/** Each entry's deliveries: to the account's endpoints made before it, of the types they subscribe to. */
function deliveriesOf(entries: EntryRow[], endpoints: EndpointRow[], bodyOf: (entry: EntryRow) => string) {
  return entries.flatMap((entry): NewDelivery[] => {
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
}

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
  const here = fannedOutHere(db.shard);
  const page = db
    .select({ accountId: e.accountId })
    .from(e)
    .where(here)
    .orderBy(asc(e.seq))
    .limit(FANOUT_BATCH);
  const [entries, endpoints] = await db.batch([
    db.select().from(e).where(here).orderBy(asc(e.seq)).limit(FANOUT_BATCH),
    db
      .select()
      .from(webhookEndpoints)
      .where(and(inArray(webhookEndpoints.accountId, page), takingDeliveries)),
  ]);
  const last = entries.at(-1);
  if (!last) return { deliveries: [], more: false };
  const rows = deliveriesOf(entries, endpoints, bodyOf);
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

/**
 * A moved account's entries its old shard never fanned out (seq past that shard's cursor when the
 * move froze the account, below this shard's range): their deliveries, made here once (the unique
 * (endpoint, message) index makes a repeated run a no-op). The cursor is not this shard's to move.
 */
export async function fanOutMoved(
  db: Db,
  accountId: number,
  after: number,
  bodyOf: (entry: EntryRow) => string,
  now = Date.now(),
): Promise<void> {
  const e = journalEntries;
  const own = db.shard * idSpan('journal_entries');
  for (let from = after; ; ) {
    const [entries, endpoints] = await db.batch([
      db
        .select()
        .from(e)
        .where(and(eq(e.accountId, accountId), gt(e.seq, from), lt(e.seq, own)))
        .orderBy(asc(e.seq))
        .limit(FANOUT_BATCH),
      db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.accountId, accountId), takingDeliveries)),
    ]);
    const rows = deliveriesOf(entries, endpoints, bodyOf);
    const [first, ...rest] = deliveryInserts(db, rows, now);
    if (first) await db.batch([first, ...rest]);
    const last = entries.at(-1);
    if (!last || entries.length < FANOUT_BATCH) return;
    from = last.seq;
  }
}
