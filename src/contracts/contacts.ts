import { z } from '@hono/zod-openapi';
import {
  CustomFields,
  DeletedAt,
  Email,
  ExternalId,
  ExternalIdOut,
  Id,
  Name,
  Phone,
  PhoneOut,
  queryFlag,
  Timestamp,
  trashQuery,
  writeBodies,
} from './common';
import { emailFilter, externalIdFilter, idList, textFilter, timeRange } from './filters';
import { pageQuery, type Sorts } from './page';
import { keyedBodies } from './relation-keys';

const fields = {
  name: Name,
  email: Email.nullable().optional(),
  phone: Phone.nullable().optional(),
  company_id: Id.nullable().optional().openapi({ description: 'A company of the account' }),
  owner_id: Id.nullable().optional().openapi({ description: 'A user of the account' }),
  custom_fields: CustomFields.optional().openapi({ description: 'Replaces the whole object when sent' }),
  external_id: ExternalId,
};

const bodies = writeBodies(fields);
// The fields alone (the model, the flows, a batch item's fields) and the routes' bodies, which add
// relations by natural key.
export const ContactCreate = bodies.create;
export const ContactUpdate = bodies.update;
const requests = keyedBodies('contact', fields);
export const ContactCreateRequest = requests.create.openapi('ContactCreate');
export const ContactUpdateRequest = requests.update.openapi('ContactUpdate');

export const Contact = z
  .object({
    id: Id,
    name: z.string(),
    email: z.string().nullable(),
    phone: PhoneOut.nullable(),
    company_id: Id.nullable(),
    owner_id: Id.nullable(),
    custom_fields: CustomFields,
    external_id: ExternalIdOut,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('Contact');

/** Sortable fields and the row property each orders by (names sort case-insensitively). */
export const contactSorts = { name: 'nameNorm', created_at: 'createdAt' } as const satisfies Sorts;

export const ContactQuery = z.strictObject({
  ...trashQuery,
  ...pageQuery(contactSorts),
  company_id: idList,
  owner_id: idList,
  external_id: externalIdFilter,
  email: emailFilter.openapi({ description: 'Exact match, case-insensitive' }),
  phone: Phone.optional().openapi({ description: 'Exact match after normalising to E.164' }),
  name__contains: textFilter.openapi({
    description: 'Partial match, ignoring case and accents (`joao` finds "João")',
  }),
  ...timeRange('created_at'),
});

export const ContactRemoveQuery = z.strictObject({
  erase: queryFlag('`true`: erase it for good (LGPD) instead of moving it to the trash'),
});
