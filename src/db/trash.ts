import { and, eq, lt, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { conflict, notFound } from '../core/errors';
import type { Db } from './client';
import type { Actor, Journaling } from './journaling';
import { restorable, TRASH_MS } from './live';
import { type Batch, type Extras, type Viewed, view } from './own';
import {
  companies,
  companyFollowers,
  contacts,
  deals,
  inboundEventResults,
  type JournalRecordType,
  type TrashTable,
  taskOwners,
  tasks,
  users,
} from './schema';
import { accountOf, type KeyRef, ownRow, scoped } from './tenant';

type Statements = BatchItem<'sqlite'>[];

/** How a resource goes to the trash and comes back. */
export type TrashSpec<T extends TrashTable, X extends Extras = Extras> = {
  table: T;
  extras?: X;
  /**
   * Statements that move the row's dependants with it (a deal's tasks), each run before the row's
   * own write and so still able to see the row as it was.
   */
  dependants?: (
    db: Db,
    account: SQL<number>,
    id: number,
    now: number,
    actor: Actor,
  ) => { trash: Statements; restore: Statements };
  /** What a restore needs beyond the row being in the trash, and the 409 when it is not met. */
  restoreNeeds?: { where: SQL; problem: string };
  /** Its change journal (src/journal/): a delete and a restore append their entries. */
  journal?: Journaling;
};

/** One round trip: the key check, the dependants and the row move to the trash in one batch. 404 if not live. */
export async function trashOwn<T extends TrashTable>(
  db: Db,
  keyHash: KeyRef,
  spec: TrashSpec<T>,
  id: number,
): Promise<void> {
  const t: TrashTable = spec.table;
  const now = Date.now();
  const actor = { key: keyHash };
  const account = accountOf(keyHash);
  const moved = spec.dependants?.(db, account, id, now, actor).trash ?? [];
  const j = spec.journal;
  const results = await scoped(
    db,
    keyHash,
    ...moved,
    ...(j ? [j.before(db, ownRow(t, keyHash, id), 'deleted', actor, now)] : []),
    db
      .update(t)
      .set({ deletedAt: now })
      .where(ownRow(t, keyHash, id))
      .returning({ id: t.id }),
    ...(j?.after(db, and(eq(t.accountId, account), eq(t.id, id)), actor, now) ?? []),
  );
  const trashedIndex = results.length - 1 - (j ? 4 : 0);
  if (!(results[trashedIndex] as unknown[]).length) throw notFound();
}

/**
 * One round trip: the row (and the dependants that went with it) back from the trash, read back
 * with its extras. 404 if not in the trash or past its 30 days; 409 if `restoreNeeds` is not met.
 */
export async function restoreOwn<T extends TrashTable, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: TrashSpec<T, X>,
  id: number,
): Promise<Viewed<T, X>> {
  const t: TrashTable = spec.table;
  const now = Date.now();
  const account = accountOf(keyHash);
  const trashed = and(eq(t.accountId, account), eq(t.id, id), restorable(t, now));
  const actor = { key: keyHash };
  const back = spec.dependants?.(db, account, id, now, actor).restore ?? [];
  const j = spec.journal;
  const [, found, ...results] = await scoped(
    db,
    keyHash,
    db.select({ id: t.id }).from(t).where(trashed),
    ...back,
    ...(j ? [j.before(db, and(trashed, spec.restoreNeeds?.where), 'restored', actor, now)] : []),
    db
      .update(t)
      .set({ deletedAt: null })
      .where(and(trashed, spec.restoreNeeds?.where))
      .returning({ id: t.id }),
    ...(j?.after(db, and(eq(t.accountId, account), eq(t.id, id)), actor, now) ?? []),
    view(db, t, spec.extras, ownRow(t, keyHash, id)),
  );
  if (!(found as unknown[]).length) throw notFound();
  const row = (results.at(-1) as Viewed<T, X>[])[0];
  if (!row) throw conflict(spec.restoreNeeds?.problem ?? 'It cannot be restored now.');
  return row;
}

/** Rows of each table the cron purges per run at most (a deal's tasks go with it, however many). */
export const PURGE_BATCH = 100;

/** Each trash table's change journal, by record type: the purge's entries. */
export type PurgeJournals = Record<JournalRecordType, Journaling>;

/** The purge's pieces for a run at `cutoff`. */
function duePieces(cutoff: number) {
  // The due rows, as (account_id, id) pairs: the same in every statement of the batch, since only
  // the last statement for a table deletes its rows.
  const due = (t: TrashTable) =>
    sql`(select ${t.accountId}, ${t.id} from ${t} where ${lt(t.deletedAt, cutoff)} order by ${t.deletedAt} limit ${PURGE_BATCH})`;
  const pointsAt = (accountId: AnySQLiteColumn, fk: AnySQLiteColumn, t: TrashTable) =>
    sql`(${accountId}, ${fk}) in ${due(t)}`;
  const isDue = (t: TrashTable) => sql`(${t.accountId}, ${t.id}) in ${due(t)}`;
  return { pointsAt, isDue };
}

type DuePieces = ReturnType<typeof duePieces>;

/**
 * The rows that stay and lose a reference or a link to a purged one, each found by the index of
 * the reference (a run with nothing due reads no table), for their journal entries.
 */
function losingRows({ pointsAt, isDue }: DuePieces) {
  const rowsOf = (t: TrashTable, ...refs: SQL[]) =>
    and(
      // By id alone (ids are unique across accounts: AUTOINCREMENT), so SQLite looks each up by its
      // primary key; every reference is (account_id, id) already.
      sql`${t.id} in (${sql.join(
        refs.map((ref) => sql`select ${t.id} from ${t} where ${ref}`),
        sql` union all `,
      )})`,
      sql`not ${isDue(t)}`,
    );
  const linked = (
    link: typeof taskOwners | typeof companyFollowers,
    parentId: AnySQLiteColumn,
    t: TrashTable,
  ) =>
    and(
      sql`${t.id} in (select ${parentId} from ${link} where ${pointsAt(link.accountId, link.userId, users)})`,
      sql`not ${isDue(t)}`,
    );
  return {
    task: and(
      linked(taskOwners, taskOwners.taskId, tasks),
      sql`not ${pointsAt(tasks.accountId, tasks.dealId, deals)}`,
    ),
    deal: rowsOf(
      deals,
      pointsAt(deals.accountId, deals.contactId, contacts),
      pointsAt(deals.accountId, deals.companyId, companies),
      pointsAt(deals.accountId, deals.ownerId, users),
    ),
    contact: rowsOf(
      contacts,
      pointsAt(contacts.accountId, contacts.companyId, companies),
      pointsAt(contacts.accountId, contacts.ownerId, users),
    ),
    company: or(
      rowsOf(companies, pointsAt(companies.accountId, companies.ownerId, users)),
      linked(companyFollowers, companyFollowers.companyId, companies),
    ),
  };
}

/**
 * The cron's purge: rows trashed more than 30 days before `now`, oldest first, at most
 * PURGE_BATCH per table, deleted for good in ONE batch with what depends on them. References to a
 * purged row become null (a contact's company, a deal's contact, owners); links to it (followers,
 * task owners) and a purged deal's tasks are deleted. The journal, in the same batch: a last
 * `deleted` entry (actor `system`) for each row deleted, an `updated` one for each row that lost a
 * reference or a link. Returns the rows purged per table.
 */
export async function purgeTrash(
  db: Db,
  now: number,
  journals: PurgeJournals,
): Promise<Record<string, number>> {
  const pieces = duePieces(now - TRASH_MS);
  const { pointsAt, isDue } = pieces;
  const purged = (t: TrashTable) => db.delete(t).where(isDue(t));
  const tasksOf = sql`(select ${tasks.accountId}, ${tasks.id} from ${tasks} where ${pointsAt(tasks.accountId, tasks.dealId, deals)})`;
  const r = inboundEventResults;
  const losing = losingRows(pieces);
  const kinds = ['task', 'deal', 'contact', 'company'] as const;
  const j = journals;
  const batch: Statements = kinds.map((kind) => j[kind].before(db, losing[kind], 'updated', 'system', now));
  // The index of each purge's statement in the batch, for its count.
  const counted: Record<string, number> = {};
  const purge = (name: string, t: TrashTable, kind: JournalRecordType) => {
    batch.push(j[kind].gone(db, isDue(t), 'system', now));
    counted[name] = batch.push(purged(t).returning({ id: t.id })) - 1;
  };
  batch.push(db.delete(taskOwners).where(pointsAt(taskOwners.accountId, taskOwners.taskId, tasks)));
  purge('tasks', tasks, 'task');
  batch.push(
    db.delete(taskOwners).where(sql`(${taskOwners.accountId}, ${taskOwners.taskId}) in ${tasksOf}`),
    j.task.gone(db, pointsAt(tasks.accountId, tasks.dealId, deals), 'system', now),
    db.delete(tasks).where(pointsAt(tasks.accountId, tasks.dealId, deals)),
    db
      .update(r)
      .set({ dealId: null })
      .where(pointsAt(r.accountId, r.dealId, deals)),
  );
  purge('deals', deals, 'deal');
  batch.push(
    db
      .update(deals)
      .set({ contactId: null })
      .where(pointsAt(deals.accountId, deals.contactId, contacts)),
    db
      .update(r)
      .set({ contactId: null })
      .where(pointsAt(r.accountId, r.contactId, contacts)),
  );
  purge('contacts', contacts, 'contact');
  batch.push(
    db
      .update(contacts)
      .set({ companyId: null })
      .where(pointsAt(contacts.accountId, contacts.companyId, companies)),
    db
      .update(deals)
      .set({ companyId: null })
      .where(pointsAt(deals.accountId, deals.companyId, companies)),
    db
      .update(r)
      .set({ companyId: null })
      .where(pointsAt(r.accountId, r.companyId, companies)),
    db
      .delete(companyFollowers)
      .where(pointsAt(companyFollowers.accountId, companyFollowers.companyId, companies)),
  );
  purge('companies', companies, 'company');
  batch.push(
    db
      .update(companies)
      .set({ ownerId: null })
      .where(pointsAt(companies.accountId, companies.ownerId, users)),
    db
      .update(contacts)
      .set({ ownerId: null })
      .where(pointsAt(contacts.accountId, contacts.ownerId, users)),
    db
      .update(deals)
      .set({ ownerId: null })
      .where(pointsAt(deals.accountId, deals.ownerId, users)),
    db.delete(companyFollowers).where(pointsAt(companyFollowers.accountId, companyFollowers.userId, users)),
    db.delete(taskOwners).where(pointsAt(taskOwners.accountId, taskOwners.userId, users)),
  );
  purge('users', users, 'user');
  for (const kind of kinds) batch.push(...j[kind].after(db, j[kind].opened(), 'system', now));
  const results = (await db.batch(batch as Batch)) as unknown[];
  return Object.fromEntries(
    Object.entries(counted).map(([name, index]) => [name, (results[index] as unknown[]).length]),
  );
}
