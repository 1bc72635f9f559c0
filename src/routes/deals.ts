import type { z } from '@hono/zod-openapi';
import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { deletedAt, iso } from '../contracts/common';
import { Deal, DealCreate, DealQuery, DealUpdate, dealSorts } from '../contracts/deals';
import { inIds, rangeConditions } from '../core/filters';
import type { Refs } from '../core/refs';
import { nameColumns } from '../core/text';
import { restorable } from '../db/live';
import { listOwn, type WriteSpec } from '../db/own';
import { deals, tasks } from '../db/schema';
import type { TrashSpec } from '../db/trash';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';

type Row = typeof deals.$inferSelect;
type Update = z.infer<typeof DealUpdate>;

const present = (row: Row): z.infer<typeof Deal> => ({
  id: row.id,
  name: row.name,
  company_id: row.companyId,
  contact_id: row.contactId,
  owner_id: row.ownerId,
  status: row.status,
  value: row.value,
  custom_fields: row.customFields,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  deleted_at: deletedAt(row.deletedAt),
});

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
  };
}

const refs = (body: Update): Refs => ({
  company_id: ['company', body.company_id],
  contact_id: ['contact', body.contact_id],
  owner_id: ['user', body.owner_id],
});

const routes = resourceRoutes(
  { tag: 'Deals', one: 'deal', schema: 'Deal', plural: 'Deals' },
  { resource: Deal, query: DealQuery, create: DealCreate, update: DealUpdate },
);

/** How a deal is written; inbound webhook flows write deals through it too. */
export const dealSpec: WriteSpec<typeof deals, Update> = { table: deals, columns, refs };

const handlers = ownHandlers('/v1/deals', dealSpec, present);

/**
 * A deal's live tasks go to the trash with it, stamped with the same time, so that its restore
 * brings back exactly those (not the ones deleted before it).
 */
const dealTrash: TrashSpec<typeof deals> = {
  table: deals,
  dependants: (db, account, id, now) => {
    const itsTasks = and(eq(tasks.accountId, account), eq(tasks.dealId, id));
    const deal = (state: SQL) => and(eq(deals.accountId, account), eq(deals.id, id), state);
    return {
      trash: [
        db
          .update(tasks)
          .set({ deletedAt: now })
          .where(
            and(
              itsTasks,
              isNull(tasks.deletedAt),
              sql`exists (select 1 from ${deals} where ${deal(isNull(deals.deletedAt))})`,
            ),
          ),
      ],
      restore: [
        db
          .update(tasks)
          .set({ deletedAt: null })
          .where(
            and(
              itsTasks,
              eq(
                tasks.deletedAt,
                sql`(select ${deals.deletedAt} from ${deals} where ${deal(restorable(deals, now))})`,
              ),
            ),
          ),
      ],
    };
  },
};
const trash = trashRoutes(
  {
    tag: 'Deals',
    one: 'deal',
    schema: 'Deal',
    removeNote:
      'Its tasks go to the trash with it, and come back with its restore. Contacts and companies are not touched.',
  },
  { resource: Deal },
);
const trashed = trashHandlers(dealTrash, present);

export const dealsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<Row>(deals, dealSorts, q);
    const rows = await listOwn(c.get('db'), c.get('keyHash'), { ...dealSpec, trash: q.deleted }, page, [
      q.company_id ? inIds(deals.companyId, q.company_id) : undefined,
      q.contact_id ? inIds(deals.contactId, q.contact_id) : undefined,
      q.owner_id ? inIds(deals.ownerId, q.owner_id) : undefined,
      q.status ? inArray(deals.status, q.status) : undefined,
      ...rangeConditions(deals.createdAt, q, 'created_at', page.sortColumn),
    ]);
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
