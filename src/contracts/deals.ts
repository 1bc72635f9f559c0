import { z } from '@hono/zod-openapi';
import { dealStatuses } from '../core/statuses';
import {
  CustomFields,
  DeletedAt,
  ExternalId,
  ExternalIdOut,
  Id,
  Name,
  Timestamp,
  trashQuery,
  writeBodies,
} from './common';
import { externalIdFilter, idList, timeRange } from './filters';
import { pageQuery, type Sorts } from './page';
import { keyedBodies } from './relation-keys';

export const DealStatus = z.enum(dealStatuses).openapi('DealStatus');

const fields = {
  name: Name,
  company_id: Id.nullable().optional().openapi({ description: 'A company of the account' }),
  contact_id: Id.nullable().optional().openapi({ description: 'A contact of the account' }),
  owner_id: Id.nullable().optional().openapi({ description: 'A user of the account' }),
  status: DealStatus.optional().openapi({ description: '`open` when created without it' }),
  value: z.number().finite().min(-1e15).max(1e15).nullable().optional(),
  custom_fields: CustomFields.optional().openapi({ description: 'Replaces the whole object when sent' }),
  external_id: ExternalId,
};

const bodies = writeBodies(fields);
// The fields alone (the model, the flows, a batch item's fields) and the routes' bodies, which add
// relations by natural key.
export const DealCreate = bodies.create;
export const DealUpdate = bodies.update;
const requests = keyedBodies('deal', fields);
export const DealCreateRequest = requests.create.openapi('DealCreate');
export const DealUpdateRequest = requests.update.openapi('DealUpdate');

export const Deal = z
  .object({
    id: Id,
    name: z.string(),
    company_id: Id.nullable(),
    contact_id: Id.nullable(),
    owner_id: Id.nullable(),
    status: DealStatus,
    value: z.number().nullable(),
    custom_fields: CustomFields,
    external_id: ExternalIdOut,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('Deal');

/** Sortable fields and the row property each orders by (names sort case-insensitively). */
export const dealSorts = {
  name: 'nameNorm',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
} as const satisfies Sorts;

const statusList = z
  .string()
  .max(100)
  .transform((value, ctx) => {
    const statuses = value.split(',').map((s) => DealStatus.safeParse(s.trim()));
    if (statuses.some((s) => !s.success)) {
      ctx.addIssue({
        code: 'custom',
        message: `Expected ${dealStatuses.join(', ')} or a comma-separated list.`,
      });
      return z.NEVER;
    }
    return statuses.flatMap((s) => (s.success ? [s.data] : []));
  })
  .optional()
  .openapi({
    example: 'open,won',
    description: `A status or a comma-separated list: ${dealStatuses.join(', ')}`,
    // Each status trimmed as the API trims it (\s is the whitespace trim() removes).
    pattern: `^\\s*(?:${dealStatuses.join('|')})\\s*(?:,\\s*(?:${dealStatuses.join('|')})\\s*)*$`,
  });

export const DealQuery = z.strictObject({
  ...trashQuery,
  ...pageQuery(dealSorts),
  company_id: idList,
  contact_id: idList,
  owner_id: idList,
  status: statusList,
  external_id: externalIdFilter,
  ...timeRange('created_at'),
});
