import { User, UserCreate, UserQuery, UserUpdate, userSorts } from '../contracts/users';
import { listOwn } from '../db/own';
import { users } from '../db/schema';
import { ownHandlers, trashHandlers } from '../http/handlers';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import { resources } from '../model/resources';
import { presentUser, type UserRow, userFilters, userSearch, userSpec } from '../model/users';

const routes = resourceRoutes(
  { ...resources.users.names, conflicts: true },
  { resource: User, query: UserQuery, create: UserCreate, update: UserUpdate },
);

const USER_NOTE =
  'The records it owns or follows keep its id until it is purged (then `owner_id` becomes null and it stops following); it can no longer be made an owner or follower, and its email stays taken until then.';

const handlers = ownHandlers('/v1/users', userSpec, presentUser);
const trash = trashRoutes({ ...resources.users.names, removeNote: USER_NOTE }, { resource: User });
const trashed = trashHandlers(userSpec, presentUser);

export const usersRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<UserRow>(users, userSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...userSpec, trash: q.deleted },
      page,
      userFilters(q, page.sortColumn),
      userSearch(q),
    );
    return c.json(page.page(c, rows, presentUser), 200);
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore);
