import type { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { deletedAt, iso } from '../contracts/common';
import { User, UserCreate, UserQuery, UserUpdate, userSorts } from '../contracts/users';
import { rangeConditions } from '../core/filters';
import { nameColumns, normalizeText } from '../core/text';
import { listOwn, type WriteSpec } from '../db/own';
import { users } from '../db/schema';
import { search, searchIndexes } from '../db/search';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';

type Row = typeof users.$inferSelect;

const present = (row: Row): z.infer<typeof User> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  deleted_at: deletedAt(row.deletedAt),
});

type Create = z.infer<typeof UserCreate>;
type Update = z.infer<typeof UserUpdate>;

/** The fields a body sent, as columns: serves create (all required ones present) and update. */
function columns(body: Update): Partial<typeof users.$inferInsert> {
  return {
    ...(body.name !== undefined && nameColumns(body.name)),
    ...(body.email !== undefined && { email: body.email, emailNorm: normalizeText(body.email) }),
  };
}

const routes = resourceRoutes(
  { tag: 'Users', one: 'user', conflicts: true, schema: 'User', plural: 'Users' },
  { resource: User, query: UserQuery, create: UserCreate, update: UserUpdate },
);

const USER_NOTE =
  'The records it owns or follows keep its id until it is purged (then `owner_id` becomes null and it stops following); it can no longer be made an owner or follower, and its email stays taken until then.';

const spec: WriteSpec<typeof users, Create, Update> = {
  table: users,
  create: (body) => columns(body),
  update: (body) => columns(body),
  unique: 'email',
};

const handlers = ownHandlers('/v1/users', spec, present);
const trash = trashRoutes(
  { tag: 'Users', one: 'user', schema: 'User', removeNote: USER_NOTE },
  { resource: User },
);
const trashed = trashHandlers(spec, present);

export const usersRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<Row>(users, userSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...spec, trash: q.deleted },
      page,
      [
        q.email ? eq(users.emailNorm, normalizeText(q.email)) : undefined,
        ...rangeConditions(users.createdAt, q, 'created_at', page.sortColumn),
      ],
      search(searchIndexes.users, { name: q.name__contains }),
    );
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
