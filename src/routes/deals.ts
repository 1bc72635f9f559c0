import type { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import { accountOf, ownRow, scoped } from '../auth/tenant';
import { guardedWrite } from '../db/errors';
import { assertRefs, type Refs, refsQuery } from '../db/refs';
import { deals } from '../db/schema';
import { bumped } from '../db/updated';
import { rangeConditions } from '../domain/filters';
import { normalizeText } from '../domain/text';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { notFound } from '../http/problem';
import { resourceRoutes, urlOf } from '../http/routes';
import { iso } from '../schemas/common';
import { Deal, DealCreate, DealQuery, DealUpdate } from '../schemas/deals';

type Row = typeof deals.$inferSelect;
type Create = z.infer<typeof DealCreate>;
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
});

/** Body fields to columns; one mapping serves create (all fields) and update (the ones sent). */
function columns(body: Create): Pick<Row, 'name' | 'nameNorm'> & Partial<Row>;
function columns(body: Update): Partial<Row>;
function columns(body: Update): Partial<Row> {
  return {
    ...(body.name !== undefined && { name: body.name, nameNorm: normalizeText(body.name) }),
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
  { tag: 'Deals', one: 'deal' },
  { resource: Deal, query: DealQuery, create: DealCreate, update: DealUpdate },
);

export const dealsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const page = keyset<Row>(
      deals,
      { name: 'nameNorm', created_at: 'createdAt', updated_at: 'updatedAt' },
      q,
    );
    const where = and(
      eq(deals.accountId, accountOf(keyHash)),
      q.company_id ? inArray(deals.companyId, q.company_id) : undefined,
      q.contact_id ? inArray(deals.contactId, q.contact_id) : undefined,
      q.owner_id ? inArray(deals.ownerId, q.owner_id) : undefined,
      q.status ? inArray(deals.status, q.status) : undefined,
      ...rangeConditions(deals.createdAt, [
        q.created_at__gte,
        q.created_at__lte,
        q.created_at__gt,
        q.created_at__lt,
      ]),
      page.after,
    );
    const [, rows] = await scoped(
      db,
      keyHash,
      db
        .select()
        .from(deals)
        .where(where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    );
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, async (c) => {
    const { id } = c.req.valid('param');
    const db = c.get('db');
    const [, rows] = await scoped(
      db,
      c.get('keyHash'),
      db
        .select()
        .from(deals)
        .where(ownRow(deals, c.get('keyHash'), id)),
    );
    const row = rows[0];
    if (!row) throw notFound();
    return c.json({ data: present(row) }, 200);
  })
  .openapi(routes.create, async (c) => {
    const body = c.req.valid('json');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const [accountId, found] = await scoped(db, keyHash, refsQuery(db, accountOf(keyHash), refs(body)));
    assertRefs(found, refs(body));
    const now = Date.now();
    const [row] = await guardedWrite(
      db
        .insert(deals)
        .values({ accountId, ...columns(body), createdAt: now, updatedAt: now })
        .returning(),
      'id',
    );
    if (!row) throw new Error('insert returned no row');
    c.header('Location', urlOf(c, `/v1/deals/${row.id}`));
    return c.json({ data: present(row) }, 201);
  })
  .openapi(routes.update, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const [accountId, existing, found] = await scoped(
      db,
      keyHash,
      db
        .select({ id: deals.id })
        .from(deals)
        .where(ownRow(deals, keyHash, id)),
      refsQuery(db, accountOf(keyHash), refs(body)),
    );
    if (!existing[0]) throw notFound();
    assertRefs(found, refs(body));
    const [row] = await guardedWrite(
      db
        .update(deals)
        .set({ ...columns(body), updatedAt: bumped(deals.updatedAt) })
        .where(and(eq(deals.accountId, accountId), eq(deals.id, id)))
        .returning(),
      'id',
    );
    if (!row) throw notFound();
    return c.json({ data: present(row) }, 200);
  });
