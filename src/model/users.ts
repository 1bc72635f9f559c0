import type { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { iso, isoOrNull } from '../contracts/common';
import type { User, UserCreate, UserQuery, UserUpdate } from '../contracts/users';
import { normalizeText, searchableName } from '../core/text';
import { rangeConditions } from '../db/filters';
import type { WriteSpec } from '../db/own';
import { users } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { journaled } from '../journal';

export type UserRow = typeof users.$inferSelect;

export const presentUser = (row: UserRow): z.infer<typeof User> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  external_id: row.externalId,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  deleted_at: isoOrNull(row.deletedAt),
});

type Create = z.infer<typeof UserCreate>;
type Update = z.infer<typeof UserUpdate>;

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof users.$inferInsert> {
  return {
    ...(body.name !== undefined && searchableName(body.name)),
    ...(body.email !== undefined && { email: body.email, emailNorm: normalizeText(body.email) }),
    ...(body.external_id !== undefined && { externalId: body.external_id }),
  };
}

const written: WriteSpec<typeof users, Create, Update> = {
  table: users,
  create: (body) => columns(body),
  update: (body) => columns(body),
};

/** How a user is written. */
export const userSpec = journaled('user', written);

type Query = z.infer<typeof UserQuery>;

/** The list's filters as conditions; a range on the sort column also bounds its walk. */
export const userFilters = (q: Query, sortColumn: AnySQLiteColumn) => [
  q.email ? eq(users.emailNorm, normalizeText(q.email)) : undefined,
  q.external_id ? eq(users.externalId, q.external_id) : undefined,
  ...rangeConditions(users.createdAt, q, 'created_at', sortColumn),
];

export const userSearch = (q: Query) => search(searchIndexes.users, { name: q.name__contains });
