import type { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { accountOf, ownRow, scoped } from '../auth/tenant';
import { guardedWrite } from '../db/errors';
import { users } from '../db/schema';
import { bumped } from '../db/updated';
import { contains, rangeConditions } from '../domain/filters';
import { normalizeText } from '../domain/text';
import { router } from '../http/openapi';
import { keyset } from '../http/pagination';
import { notFound } from '../http/problem';
import { resourceRoutes, urlOf } from '../http/routes';
import { iso } from '../schemas/common';
import { User, UserCreate, UserQuery, UserUpdate } from '../schemas/users';

type Row = typeof users.$inferSelect;

const present = (row: Row): z.infer<typeof User> => ({
  id: row.id,
  name: row.name,
  email: row.email,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

type Create = z.infer<typeof UserCreate>;
type Update = z.infer<typeof UserUpdate>;

/** Body fields to columns; one mapping serves create (all fields) and update (the ones sent). */
function columns(body: Create): Pick<Row, 'name' | 'nameNorm' | 'email' | 'emailNorm'>;
function columns(body: Update): Partial<Row>;
function columns(body: Update): Partial<Row> {
  return {
    ...(body.name !== undefined && { name: body.name, nameNorm: normalizeText(body.name) }),
    ...(body.email !== undefined && { email: body.email, emailNorm: normalizeText(body.email) }),
  };
}

const routes = resourceRoutes(
  { tag: 'Users', one: 'user' },
  { resource: User, query: UserQuery, create: UserCreate, update: UserUpdate },
);

export const usersRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const page = keyset<Row>(users, { name: 'nameNorm', created_at: 'createdAt' }, q);
    const where = and(
      eq(users.accountId, accountOf(keyHash)),
      q.email ? eq(users.emailNorm, normalizeText(q.email)) : undefined,
      q.name__contains ? contains(users.nameNorm, q.name__contains) : undefined,
      ...rangeConditions(users.createdAt, [
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
        .from(users)
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
        .from(users)
        .where(ownRow(users, c.get('keyHash'), id)),
    );
    const row = rows[0];
    if (!row) throw notFound();
    return c.json({ data: present(row) }, 200);
  })
  .openapi(routes.create, async (c) => {
    const body = c.req.valid('json');
    const db = c.get('db');
    const [accountId] = await scoped(db, c.get('keyHash'));
    const now = Date.now();
    const [row] = await guardedWrite(
      db
        .insert(users)
        .values({ accountId, ...columns(body), createdAt: now, updatedAt: now })
        .returning(),
      'email',
    );
    if (!row) throw new Error('insert returned no row');
    c.header('Location', urlOf(c, `/v1/users/${row.id}`));
    return c.json({ data: present(row) }, 201);
  })
  .openapi(routes.update, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const db = c.get('db');
    const [accountId, existing] = await scoped(
      db,
      c.get('keyHash'),
      db
        .select({ id: users.id })
        .from(users)
        .where(ownRow(users, c.get('keyHash'), id)),
    );
    if (!existing[0]) throw notFound();
    const [row] = await guardedWrite(
      db
        .update(users)
        .set({ ...columns(body), updatedAt: bumped(users.updatedAt) })
        .where(and(eq(users.accountId, accountId), eq(users.id, id)))
        .returning(),
      'email',
    );
    if (!row) throw notFound();
    return c.json({ data: present(row) }, 200);
  });
