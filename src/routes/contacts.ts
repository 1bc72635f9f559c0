import type { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { deletedAt, iso } from '../contracts/common';
import {
  Contact,
  ContactCreate,
  ContactQuery,
  ContactRemoveQuery,
  ContactUpdate,
  contactSorts,
} from '../contracts/contacts';
import { inIds, rangeConditions } from '../core/filters';
import type { Refs } from '../core/refs';
import { nameColumns, normalizeText } from '../core/text';
import { listOwn, type WriteSpec } from '../db/own';
import { contacts } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { eraseContact } from '../db/trash';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';

type Row = typeof contacts.$inferSelect;
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
  deleted_at: deletedAt(row.deletedAt),
});

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof contacts.$inferInsert> {
  return {
    ...(body.name !== undefined && nameColumns(body.name)),
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
  { tag: 'Contacts', one: 'contact', schema: 'Contact', plural: 'Contacts' },
  { resource: Contact, query: ContactQuery, create: ContactCreate, update: ContactUpdate },
);

/** How a contact is written; inbound webhook flows write contacts through it too. */
export const contactSpec: WriteSpec<typeof contacts, Update> = { table: contacts, columns, refs };

const handlers = ownHandlers('/v1/contacts', contactSpec, present);
const trash = trashRoutes(
  {
    tag: 'Contacts',
    one: 'contact',
    schema: 'Contact',
    removeNote:
      'Its deals stay and keep its id in `contact_id` until it is purged (then null). With `erase=true` (LGPD), the contact, live or in the trash, is deleted for good at once with every copy of its personal data: not restorable.',
  },
  { resource: Contact, remove: ContactRemoveQuery },
);
const trashed = trashHandlers(contactSpec, present);

export const contactsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<Row>(contacts, contactSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...contactSpec, trash: q.deleted },
      page,
      [
        q.company_id ? inIds(contacts.companyId, q.company_id) : undefined,
        q.owner_id ? inIds(contacts.ownerId, q.owner_id) : undefined,
        q.email ? eq(contacts.emailNorm, normalizeText(q.email)) : undefined,
        q.phone ? eq(contacts.phone, q.phone) : undefined,
        ...rangeConditions(contacts.createdAt, q, 'created_at', page.sortColumn),
      ],
      search(searchIndexes.contacts, { name: q.name__contains }),
    );
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, async (c) => {
    if (!c.req.valid('query').erase) return trashed.remove(c);
    await eraseContact(c.get('db'), c.get('keyHash'), c.req.valid('param').id);
    return c.body(null, 204);
  })
  .openapi(trash.restore, trashed.restore);
