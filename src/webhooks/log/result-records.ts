import { and, desc, eq, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { restorable } from '../../db/live';
import {
  companies,
  contacts,
  deals,
  inboundEventResults,
  inboundEvents,
  inboundWebhooks,
  type TrashTable,
  tasks,
} from '../../db/schema';
import { accountOf, type KeyRef } from '../../db/tenant';

// Both ways between an event's result and the records it wrote, as queries for a page's one
// batch: the names of the records an event's result names (the event page), and the event that
// last wrote a record (the record pages). Each is the account's alone: a result's ids are only
// ever looked up among the account's own rows, and a record's events among the account's.

/** The kinds of record a result names, as the panel's record paths spell them. */
export type ResultKind = 'contacts' | 'companies' | 'deals' | 'tasks';

/** A record a result names: its kind, id, name and whether it is in the trash. */
export type ResultName = { kind: ResultKind; id: number; name: string; deletedAt: number | null };

/** The account's rows of `t`, live or still restorable from the trash (as the record pages show). */
const shownRows = (t: TrashTable, key: KeyRef): SQL | undefined =>
  and(eq(t.accountId, accountOf(key)), or(isNull(t.deletedAt), restorable(t, Date.now())));

/** Event `eventId`'s result row, as the account holds it. */
const resultOf = (key: KeyRef, eventId: number) =>
  sql`${inboundEventResults.eventId} = ${eventId} and ${inboundEventResults.accountId} = ${accountOf(key)}`;

const COLUMN = {
  contacts: inboundEventResults.contactId,
  companies: inboundEventResults.companyId,
  deals: inboundEventResults.dealId,
} as const;

const TABLE = { contacts, companies, deals, tasks } as const;

/** The ids of `kind` event `eventId`'s result names, as a subquery. */
const idsOf = (key: KeyRef, kind: ResultKind, eventId: number): SQL =>
  kind === 'tasks'
    ? sql`(select value from ${inboundEventResults}, json_each(${inboundEventResults.taskIds}) where ${resultOf(key, eventId)})`
    : sql`(select ${COLUMN[kind]} from ${inboundEventResults} where ${resultOf(key, eventId)})`;

/** The names of the account's records of `kind` that event `eventId`'s result names. */
const namesOf = (db: Db, key: KeyRef, kind: ResultKind, eventId: number) => {
  const t = TABLE[kind] as typeof contacts;
  return db
    .select({ kind: sql<ResultKind>`${kind}`, id: t.id, name: t.name, deletedAt: t.deletedAt })
    .from(t)
    .where(and(shownRows(t, key), sql`${t.id} in ${idsOf(key, kind, eventId)}`));
};

/**
 * The names of the records event `eventId`'s result names, as one query for a batch: a result
 * names at most a contact, a company, a deal and the tasks of that one event.
 */
export const resultNamesQuery = (db: Db, key: KeyRef, eventId: number) =>
  namesOf(db, key, 'contacts', eventId)
    .unionAll(namesOf(db, key, 'companies', eventId))
    .unionAll(namesOf(db, key, 'deals', eventId))
    .unionAll(namesOf(db, key, 'tasks', eventId));

/** The event that last wrote a record: its id, its webhook's id and name, and when it came. */
export type WritingEvent = { id: number; webhookId: number; webhookName: string; receivedAt: number };

/**
 * Which of the account's results name record `id` of `kind`. A task is found among the results
 * naming its deal (an event writes a task under the deal it wrote), by that deal's index.
 */
function naming(key: KeyRef, kind: ResultKind, id: number): SQL {
  if (kind !== 'tasks') return sql`${COLUMN[kind]} = ${id}`;
  const dealOf = sql`(select ${tasks.dealId} from ${tasks} where ${tasks.accountId} = ${accountOf(key)} and ${tasks.id} = ${id})`;
  return sql`${inboundEventResults.dealId} = ${dealOf} and exists (select 1 from json_each(${inboundEventResults.taskIds}) where value = ${id})`;
}

/** The newest of the account's webhook events whose result names record `id` of `kind`, as one query for a batch. */
export const writingEventQuery = (db: Db, key: KeyRef, kind: ResultKind, id: number) =>
  db
    .select({
      id: inboundEvents.id,
      webhookId: inboundEvents.webhookId,
      webhookName: inboundWebhooks.name,
      receivedAt: inboundEvents.receivedAt,
    })
    .from(inboundEventResults)
    .innerJoin(
      inboundEvents,
      and(
        eq(inboundEvents.id, inboundEventResults.eventId),
        eq(inboundEvents.accountId, inboundEventResults.accountId),
      ),
    )
    .innerJoin(
      inboundWebhooks,
      and(
        eq(inboundWebhooks.id, inboundEvents.webhookId),
        eq(inboundWebhooks.accountId, inboundEvents.accountId),
      ),
    )
    .where(and(eq(inboundEventResults.accountId, accountOf(key)), naming(key, kind, id)))
    .orderBy(desc(inboundEventResults.eventId))
    .limit(1);
