import type { z } from '@hono/zod-openapi';
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { iso, isoAfter, isoOrNull } from '../contracts/common';
import type { Deal, DealCreate, DealQuery, DealUpdate } from '../contracts/deals';
import type { Refs } from '../core/refs';
import { nameColumns } from '../core/text';
import { inIds, rangeConditions } from '../db/filters';
import { restorable } from '../db/live';
import type { WriteSpec } from '../db/own';
import { deals, tasks } from '../db/schema';
import type { TrashSpec } from '../db/trash';
import { journaled } from '../journal';
import { taskSpec } from './tasks';

export type DealRow = typeof deals.$inferSelect;
type Create = z.infer<typeof DealCreate>;
type Update = z.infer<typeof DealUpdate>;

export const presentDeal = (row: DealRow): z.infer<typeof Deal> => {
  const created = iso(row.createdAt);
  return {
    id: row.id,
    name: row.name,
    company_id: row.companyId,
    contact_id: row.contactId,
    owner_id: row.ownerId,
    status: row.status,
    value: row.value,
    custom_fields: row.customFields,
    external_id: row.externalId,
    created_at: created,
    updated_at: isoAfter(row.updatedAt, row.createdAt, created),
    deleted_at: isoOrNull(row.deletedAt),
  };
};

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof deals.$inferInsert> {
  return {
    ...(body.name !== undefined && nameColumns(body.name)),
    ...(body.company_id !== undefined && { companyId: body.company_id }),
    ...(body.contact_id !== undefined && { contactId: body.contact_id }),
    ...(body.owner_id !== undefined && { ownerId: body.owner_id }),
    ...(body.status !== undefined && { status: body.status }),
    ...(body.value !== undefined && { value: body.value }),
    ...(body.custom_fields !== undefined && { customFields: body.custom_fields }),
    ...(body.external_id !== undefined && { externalId: body.external_id }),
  };
}

const refs = (body: Update): Refs => ({
  company_id: ['company', body.company_id],
  contact_id: ['contact', body.contact_id],
  owner_id: ['user', body.owner_id],
});

const written: WriteSpec<typeof deals, Create, Update> = {
  table: deals,
  // Read by no presenter (a sort by one of them still selects it, for the cursor).
  unread: ['accountId', 'nameNorm'],
  create: (body) => columns(body),
  update: (body) => columns(body),
  refs,
};

/** How a deal is written; inbound webhook flows write deals through it too. */
export const dealSpec = journaled('deal', written);

/**
 * A deal's live tasks go to the trash with it, stamped with the same time, so that its restore
 * brings back exactly those (not the ones deleted before it).
 */
export const dealTrash: TrashSpec<typeof deals> = {
  table: deals,
  journal: dealSpec.journal,
  // Each task moved gets its own entry (task.deleted, task.restored), in the same batch.
  dependants: (db, account, id, now, actor) => {
    const itsTasks = and(eq(tasks.accountId, account), eq(tasks.dealId, id));
    const deal = (state: SQL) => and(eq(deals.accountId, account), eq(deals.id, id), state);
    const trashed = and(
      itsTasks,
      isNull(tasks.deletedAt),
      sql`exists (select 1 from ${deals} where ${deal(isNull(deals.deletedAt))})`,
    );
    const restored = and(
      itsTasks,
      eq(
        tasks.deletedAt,
        sql`(select ${deals.deletedAt} from ${deals} where ${deal(restorable(deals, now))})`,
      ),
    );
    const j = taskSpec.journal;
    return {
      trash: [
        j.before(db, trashed, 'deleted', actor, now),
        db.update(tasks).set({ deletedAt: now }).where(trashed),
        ...j.after(db, itsTasks, actor, now),
      ],
      restore: [
        j.before(db, restored, 'restored', actor, now),
        db.update(tasks).set({ deletedAt: null }).where(restored),
        ...j.after(db, itsTasks, actor, now),
      ],
    };
  },
};

type Query = z.infer<typeof DealQuery>;

/** The list's filters as conditions; a range on the sort column also bounds its walk. */
export const dealFilters = (q: Query, sortColumn: AnySQLiteColumn) => [
  q.company_id ? inIds(deals.companyId, q.company_id) : undefined,
  q.contact_id ? inIds(deals.contactId, q.contact_id) : undefined,
  q.owner_id ? inIds(deals.ownerId, q.owner_id) : undefined,
  q.status ? inArray(deals.status, q.status) : undefined,
  q.external_id ? eq(deals.externalId, q.external_id) : undefined,
  ...rangeConditions(deals.createdAt, q, 'created_at', sortColumn),
];
