import type { z } from '@hono/zod-openapi';
import { and, eq, isNotNull, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { iso, isoAfter, isoOrNull } from '../contracts/common';
import type { Task, TaskCreate, TaskQuery, TaskUpdate } from '../contracts/tasks';
import type { Refs } from '../core/refs';
import { nameColumns, normalizeText } from '../core/text';
import type { Db } from '../db/client';
import { inIds, rangeConditions } from '../db/filters';
import { linkedToAny, linkedUserIds, replaceLinks } from '../db/links';
import type { Columns, Viewed, WriteSpec } from '../db/own';
import { deals, taskCategories, taskOwners, tasks } from '../db/schema';
import type { TrashSpec } from '../db/trash';
import { journaled, taskUpdateType } from '../journal';

type Create = z.infer<typeof TaskCreate>;
type Update = z.infer<typeof TaskUpdate>;

/** The id of the account's category named `name` (any case), as a subquery. */
const categoryId = (account: number | SQLWrapper, name: string) =>
  sql<number>`(select ${taskCategories.id} from ${taskCategories} where ${taskCategories.accountId} = ${account} and ${taskCategories.nameNorm} = ${normalizeText(name)})`;

const extras = {
  ownerIds: linkedUserIds('owners'),
  // The condition is built with and(): Drizzle drops the table from columns written straight into a
  // select field's SQL, which would turn `account_id = tasks.account_id` into a column equal to itself.
  category: sql<string>`(select ${taskCategories.name} from ${taskCategories} where ${and(
    eq(taskCategories.accountId, tasks.accountId),
    eq(taskCategories.id, tasks.categoryId),
  )})`,
};

export type TaskRow = Viewed<typeof tasks, typeof extras>;

export const presentTask = (row: TaskRow): z.infer<typeof Task> => {
  const created = iso(row.createdAt);
  return {
    id: row.id,
    deal_id: row.dealId,
    name: row.name,
    description: row.description,
    due_date: isoOrNull(row.dueDate),
    category: row.category,
    owner_ids: row.ownerIds,
    is_completed: row.completedAt !== null,
    completed_at: isoOrNull(row.completedAt),
    external_id: row.externalId,
    created_at: created,
    updated_at: isoAfter(row.updatedAt, row.createdAt, created),
    deleted_at: isoOrNull(row.deletedAt),
  };
};

const completedAt = (write: 'create' | 'update') =>
  write === 'update' ? sql<number>`coalesce(${tasks.completedAt}, ${Date.now()})` : Date.now();

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update, accountId: number, write: 'create' | 'update'): Columns<typeof tasks> {
  return {
    ...(body.deal_id !== undefined && { dealId: body.deal_id }),
    ...(body.name !== undefined && { name: body.name }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.due_date !== undefined && { dueDate: body.due_date }),
    ...(body.external_id !== undefined && { externalId: body.external_id }),
    ...(body.category !== undefined && { categoryId: categoryId(accountId, body.category) }),
    // Completing a completed task keeps its time. Decided in the write itself, not from the row
    // read before it, so a concurrent reopen is never undone with a stale time.
    ...(body.is_completed !== undefined && {
      completedAt: body.is_completed ? completedAt(write) : null,
    }),
  };
}

const refs = (body: Update): Refs => ({
  deal_id: ['deal', body.deal_id],
  owner_id: ['user', body.owner_id],
});

const written: WriteSpec<typeof tasks, Create, Update, typeof extras> = {
  table: tasks,
  extras,
  // Read by no presenter (a sort by one of them still selects it, for the cursor).
  unread: ['accountId', 'categoryId'],
  create: (body, accountId) => columns(body, accountId, 'create'),
  update: (body, accountId) => columns(body, accountId, 'update'),
  refs,
  immutable: { deal_id: 'dealId' },
  // The category is created on first use; an existing one keeps its first spelling.
  before: (db, body, accountId) =>
    body.category === undefined
      ? []
      : [
          db
            .insert(taskCategories)
            .values({ accountId, ...nameColumns(body.category), createdAt: Date.now() })
            .onConflictDoNothing({ target: [taskCategories.accountId, taskCategories.nameNorm] }),
        ],
  children: (db, body, accountId, id) =>
    body.owner_id === undefined
      ? []
      : replaceLinks(db, 'owners', accountId, id, body.owner_id === null ? [] : [body.owner_id]),
};

/** How a task is written; inbound webhook flows write tasks through it too. */
export const taskSpec = journaled('task', written, { updateType: taskUpdateType });

/** A task lives under a live deal: one whose deal is in the trash comes back with the deal only. */
export const taskTrash: TrashSpec<typeof tasks, typeof extras> = {
  table: tasks,
  extras,
  journal: taskSpec.journal,
  restoreNeeds: {
    where: sql`exists (select 1 from ${deals} parent where parent.account_id = ${tasks.accountId} and parent.id = ${tasks.dealId} and parent.deleted_at is null)`,
    problem: 'Its deal is in the trash: restore the deal, which brings back the tasks deleted with it.',
  },
};

type Query = z.infer<typeof TaskQuery>;

/** The list's filters as conditions; a range on the sort column also bounds its walk. */
export const taskFilters = (q: Query, account: SQLWrapper, sortColumn: AnySQLiteColumn) => [
  q.deal_id ? inIds(tasks.dealId, q.deal_id) : undefined,
  q.category ? eq(tasks.categoryId, categoryId(account, q.category)) : undefined,
  q.owner_id ? linkedToAny('owners', q.owner_id) : undefined,
  q.external_id ? eq(tasks.externalId, q.external_id) : undefined,
  q.is_completed === undefined
    ? undefined
    : q.is_completed
      ? isNotNull(tasks.completedAt)
      : isNull(tasks.completedAt),
  ...rangeConditions(tasks.dueDate, q, 'due_date', sortColumn),
];

/**
 * The owner of a task the same batch just created (`taskId`: SQL naming it), for an owner known only
 * inside the batch (an inbound webhook's round robin takes its turn there): one row, nothing to
 * replace. Task owners are written here and by `taskSpec.children`, nowhere else.
 */
export const newTaskOwner = (
  db: Db,
  accountId: number,
  taskId: SQL<number>,
  userId: number | SQL<number>,
): BatchItem<'sqlite'> => db.insert(taskOwners).values({ accountId, taskId, userId });
