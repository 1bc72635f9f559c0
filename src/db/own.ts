import { and, eq, type SQL } from 'drizzle-orm';
import { accountOf, ownRow, scoped } from '../auth/tenant';
import type { keyset } from '../http/pagination';
import { notFound } from '../http/problem';
import type { Db } from './client';
import { guardedWrite } from './errors';
import { assertRefs, type Refs, refsQuery } from './refs';
import type { TenantTable } from './schema';
import { bumped } from './updated';

/** How a resource's write body becomes columns, which of its fields name other rows, and so on. */
export type WriteSpec<T extends TenantTable, B> = {
  table: T;
  columns: (body: B) => Partial<T['$inferInsert']>;
  refs?: (body: B) => Refs;
  /** Body field reported when a unique index refuses the write. */
  unique?: string;
};

// Drizzle cannot compute row types for a table that is a type parameter, so the generic
// functions below state them once, here.
type Select<T extends TenantTable> = T['$inferSelect'];

/** One page of the account's rows matching `filters`, in one round trip with the key check. */
export async function listOwn<T extends TenantTable>(
  db: Db,
  keyHash: string,
  table: T,
  page: ReturnType<typeof keyset>,
  filters: (SQL | undefined)[],
): Promise<Select<T>[]> {
  const t: TenantTable = table;
  const query = db
    .select()
    .from(t)
    .where(and(eq(t.accountId, accountOf(keyHash)), ...filters, page.after))
    .orderBy(...page.orderBy)
    .limit(page.fetch);
  const [, rows] = await scoped(db, keyHash, query);
  return rows as Select<T>[];
}

/** The account's row `id`, or 404, in one round trip with the key check. */
export async function getOwn<T extends TenantTable>(
  db: Db,
  keyHash: string,
  table: T,
  id: number,
): Promise<Select<T>> {
  const t: TenantTable = table;
  const [, rows] = await scoped(
    db,
    keyHash,
    db
      .select()
      .from(t)
      .where(ownRow(t, keyHash, id)),
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row as Select<T>;
}

/** Two round trips: the key and the references in one batch, then the insert. */
export async function createOwn<T extends TenantTable, B>(
  db: Db,
  keyHash: string,
  spec: WriteSpec<T, B>,
  body: B,
): Promise<Select<T>> {
  const refs = spec.refs?.(body) ?? {};
  const [accountId, found] = await scoped(db, keyHash, refsQuery(db, accountOf(keyHash), refs));
  assertRefs(found, refs);
  const now = Date.now();
  const t: TenantTable = spec.table;
  const values = { ...spec.columns(body), accountId, createdAt: now, updatedAt: now } as T['$inferInsert'];
  const [row] = await guardedWrite(db.insert(t).values(values).returning(), spec.unique);
  if (!row) throw new Error('insert returned no row');
  return row as Select<T>;
}

/** Two round trips: the key, the row's existence and the references in one batch, then the update. */
export async function updateOwn<T extends TenantTable, B>(
  db: Db,
  keyHash: string,
  spec: WriteSpec<T, B>,
  id: number,
  body: B,
): Promise<Select<T>> {
  const refs = spec.refs?.(body) ?? {};
  const t: TenantTable = spec.table;
  const [accountId, existing, found] = await scoped(
    db,
    keyHash,
    db
      .select({ id: t.id })
      .from(t)
      .where(ownRow(t, keyHash, id)),
    refsQuery(db, accountOf(keyHash), refs),
  );
  if (!existing[0]) throw notFound();
  assertRefs(found, refs);
  const [row] = await guardedWrite(
    db
      .update(t)
      .set({ ...spec.columns(body), updatedAt: bumped(t.updatedAt) })
      .where(and(eq(t.accountId, accountId), eq(t.id, id)))
      .returning(),
    spec.unique,
  );
  if (!row) throw notFound();
  return row as Select<T>;
}
