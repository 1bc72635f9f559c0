import { z } from '@hono/zod-openapi';
import {
  DeletedAt,
  Email,
  ExternalId,
  ExternalIdOut,
  Id,
  Name,
  Timestamp,
  trashQuery,
  writeBodies,
} from './common';
import { emailFilter, externalIdFilter, textFilter, timeRange } from './filters';
import { pageQuery, type Sorts } from './page';

const fields = { name: Name, email: Email, external_id: ExternalId };

const bodies = writeBodies(fields);
export const UserCreate = bodies.create.openapi('UserCreate');
export const UserUpdate = bodies.update.openapi('UserUpdate');

export const User = z
  .object({
    id: Id,
    name: z.string(),
    email: z.string(),
    external_id: ExternalIdOut,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('User');

/** Sortable fields and the row property each orders by (names sort case-insensitively). */
export const userSorts = { name: 'nameNorm', created_at: 'createdAt' } as const satisfies Sorts;

export const UserQuery = z.strictObject({
  ...trashQuery,
  ...pageQuery(userSorts),
  external_id: externalIdFilter,
  email: emailFilter.openapi({ description: 'Exact match, case-insensitive' }),
  name__contains: textFilter.openapi({
    description: 'Partial match, ignoring case and accents (`joao` finds "João")',
  }),
  ...timeRange('created_at'),
});
