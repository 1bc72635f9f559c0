import type { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import { accountOf, ownRow, scoped } from '../auth/tenant';
import { guardedWrite } from '../db/errors';
import { assertRefs, type Refs, refsQuery } from '../db/refs';
import { contacts } from '../db/schema';
import { bumped } from '../db/updated';
import { contains, rangeConditions } from '../domain/filters';
import { normalizeText } from '../domain/text';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { notFound } from '../http/problem';
import { resourceRoutes, urlOf } from '../http/routes';
import { iso } from '../schemas/common';
import { Contact, ContactCreate, ContactQuery, ContactUpdate } from '../schemas/contacts';

type Row = typeof contacts.$inferSelect;
type Create = z.infer<typeof ContactCreate>;
type Update = z.infer<typeof ContactUpdate>;

const present = (row: Row): z.infer<typeof Contact> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  company_id: row.companyId,
  owner_id: row.ownerId,
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
    ...(body.email !== undefined && {
      email: body.email,
      emailNorm: body.email && normalizeText(body.email),
    }),
    ...(body.phone !== undefined && { phone: body.phone }),
    ...(body.company_id !== undefined && { companyId: body.company_id }),
    ...(body.owner_id !== undefined && { ownerId: body.owner_id }),
    ...(body.custom_fields !== undefined && { customFields: body.custom_fields }),
  };
}

const refs = (body: Update): Refs => ({
  company_id: ['company', body.company_id],
  owner_id: ['user', body.owner_id],
});

const routes = resourceRoutes(
  { tag: 'Contacts', one: 'contact' },
  { resource: Contact, query: ContactQuery, create: ContactCreate, update: ContactUpdate },
);

export const contactsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const page = keyset<Row>(contacts, { name: 'nameNorm', created_at: 'createdAt' }, q);
    const where = and(
      eq(contacts.accountId, accountOf(keyHash)),
      q.company_id ? inArray(contacts.companyId, q.company_id) : undefined,
      q.owner_id ? inArray(contacts.ownerId, q.owner_id) : undefined,
      q.email ? eq(contacts.emailNorm, normalizeText(q.email)) : undefined,
      q.phone ? eq(contacts.phone, q.phone) : undefined,
      q.name__contains ? contains(contacts.nameNorm, q.name__contains) : undefined,
      ...rangeConditions(contacts.createdAt, [
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
        .from(contacts)
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
        .from(contacts)
        .where(ownRow(contacts, c.get('keyHash'), id)),
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
        .insert(contacts)
        .values({ accountId, ...columns(body), createdAt: now, updatedAt: now })
        .returning(),
      'email',
    );
    if (!row) throw new Error('insert returned no row');
    c.header('Location', urlOf(c, `/v1/contacts/${row.id}`));
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
        .select({ id: contacts.id })
        .from(contacts)
        .where(ownRow(contacts, keyHash, id)),
      refsQuery(db, accountOf(keyHash), refs(body)),
    );
    if (!existing[0]) throw notFound();
    assertRefs(found, refs(body));
    const [row] = await guardedWrite(
      db
        .update(contacts)
        .set({ ...columns(body), updatedAt: bumped(contacts.updatedAt) })
        .where(and(eq(contacts.accountId, accountId), eq(contacts.id, id)))
        .returning(),
      'email',
    );
    if (!row) throw notFound();
    return c.json({ data: present(row) }, 200);
  });
