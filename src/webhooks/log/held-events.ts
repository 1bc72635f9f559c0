import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { heldEvents } from '../../db/schema';
import { type Accepted, type Hook, storeEvent } from './event-log';

/**
 * Webhook calls that arrived while their account was frozen by a move (src/moves/): ingest keeps
 * each one here, outside the freeze, as the event it would have stored, and answers 204 as usual.
 * Once the move has switched, its last step (and the cron) store them as events on the account's
 * shard, in arrival order, and queue them: a call accepted is never lost.
 */
type HeldCall = { event: Accepted; mode: Hook['mode'] };

/** Keeps a call the freeze refused, with what its event would have held and when it arrived. */
export const holdEvent = (db: Db, hook: Hook, event: Accepted, now: number) =>
  db.insert(heldEvents).values({
    accountId: hook.accountId,
    webhookId: hook.id,
    call: { event, mode: hook.mode } satisfies HeldCall,
    receivedAt: now,
  });

export type HeldRow = typeof heldEvents.$inferSelect;

/** The account's held calls on this shard, oldest first. */
export const heldOf = (db: Db, accountId: number, limit: number) =>
  db
    .select()
    .from(heldEvents)
    .where(eq(heldEvents.accountId, accountId))
    .orderBy(asc(heldEvents.id))
    .limit(limit);

/** Rows per insert: D1 binds at most 100 parameters a statement, and a held row has 5 columns. */
const CARRIED_PER_INSERT = 20;

/** Held calls carried to another shard, in one batch: the same rows (their ids unique across shards), if missing there. */
export async function carryHeld(db: Db, rows: HeldRow[]): Promise<void> {
  const inserts = [];
  for (let i = 0; i < rows.length; i += CARRIED_PER_INSERT)
    inserts.push(
      db
        .insert(heldEvents)
        .values(rows.slice(i, i + CARRIED_PER_INSERT))
        .onConflictDoNothing(),
    );
  const [first, ...rest] = inserts;
  if (first) await db.batch([first, ...rest]);
}

export const forgetHeld = (db: Db, ids: number[]) => db.delete(heldEvents).where(inArray(heldEvents.id, ids));

/**
 * Stores held calls as events on the shard they are on, each in one batch with its held row's
 * delete, so a drain run twice stores each once; the new events' ids, to queue.
 */
export async function storeHeld(db: Db, rows: HeldRow[]): Promise<number[]> {
  const stored: number[] = [];
  for (const row of rows) {
    const { event, mode } = row.call as unknown as HeldCall;
    const hook = { accountId: row.accountId, id: row.webhookId, mode };
    const [inserted] = await db.batch([
      storeEvent(db, hook, event, row.receivedAt),
      db.delete(heldEvents).where(and(eq(heldEvents.id, row.id), eq(heldEvents.accountId, row.accountId))),
    ]);
    stored.push(...inserted.map((r) => r.id));
  }
  return stored;
}
