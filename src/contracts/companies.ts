import { z } from '@hono/zod-openapi';
import { BARE, canonicalCnpj, MASKED, reservedCnpj } from '../core/cnpj';
import { inner } from '../core/filters';
import { expectedWords } from '../core/said';
import {
  DeletedAt,
  ExternalId,
  ExternalIdOut,
  Id,
  Name,
  OptionalText,
  Timestamp,
  trashQuery,
  writeBodies,
} from './common';
import { exactFilter, externalIdFilter, idList, textFilter, timeRange } from './filters';
import { pageQuery, type Sorts } from './page';
import { keyedBodies } from './relation-keys';

export const Cnpj = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const cnpj = canonicalCnpj(value);
    if (cnpj === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: reservedCnpj(value)
          ? 'A CNPJ of one repeated character (such as 00.000.000/0000-00) is reserved: no company has it.'
          : `Expected ${expectedWords('cnpj')}.`,
        params: { code: 'invalid', params: { expected: 'cnpj' } },
      });
      return z.NEVER;
    }
    return cnpj;
  })
  .openapi({
    example: '12.ABC.345/01DE-35',
    // Surrounding whitespace is trimmed; the check digits are the API's to verify.
    pattern: `^\\s*(?:${inner(BARE)}|${inner(MASKED)})\\s*$`,
    description:
      'Numeric or alphanumeric CNPJ, with or without the mask; returned as 14 upper-case characters without it. Cannot change once set',
  });

const fields = {
  name: Name,
  cnpj: Cnpj,
  owner_id: Id.nullable().optional().openapi({ description: 'A user of the account: who is responsible' }),
  segment: OptionalText(255),
  observations: OptionalText(10_000),
  follower_ids: z
    .array(Id)
    .max(100)
    .optional()
    .openapi({ description: 'Users of the account; replaces the whole set when sent' }),
  external_id: ExternalId,
};

const readOnly = {
  deal_count: 'The API counts the open deals of the company.',
  lead_count: 'The API counts the contacts of the company.',
};
const bodies = writeBodies(fields, readOnly);
// The fields alone (the model, the flows, a batch item's fields) and the routes' bodies, which add
// relations by natural key.
export const CompanyCreate = bodies.create;
export const CompanyUpdate = bodies.update;
const requests = keyedBodies('company', fields, readOnly);
export const CompanyCreateRequest = requests.create.openapi('CompanyCreate');
export const CompanyUpdateRequest = requests.update.openapi('CompanyUpdate');

export const Company = z
  .object({
    id: Id,
    name: z.string(),
    cnpj: z.string().openapi({ example: '12ABC34501DE35', pattern: '^[0-9A-Z]{12}\\d{2}$' }),
    owner_id: Id.nullable(),
    segment: z.string().nullable(),
    observations: z.string().nullable(),
    follower_ids: z.array(Id).openapi({ description: 'Ascending; `[]` when none' }),
    deal_count: z.number().int().openapi({ readOnly: true, description: 'Open deals of the company' }),
    lead_count: z.number().int().openapi({ readOnly: true, description: 'Contacts of the company' }),
    external_id: ExternalIdOut,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('Company');

/** Sortable fields and the row property each orders by (names sort case-insensitively). */
export const companySorts = { name: 'nameNorm', created_at: 'createdAt' } as const satisfies Sorts;

export const CompanyQuery = z.strictObject({
  ...trashQuery,
  ...pageQuery(companySorts),
  name: exactFilter.openapi({ description: 'Exact match, case-insensitive' }),
  name__contains: textFilter.openapi({
    description: 'Partial match, ignoring case and accents (`joao` finds "João")',
  }),
  cnpj: z.string().max(40).optional().openapi({ description: 'Exact match, with or without the mask' }),
  owner_id: idList,
  external_id: externalIdFilter,
  segment: exactFilter.openapi({ description: 'Exact match, case-insensitive' }),
  segment__contains: textFilter.openapi({
    description: 'Partial match, ignoring case and accents (`joao` finds "João")',
  }),
  ...timeRange('created_at'),
});
