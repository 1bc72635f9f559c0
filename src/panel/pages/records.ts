import { and, asc, desc, eq, inArray, isNull, or, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { notFound } from '../../core/errors';
import type { Db } from '../../db/client';
import { restorable } from '../../db/live';
import { view } from '../../db/own';
import {
  companies,
  companyFollowers,
  contacts,
  deals,
  type TrashTable,
  taskOwners,
  tasks,
  users,
} from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { type CompanyRow, companySpec, presentCompany } from '../../model/companies';
import { presentContact } from '../../model/contacts';
import { presentDeal } from '../../model/deals';
import { presentTask, type TaskRow, taskSpec } from '../../model/tasks';
import { writingEventQuery } from '../../webhooks/log/result-records';
import { type C, idOf, pageOf } from '../page';
import {
  companyView,
  contactView,
  dealView,
  type Listed,
  type Named,
  type Shown,
  taskView,
} from '../views/records';

// The read-only pages of a contact, a deal, a task and a company, each in one round trip: the
// record as `/v1` reads it (the resource's spec and its present function), the records it names,
// the records that name it (first rows only), and the webhook event that last wrote it.

/** How many of the records that name this one a page lists. */
const LISTED = 20;

/**
 * The account's rows of `t` that are live or still in the trash (a trashed record's page says
 * so; one past the trash's 30 days is being purged: not found, as in `/v1`).
 */
const shown = (t: TrashTable, key: KeyRef): SQL | undefined =>
  and(eq(t.accountId, accountOf(key)), or(isNull(t.deletedAt), restorable(t, Date.now())));

const theRecord = (t: TrashTable, key: KeyRef, id: number) => and(shown(t, key), eq(t.id, id));

/** `column` of the record `t` `id` (a foreign key), as a subquery for the same batch. */
const columnOf = (db: Db, t: TrashTable, column: AnySQLiteColumn, key: KeyRef, id: number) =>
  db
    .select({ v: column })
    .from(t)
    .where(theRecord(t, key, id));

type NamedTable = typeof users | typeof companies | typeof contacts | typeof deals;

/** The account's rows of `t` whose ids `ids` (a subquery) yields: id, name and trash state. */
const named = (db: Db, t: NamedTable, key: KeyRef, ids: SQLWrapper) =>
  db
    .select({ id: t.id, name: t.name, deletedAt: t.deletedAt })
    .from(t as typeof users)
    .where(and(shown(t, key), inArray(t.id, ids)));

/** The users linked to task or company `id` (owners, followers). */
const linkedUsers = (db: Db, key: KeyRef, link: typeof taskOwners | typeof companyFollowers, id: number) => {
  const parent = link === taskOwners ? taskOwners.taskId : companyFollowers.companyId;
  const ids = db
    .select({ v: link.userId })
    .from(link)
    .where(and(eq(link.accountId, accountOf(key)), eq(parent, id)));
  return named(db, users, key, ids);
};

/** The first of the account's deals whose `column` is `id`, newest first (one more, to tell "more"). */
const dealsWhere = (db: Db, key: KeyRef, column: AnySQLiteColumn, id: number) =>
  db
    .select({ id: deals.id, name: deals.name, deletedAt: deals.deletedAt, status: deals.status })
    .from(deals)
    .where(and(shown(deals, key), eq(column, id)))
    .orderBy(desc(unindexed(deals.id)))
    .limit(LISTED + 1);

/**
 * A list's sort column as an expression no index holds. Sorted by a plain column, SQLite may walk
 * the account's rows in that column's index (account, id or due date) until the page is full,
 * reading every row of a large account when the parent has few; this way it looks up the parent's
 * rows by their own index (a company's contacts, a deal's tasks) and sorts just those.
 */
const unindexed = (column: AnySQLiteColumn): SQL => sql`+${column}`;

const listed = (rows: Listed[]): Shown => ({ rows: rows.slice(0, LISTED), more: rows.length > LISTED });

const first = <T>(rows: T[]): T => {
  const row = rows[0];
  if (row === undefined) throw notFound();
  return row;
};

/** A contact: its company, its owner and its deals. */
export async function contactPage(c: C, key: KeyRef): Promise<Response> {
  const db = c.get('db');
  const id = idOf(c);
  const [, rows, company, owner, itsDeals, source] = await scoped(
    db,
    key,
    view(db, contacts, undefined, theRecord(contacts, key, id)),
    named(db, companies, key, columnOf(db, contacts, contacts.companyId, key, id)),
    named(db, users, key, columnOf(db, contacts, contacts.ownerId, key, id)),
    dealsWhere(db, key, deals.contactId, id),
    writingEventQuery(db, key, 'contacts', id),
  );
  const contact = presentContact(first(rows as (typeof contacts.$inferSelect)[]));
  const p = pageOf(c, true);
  const refs = { company: company[0], owner: owner[0], source: source[0] };
  return c.html(contactView(p, contact, refs, listed(itsDeals)));
}

/** A deal: its contact, company and owner, and its tasks by due date. */
export async function dealPage(c: C, key: KeyRef): Promise<Response> {
  const db = c.get('db');
  const id = idOf(c);
  const [, rows, contact, company, owner, itsTasks, source] = await scoped(
    db,
    key,
    view(db, deals, undefined, theRecord(deals, key, id)),
    named(db, contacts, key, columnOf(db, deals, deals.contactId, key, id)),
    named(db, companies, key, columnOf(db, deals, deals.companyId, key, id)),
    named(db, users, key, columnOf(db, deals, deals.ownerId, key, id)),
    db
      .select({ id: tasks.id, name: tasks.name, deletedAt: tasks.deletedAt, due: tasks.dueDate })
      .from(tasks)
      .where(and(shown(tasks, key), eq(tasks.dealId, id)))
      .orderBy(asc(unindexed(tasks.dueDate)), asc(unindexed(tasks.id)))
      .limit(LISTED + 1),
    writingEventQuery(db, key, 'deals', id),
  );
  const deal = presentDeal(first(rows as (typeof deals.$inferSelect)[]));
  const taskRows = itsTasks.map((t) => ({
    ...t,
    when: t.due === null ? null : new Date(t.due).toISOString(),
  }));
  const p = pageOf(c, true);
  const refs = { contact: contact[0], company: company[0], owner: owner[0], source: source[0] };
  return c.html(dealView(p, deal, refs, listed(taskRows)));
}

/** A task: its deal, category and owners. */
export async function taskPage(c: C, key: KeyRef): Promise<Response> {
  const db = c.get('db');
  const id = idOf(c);
  const [, rows, deal, owners, source] = await scoped(
    db,
    key,
    view(db, tasks, taskSpec.extras, theRecord(tasks, key, id)),
    named(db, deals, key, columnOf(db, tasks, tasks.dealId, key, id)),
    linkedUsers(db, key, taskOwners, id),
    writingEventQuery(db, key, 'tasks', id),
  );
  const task = presentTask(first(rows as TaskRow[]));
  const refs = { deal: deal[0], owners: owners as Named[], source: source[0] };
  return c.html(taskView(pageOf(c, true), task, refs));
}

/** A company: its owner and followers, its contacts and its deals. */
export async function companyPage(c: C, key: KeyRef): Promise<Response> {
  const db = c.get('db');
  const id = idOf(c);
  const [, rows, owner, followers, itsContacts, itsDeals, source] = await scoped(
    db,
    key,
    view(db, companies, companySpec.extras, theRecord(companies, key, id)),
    named(db, users, key, columnOf(db, companies, companies.ownerId, key, id)),
    linkedUsers(db, key, companyFollowers, id),
    db
      .select({ id: contacts.id, name: contacts.name, deletedAt: contacts.deletedAt })
      .from(contacts)
      .where(and(shown(contacts, key), eq(contacts.companyId, id)))
      .orderBy(desc(unindexed(contacts.id)))
      .limit(LISTED + 1),
    dealsWhere(db, key, deals.companyId, id),
    writingEventQuery(db, key, 'companies', id),
  );
  const company = presentCompany(first(rows as CompanyRow[]));
  const lists = { contacts: listed(itsContacts), deals: listed(itsDeals) };
  const refs = { owner: owner[0], followers, source: source[0] };
  return c.html(companyView(pageOf(c, true), company, refs, lists));
}
