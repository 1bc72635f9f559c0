import { and, asc, desc, eq, gt, gte, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Bound } from '../core/filters';
import { grantingScopes, type Scope } from '../core/scopes';
import type { Db } from '../db/client';
import { inIds } from '../db/filters';
import { KeyGrant } from '../db/key-grant';
import {
  apiKeys,
  type JournalRecordType,
  journalEntries,
  journalRecordTypes,
  type TrashTable,
} from '../db/schema';
import { accountOf, type KeyRef, scoped } from '../db/tenant';

const e = journalEntries;

export type EntryRow = typeof journalEntries.$inferSelect;

/** The scope that reads each record type, and so its entries in the feed. */
const readScope: Record<JournalRecordType, Scope> = {
  company: 'companies:read',
  contact: 'contacts:read',
  deal: 'deals:read',
  task: 'tasks:read',
  user: 'users:read',
};

/**
 * The record types whose entries the key may read, in SQL (the key's scopes are read in the same
 * statement): a key without `contacts:read` sees no contact entry. Scopes are the code's literals.
 */
function readableTypes(keyHash: KeyRef): SQL {
  const key = keyHash instanceof KeyGrant ? keyHash.key : keyHash;
  const held = (type: JournalRecordType) => {
    const granting = grantingScopes(readScope[type]).map((scope) => sql.raw(`'${scope}'`));
    return sql`select ${sql.raw(`'${type}'`)} where exists (select 1 from ${apiKeys} where ${apiKeys.keyHash} = ${key}
      and (${apiKeys.scopes} is null or exists (select 1 from json_each(${apiKeys.scopes}) where value in (${sql.join(granting, sql`, `)}))))`;
  };
  return sql`${e.recordType} in (${sql.join(journalRecordTypes.map(held), sql` union all `)})`;
}

/** A page of entries: newest first or oldest first by `seq` (commit order), past `after`. */
export type EntryPage = { descending: boolean; after: number | undefined; limit: number };

/** What the feed may be filtered by (see contracts/events.ts). */
export type FeedFilters = {
  types?: string[] | undefined;
  recordType?: JournalRecordType | undefined;
  recordIds?: number[] | undefined;
  occurredAt: Partial<Record<'gte' | 'lte' | 'gt' | 'lt', Bound | undefined>>;
};

const compare = { gte, lte, gt, lt };

/** `type` filters: exact types, and `company.*` as the record type. */
function typeCondition(types: string[] | undefined): SQL | undefined {
  if (!types) return undefined;
  const exact = types.filter((t) => !t.endsWith('.*'));
  const records = types.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -2) as JournalRecordType);
  return or(
    exact.length ? inArray(e.type, exact) : undefined,
    records.length ? inArray(e.recordType, records) : undefined,
  );
}

function pageOf(db: Db, where: (SQL | undefined)[], page: EntryPage) {
  const past =
    page.after === undefined ? undefined : page.descending ? lt(e.seq, page.after) : gt(e.seq, page.after);
  return db
    .select()
    .from(e)
    .where(and(...where, past))
    .orderBy(page.descending ? desc(e.seq) : asc(e.seq))
    .limit(page.limit + 1);
}

/**
 * One page of the account's change feed, in one round trip with the key check. Ordered by `seq`,
 * which grows in commit order (D1 runs one batch at a time): a client that polls past the last
 * `seq` it saw misses nothing and sees nothing twice.
 */
export async function feedPage(
  db: Db,
  keyHash: KeyRef,
  filters: FeedFilters,
  page: EntryPage,
): Promise<EntryRow[]> {
  const at = filters.occurredAt;
  const [, rows] = await scoped(
    db,
    keyHash,
    pageOf(
      db,
      [
        eq(e.accountId, accountOf(keyHash)),
        readableTypes(keyHash),
        typeCondition(filters.types),
        filters.recordType && eq(e.recordType, filters.recordType),
        filters.recordIds === undefined ? undefined : inIds(e.recordId, filters.recordIds),
        ...(['gte', 'lte', 'gt', 'lt'] as const).map((op) => {
          const bound = at[op];
          return bound ? compare[op](e.occurredAt, bound.ms) : undefined;
        }),
      ],
      page,
    ),
  );
  return rows;
}

/**
 * One record's timeline, oldest first by default, and whether the record is the account's (live,
 * in the trash, or known to the journal): one round trip with the key check.
 */
export async function historyPage(
  db: Db,
  keyHash: KeyRef,
  record: { type: JournalRecordType; table: TrashTable; id: number },
  page: EntryPage,
): Promise<{ exists: boolean; rows: EntryRow[] }> {
  const account = accountOf(keyHash);
  const t = record.table;
  const [, found, rows] = await scoped(
    db,
    keyHash,
    db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.accountId, account), eq(t.id, record.id))),
    pageOf(db, [eq(e.accountId, account), eq(e.recordType, record.type), eq(e.recordId, record.id)], page),
  );
  return { exists: found.length > 0 || rows.length > 0, rows };
}
