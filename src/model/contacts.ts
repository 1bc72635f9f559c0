import type { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { iso, isoOrNull } from '../contracts/common';
import type { Contact, ContactCreate, ContactQuery, ContactUpdate } from '../contracts/contacts';
import type { Refs } from '../core/refs';
import { normalizeText, searchableName } from '../core/text';
import { inIds, rangeConditions } from '../db/filters';
import type { WriteSpec } from '../db/own';
import { contacts } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { journaled } from '../journal';

export type ContactRow = typeof contacts.$inferSelect;
type Create = z.infer<typeof ContactCreate>;
type Update = z.infer<typeof ContactUpdate>;

export const presentContact = (row: ContactRow): z.infer<typeof Contact> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  phone: row.phone,
  company_id: row.companyId,
  owner_id: row.ownerId,
  custom_fields: row.customFields,
  external_id: row.externalId,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  deleted_at: isoOrNull(row.deletedAt),
});

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof contacts.$inferInsert> {
  return {
    ...(body.name !== undefined && searchableName(body.name)),
    ...(body.email !== undefined && {
      email: body.email,
      emailNorm: body.email && normalizeText(body.email),
    }),
    ...(body.phone !== undefined && { phone: body.phone }),
    ...(body.company_id !== undefined && { companyId: body.company_id }),
    ...(body.owner_id !== undefined && { ownerId: body.owner_id }),
    ...(body.custom_fields !== undefined && { customFields: body.custom_fields }),
    ...(body.external_id !== undefined && { externalId: body.external_id }),
  };
}

const refs = (body: Update): Refs => ({
  company_id: ['company', body.company_id],
  owner_id: ['user', body.owner_id],
});

const written: WriteSpec<typeof contacts, Create, Update> = {
  table: contacts,
  // Read by no presenter (a sort by one of them still selects it, for the cursor).
  unread: ['accountId', 'nameNorm', 'nameFold', 'emailNorm'],
  create: (body) => columns(body),
  update: (body) => columns(body),
  refs,
};

/** How a contact is written; inbound webhook flows write contacts through it too. */
export const contactSpec = journaled('contact', written);

type Query = z.infer<typeof ContactQuery>;

/** The list's filters as conditions; a range on the sort column also bounds its walk. */
export const contactFilters = (q: Query, sortColumn: AnySQLiteColumn) => [
  q.company_id ? inIds(contacts.companyId, q.company_id) : undefined,
  q.owner_id ? inIds(contacts.ownerId, q.owner_id) : undefined,
  q.external_id ? eq(contacts.externalId, q.external_id) : undefined,
  q.email ? eq(contacts.emailNorm, normalizeText(q.email)) : undefined,
  q.phone ? eq(contacts.phone, q.phone) : undefined,
  ...rangeConditions(contacts.createdAt, q, 'created_at', sortColumn),
];

export const contactSearch = (q: Query) => search(searchIndexes.contacts, { name: q.name__contains });
