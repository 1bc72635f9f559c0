import { count, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { journalEntries } from '../db/schema';

const e = journalEntries;
const DAY_MS = 86_400_000;

/** The `[vars]` this module reads (wrangler.toml); unset or invalid: the default. */
export type JournalVars = { JOURNAL_RETENTION_DAYS?: string };

export const DEFAULT_JOURNAL_RETENTION_DAYS = 30;

/** Days the change journal keeps an entry: a whole number 1..3650, else 30. Own property only. */
export function journalRetentionDays(vars: JournalVars): number {
  const raw = Object.hasOwn(vars, 'JOURNAL_RETENTION_DAYS') ? vars.JOURNAL_RETENTION_DAYS : undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  return /^[1-9]\d{0,8}$/.test(text) ? Math.min(Number(text), 3650) : DEFAULT_JOURNAL_RETENTION_DAYS;
}

/** Entries the cron deletes per statement, and statements per run: bounded work per run. */
export const JOURNAL_PURGE_BATCH = 500;
export const JOURNAL_PURGE_ROUNDS = 10;

/**
 * The cron's purge of entries older than the retention, oldest first, by the occurred_at index,
 * in batches. A record keeps its version (on its own row), so later entries go on counting.
 */
export async function purgeJournal(db: Db, now: number, vars: JournalVars): Promise<number> {
  const cutoff = now - journalRetentionDays(vars) * DAY_MS;
  const due = sql`(select ${e.seq} from ${e} where ${e.occurredAt} < ${cutoff} order by ${e.occurredAt} limit ${JOURNAL_PURGE_BATCH})`;
  let purged = 0;
  for (let round = 0; round < JOURNAL_PURGE_ROUNDS; round++) {
    const deleted = await db.delete(e).where(sql`${e.seq} in ${due}`).returning({ seq: e.seq });
    purged += deleted.length;
    if (deleted.length < JOURNAL_PURGE_BATCH) break;
  }
  return purged;
}

/** The account's entries kept, for `GET /v1/usage` (a count over the feed's index). */
export const journalCount = (db: Db, account: SQL<number>) =>
  db.select({ n: count() }).from(e).where(eq(e.accountId, account));
