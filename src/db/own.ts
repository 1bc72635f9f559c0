import {
  and,
  asc,
  Column,
  desc,
  eq,
  getTableColumns,
  getTableName,
  inArray,
  is,
  not,
  notExists,
  or,
  SQL,
  sql,
} from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import {
  type SelectedFields,
  type SQLiteInsertSelectQueryBuilder,
  type SQLiteInsertValue,
  type SQLiteUpdateSetSource,
  unionAll,
} from 'drizzle-orm/sqlite-core';
import { conflict, invalid, notFound, rootMessage } from '../core/errors';
import type { Refs } from '../core/refs';
import type { Db } from './client';
import { guardedWrite } from './errors';
import type { Actor, Journaling } from './journaling';
import type { PagePlan } from './keyset';
import { live, restorable } from './live';
import { assertRefs, refsQuery } from './refs';
import { accounts, type ResourceTable, type TenantTable } from './schema';
import { PROBED_ROWS, type Search, searchPlan } from './search';
import { shapes } from './shapes';
import { accountOf, type KeyRef, ownRow, scoped } from './tenant';
import { bumped, created } from './updated';
import { constantId, insertRow, updateRow } from './write-shapes';

/** Read-only fields computed in the same statement as the row (counts, child ids, a name). */
export type Extras = Record<string, SQL>;

type Statements = BatchItem<'sqlite'>[];

// Drizzle cannot compute row types for a table that is a type parameter, so the generic
// functions below state them once, here.
type Select<T extends TenantTable> = T['$inferSelect'];

/** Column values a write sets: plain values, or SQL such as a subquery. */
export type Columns<T extends ResourceTable> = Partial<SQLiteInsertValue<T>>;

/** A row with its extras' values. */
export type Viewed<T extends TenantTable, X extends Extras> = Select<T> & {
  [K in keyof X]: X[K] extends SQL<infer V> ? V : never;
};

/**
 * How a resource reads and writes: its table, its extras, and how a body becomes rows. `C` is the
 * create body and `U` the update body (each the output of its contract). A write runs its
 * statements in one order: `before`, the row (`create` or `update`), `children`, the read back.
 */
export type WriteSpec<T extends ResourceTable, C, U = C, X extends Extras = Extras> = {
  table: T;
  extras?: X;
  /** Columns its presenter never reads: a list and a get leave them out (see `shown`). */
  unread?: Unread<T>;
  /** The columns of a new row. */
  /** `shard`: the one the row is written on, for a column that names it (a webhook's token). */
  create: (body: C, accountId: number, shard: number) => Columns<T>;
  /** The columns an update sets (they may refer to the row's current values). */
  update: (body: U, accountId: number) => Columns<T>;
  refs?: (body: C | U) => Refs;
  /** Fields a PUT may repeat but never change: body field -> row property. */
  immutable?: Partial<Record<string, keyof Select<T>>>;
  /** Statements that must run before the row's own write (e.g. creating a category it names). */
  before?: (db: Db, body: C | U, accountId: number) => Statements;
  /**
   * Statements that replace the row's child rows. `id` is the row's: on create, SQL that names the
   * row the same batch just inserted (see `insertedId`).
   */
  children?: (db: Db, body: C | U, accountId: number, id: number | SQL<number>) => Statements;
  /** Rules an update must keep that involve the current row, beyond what the body schema checks. */
  validate?: (body: U, current: Select<T>) => void;
  /** Its change journal (src/journal/): every write through the spec appends its entries. */
  journal?: Journaling;
};

/** The row a create inserts: the body's columns, the account, and both timestamps (see `created`). */
export const newRow = <T extends ResourceTable, C>(
  db: Db,
  spec: WriteSpec<T, C, never, Extras>,
  body: NoInfer<C>,
  accountId: number,
  now: number,
) => {
  const stamp = created(spec.table, accountId, now);
  return {
    ...spec.create(body, accountId, db.shard),
    accountId,
    createdAt: stamp,
    updatedAt: stamp,
  } as SQLiteInsertValue<T>;
};

/** The columns an update sets: the body's, and a fresh updated_at. */
export const changedColumns = <T extends ResourceTable, U>(
  spec: WriteSpec<T, never, U, Extras>,
  body: NoInfer<U>,
  accountId: number,
) =>
  ({
    ...spec.update(body, accountId),
    updatedAt: bumped(spec.table.updatedAt),
  }) as SQLiteUpdateSetSource<T>;

/** `fields` of the rows `where` selects, from `table` itself or from `from` (SQL naming it). */
function select(db: Db, table: TenantTable, fields: SelectedFields, where: SQL | undefined, from?: SQL) {
  // Drizzle refuses a table's own columns when the FROM is SQL, so there they go in as SQL, still
  // decoded by their column.
  const selected = from
    ? Object.fromEntries(
        Object.entries(fields).map(([key, f]) => [key, is(f, Column) ? sql`${f}`.mapWith(f) : f]),
      )
    : fields;
  return db
    .select(selected)
    .from(from ?? table)
    .where(where);
}

/** The row and its extras, for the rows `where` selects. */
export function view(
  db: Db,
  table: TenantTable,
  extras: Extras | undefined,
  where: SQL | undefined,
  from?: SQL,
) {
  return select(db, table, { ...getTableColumns(table), ...extras } as SelectedFields, where, from);
}

/** Columns of `T`'s rows that no reader of a list or a get uses. */
export type Unread<T extends TenantTable> = readonly (keyof Select<T> & string)[];

/**
 * What a list or a get selects: the row and its extras less the `unread` columns (fewer cells
 * for D1 to send and for the binding and the row mapping to copy), keeping `sortColumn`, which a
 * cursor is made of.
 */
function shown(
  spec: { table: TenantTable; extras?: Extras; unread?: readonly string[] },
  sortColumn?: Column,
): SelectedFields {
  const unread: readonly string[] = spec.unread ?? [];
  const columns = Object.entries(getTableColumns(spec.table)).filter(
    ([key, column]) => column === sortColumn || !unread.includes(key),
  );
  return { ...Object.fromEntries(columns), ...spec.extras } as SelectedFields;
}

/** `table` without its indexes: a query on it can only look rows up by id. */
const unindexed = (table: TenantTable): SQL => sql`${table} not indexed`;

/**
 * FROM and WHERE for a query on `from` that reads nothing unless `when` holds. A condition holding
 * a subquery is checked row by row, inside the loop (a false one would make a walk read every
 * row). Here the outer loop is the account's one row (SQLite never reorders a CROSS JOIN), where
 * `when` is checked once, before the walk starts; and a one-row outer loop keeps the walk's order.
 */
function gated(when: SQL | undefined, account: SQL<number>, from: SQL) {
  return {
    // Renamed, so that no column of the gate shares a name with one of `from`; SQLite flattens
    // the subquery into a primary key lookup.
    from: sql`(select id as gate_id from ${accounts}) as gate cross join ${from}`,
    where: (...conditions: (SQL | undefined)[]) => and(sql`gate_id = ${account}`, when, ...conditions),
  };
}

/** The pieces of a list's statement that hold the request's values (see `shapes`), made once. */
function listPieces(keyHash: KeyRef, spec: AnyListSpec, search: Search | undefined) {
  const t = spec.table;
  return {
    account: accountOf(keyHash),
    // Not among `filters`: the ends of a search walk and the probe stay on their covering indexes,
    // and the rows they pass are checked here anyway.
    state: spec.trash && 'deletedAt' in t ? restorable(t, Date.now()) : live(t),
    match: search?.match && { table: search.match.table, query: sql`${search.match.query}` },
  };
}

type ListPieces = ReturnType<typeof listPieces>;

/**
 * The query for one page of the account's rows matching `filters` and `search`. A page made of
 * several walks (see db/keyset.ts) is their UNION ALL, merged in page order.
 */
export function listQuery<T extends TenantTable>(
  db: Db,
  keyHash: KeyRef,
  spec: ListSpec<T>,
  page: PagePlan,
  filters: (SQL | undefined)[],
  search?: Search,
) {
  return buildList(db, spec, page, filters, search, listPieces(keyHash, spec, search));
}

/** `listQuery` from its pieces. */
function buildList(
  db: Db,
  spec: AnyListSpec,
  page: PagePlan,
  filters: (SQL | undefined)[],
  search: Search | undefined,
  { account, state, match }: ListPieces,
) {
  const t: TenantTable = spec.table;
  const fields = shown(spec, page.sortColumn);
  const mine = [eq(t.accountId, account), state, ...filters, ...(search?.exact ?? [])];
  if (search && match && 'createdAt' in t && page.sortColumn === t.createdAt) {
    // The account's rows are in the same order by created_at as by id (drizzle/0006_...), and so
    // are the search index's matches: walk those between the first and the last row of the
    // filtered walk, and stop once the page is full. Reads as many rows as the page needs,
    // however common or rare the value. created_at is never null: one walk.
    const walk = page.walks[0];
    const end = (order: typeof asc) =>
      select(db, t, { id: t.id }, and(eq(t.accountId, account), ...filters, walk))
        .orderBy(order(page.sortColumn), order(t.id))
        .limit(1);
    const found = searchPlan(match, account).inIdOrder(t, sql`(${end(asc)})`, sql`(${end(desc)})`);
    const checked = [eq(t.accountId, account), state, ...filters, ...search.folded];
    return select(db, t, fields, and(found.where, ...checked, walk), found.from)
      .orderBy(found.order(page.descending))
      .limit(page.fetch);
  }
  const [first, second, ...more] = page.walks.flatMap((walk) => {
    if (!search || !match) return [select(db, t, fields, and(...mine, walk))];
    // Two ways to the page, each behind its gate, so that exactly one reads rows. With few matches
    // (and not dense), from the search index (NOT INDEXED leaves the planner rowid lookups of the
    // matches only), their first page sorted before the extras are computed for it alone. Else the
    // usual walk: when the first rows of the walk (PROBED_ROWS) hold the page (dense), or when
    // matches are many.
    const probed = select(
      db,
      t,
      { id: t.id, ...search.columns },
      and(eq(t.accountId, account), ...filters, walk),
    )
      .orderBy(...page.orderBy())
      .limit(PROBED_ROWS);
    const hits = db
      .select({ _: sql`1` })
      .from(sql`(${probed}) as probed`)
      .where(and(...search.unqualified))
      .limit(page.fetch);
    const dense = sql`(select count(*) from (${hits})) = ${sql.raw(String(page.fetch))}`;
    const plan = searchPlan(match, account);
    const firstFound = select(db, t, { id: t.id }, and(...mine, walk, plan.found(t.id)), unindexed(t))
      .orderBy(...page.orderBy())
      .limit(page.fetch);
    const few = gated(and(not(dense), plan.few), account, unindexed(t));
    const walked = gated(or(dense, plan.many), account, sql`${t}`);
    return [
      select(db, t, fields, few.where(eq(t.accountId, account), inArray(t.id, firstFound)), few.from),
      select(db, t, fields, walked.where(...mine, walk), walked.from),
    ];
  });
  if (!first) throw new Error('a page needs at least one walk');
  return (second ? unionAll(first, second, ...more) : first).orderBy(...page.orderBy()).limit(page.fetch);
}

/** What a list reads: the table, its extras, and for a table with a trash, the trash instead. */
export type ListSpec<T extends TenantTable, X extends Extras = Extras> = {
  table: T;
  extras?: X;
  unread?: Unread<T>;
  trash?: boolean;
};

/** A `ListSpec` of any table, as the functions above take it. */
type AnyListSpec = Omit<ListSpec<TenantTable>, 'unread'> & { unread?: readonly string[] };

/** One page of the account's rows (see `listQuery`), in one round trip with the key check. */
export async function listOwn<T extends TenantTable, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: ListSpec<T, X>,
  page: PagePlan,
  filters: (SQL | undefined)[],
  search?: Search,
): Promise<Viewed<T, X>[]> {
  const pieces = listPieces(keyHash, spec, search);
  // Everything else that decides the text: the table, its extras, the sort and the page size
  // (a literal in a search's statement).
  const shape = [
    'list',
    getTableName(spec.table),
    constantId(spec.extras),
    spec.unread?.join(','),
    page.sortColumn.name,
    page.descending,
    page.fetch,
    page.walks.length,
    filters.length,
    search?.exact.length ?? -1,
    search?.unqualified.length ?? -1,
  ].join(' ');
  const sources = [
    pieces.account,
    pieces.state,
    pieces.match?.query,
    ...page.walks,
    ...filters,
    ...(search?.exact ?? []),
    ...(search?.folded ?? []),
    ...(search?.unqualified ?? []),
  ];
  const query = shapes.statement(db, shape, sources, () =>
    buildList(db, spec, page, filters, search, pieces),
  );
  return (await scoped(db, keyHash, query))[1] as Viewed<T, X>[];
}

/** The account's row `id`, or 404, in one round trip with the key check. */
export async function getOwn<T extends ResourceTable, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: { table: T; extras?: X; unread?: Unread<T> },
  id: number,
): Promise<Viewed<T, X>> {
  const t: ResourceTable = spec.table;
  // As `ownRow`, from pieces the statement's shape is known by.
  const account = accountOf(keyHash);
  const idIs = eq(t.id, id);
  const shape = `get ${getTableName(t)} ${constantId(spec.extras)} ${spec.unread?.join(',')}`;
  const query = shapes.statement(db, shape, [account, idIs], () =>
    select(db, t, shown(spec), and(eq(t.accountId, account), idIs, live(t))),
  );
  const [, rows] = await scoped(db, keyHash, query);
  const row = rows[0];
  if (!row) throw notFound();
  return row as Viewed<T, X>;
}

export type Batch = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/**
 * The id of the row the batch inserted into `t`, for the statements after it in the same batch.
 * Inside the batch's transaction the new row holds the table's highest id (an AUTOINCREMENT
 * rowid is past every one the table ever held), whatever the statements since inserted elsewhere;
 * SQLite reads max(id) off the end of the primary key.
 */
const insertedId = (t: ResourceTable): SQL<number> => sql<number>`(select max(${t.id}) from ${t})`;

/** The row and its extras where `mine` holds (a write's answer), prebuilt per shape. */
const readBack = (db: Db, t: ResourceTable, extras: Extras | undefined, mine: SQL | undefined) =>
  shapes.statement(db, `read back ${getTableName(t)} ${constantId(extras)}`, [mine], () =>
    view(db, t, extras, mine),
  );

/**
 * A create's statements, in this order: what the row needs, the row, its children, then the answer
 * read back (last), so the answer is what was stored. Also what a batch writes per created item.
 */
export function createStatements<T extends ResourceTable, C, U, X extends Extras>(
  db: Db,
  spec: WriteSpec<T, C, U, X>,
  body: NoInfer<C>,
  accountId: number,
  actor: Actor,
): Statements {
  const t: ResourceTable = spec.table;
  const id = insertedId(t);
  const mine = and(eq(t.accountId, accountId), eq(t.id, id));
  const now = Date.now();
  return [
    ...(spec.before?.(db, body, accountId) ?? []),
    insertRow(db, spec.table, newRow(db, spec, body, accountId, now)),
    ...(spec.children?.(db, body, accountId, id) ?? []),
    ...(spec.journal?.created(db, mine, actor, now) ?? []),
    readBack(db, t, spec.extras, mine),
  ];
}

/** Two round trips: the key and the references in one batch, then one atomic batch of writes. */
export async function createOwn<T extends ResourceTable, C, U, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: WriteSpec<T, C, U, X>,
  body: NoInfer<C>,
): Promise<Viewed<T, X>> {
  const refs = spec.refs?.(body) ?? {};
  const [accountId, found] = await scoped(db, keyHash, refsQuery(db, accountOf(keyHash), refs));
  assertRefs(found, refs);
  const batch = createStatements(db, spec, body, accountId, { key: keyHash });
  const results = (await guardedWrite(db.batch(batch as Batch), spec.table)) as unknown[][];
  const row = results.at(-1)?.[0] as Viewed<T, X> | undefined;
  if (!row) throw new Error('insert returned no row');
  return row;
}

/**
 * updated_at for an update that was validated against the row as read at `readAt`: if another
 * write got in between, the value is NULL, which the NOT NULL column refuses, and the whole batch
 * rolls back (SQLite has no RAISE outside triggers). So two half-updates checked against each
 * other's old halves never store a pair that neither check saw.
 */
const unchangedSince = (t: ResourceTable, readAt: number): SQL<number> =>
  sql<number>`case when ${t.updatedAt} = ${readAt} then ${bumped(t.updatedAt)} end`;

/** 422 for every immutable field the body would change. */
function assertUnchanged(
  immutable: Partial<Record<string, PropertyKey>> | undefined,
  columns: Record<PropertyKey, unknown>,
  current: Record<PropertyKey, unknown>,
): void {
  const changed = Object.entries(immutable ?? {}).filter(
    ([, key]) => key !== undefined && columns[key] !== undefined && columns[key] !== current[key],
  );
  if (changed.length) {
    throw invalid(
      changed.map(([path]) => ({ path, code: 'immutable', message: `${path} cannot change once set.` })),
    );
  }
}

/**
 * An update's statements for `current` (the row as read, its rules checked), in the order of a
 * create's; the read back last. Also what a batch writes per updated item.
 */
export function updateStatements<T extends ResourceTable, C, U, X extends Extras>(
  db: Db,
  spec: WriteSpec<T, C, U, X>,
  current: Select<T>,
  body: NoInfer<U>,
  accountId: number,
  actor: Actor,
): Statements {
  const t: ResourceTable = spec.table;
  const id = current.id;
  // Live: a row trashed since it was read is not written, and the read back finds nothing (404).
  const mine = and(eq(t.accountId, accountId), eq(t.id, id), live(t));
  const now = Date.now();
  return [
    ...(spec.before?.(db, body, accountId) ?? []),
    ...(spec.journal ? [spec.journal.before(db, mine, 'updated', actor, now)] : []),
    updateRow(
      db,
      spec.table,
      {
        ...changedColumns(spec, body, accountId),
        ...(spec.validate && { updatedAt: unchangedSince(t, current.updatedAt) }),
      } as SQLiteUpdateSetSource<T>,
      mine,
    ),
    ...(spec.children?.(db, body, accountId, id) ?? []),
    ...(spec.journal?.after(db, mine, actor, now) ?? []),
    readBack(db, t, spec.extras, mine),
  ];
}

/** The rules an update of `current` must keep: immutable fields, and the spec's own. */
export function checkUpdate<T extends ResourceTable, C, U, X extends Extras>(
  spec: WriteSpec<T, C, U, X>,
  current: Select<T>,
  body: NoInfer<U>,
  accountId: number,
): void {
  assertUnchanged(spec.immutable, spec.update(body, accountId), current);
  spec.validate?.(body, current);
}

/** A write batch's failure as the API answers it: a concurrent change checked by `validate`, a 409. */
export const changedMeanwhile = (spec: { validate?: unknown }) => (err: unknown) => {
  if (spec.validate && /NOT NULL constraint failed: \w+\.updated_at/.test(rootMessage(err))) {
    throw conflict('It changed while this request was checked against it; read it again and retry.');
  }
  throw err;
};

/** What an update's first round trip read: the account, the row (if it is the key's) and its references. */
export type UpdateRead<T extends TenantTable> = {
  accountId: number;
  current: Select<T> | undefined;
  refs: Refs;
  found: Record<string, unknown>[];
};

/**
 * Two round trips: the key, the row and the references in one batch, then one atomic batch that
 * writes the row and its children and reads the result back.
 */
export async function updateOwn<T extends ResourceTable, C, U, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: WriteSpec<T, C, U, X>,
  id: number,
  body: NoInfer<U>,
): Promise<Viewed<T, X>> {
  const refs = spec.refs?.(body) ?? {};
  const t: ResourceTable = spec.table;
  const own = ownRow(t, keyHash, id);
  const [accountId, existing, found] = await scoped(
    db,
    keyHash,
    shapes.statement(db, `current ${getTableName(t)}`, [own], () => db.select().from(t).where(own)),
    refsQuery(db, accountOf(keyHash), refs),
  );
  const current = existing[0] as Select<T> | undefined;
  return writeUpdate(db, keyHash, spec, { accountId, current, refs, found }, body);
}

/**
 * updateOwn's second round trip, for a caller that read the row and its references in a batch of
 * its own (a panel page reading what it shows beside them): the write is still checked against the
 * row as read, and refused (409) when it changed since.
 */
export async function writeUpdate<T extends ResourceTable, C, U, X extends Extras>(
  db: Db,
  keyHash: KeyRef,
  spec: WriteSpec<T, C, U, X>,
  read: UpdateRead<T>,
  body: NoInfer<U>,
): Promise<Viewed<T, X>> {
  const { accountId, current, refs, found } = read;
  if (!current) throw notFound();
  checkUpdate(spec, current, body, accountId);
  assertRefs(found, refs);
  const batch = updateStatements(db, spec, current, body, accountId, { key: keyHash });
  const results = (await guardedWrite(db.batch(batch as Batch), spec.table).catch(
    changedMeanwhile(spec),
  )) as unknown[][];
  const row = results.at(-1)?.[0] as Viewed<T, X> | undefined;
  if (!row) throw notFound();
  return row;
}

/**
 * An insert of `row` that writes nothing when a row matching `exists` is already there, decided
 * inside the write itself (no unique index can express "a contact with this phone").
 */
export function insertUnless<T extends ResourceTable>(
  db: Db,
  table: T,
  row: SQLiteInsertValue<T>,
  exists: SQL | undefined,
) {
  const values = row as Record<string, unknown>;
  // Insert-from-select needs every column of the table, in its order; absent ones take their default.
  const fields = Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([key, column]) => {
      const value = values[key];
      const sqlValue = is(value, SQL)
        ? value
        : value !== undefined
          ? sql`${sql.param(value, column)}`
          : is(column.default, SQL)
            ? column.default
            : sql`${column.default ?? null}`;
      return [key, sql`${sqlValue}`.as(column.name)];
    }),
  );
  const t: ResourceTable = table;
  const select = db
    .select(fields)
    .from(accounts)
    .where(
      and(
        eq(accounts.id, values.accountId as number),
        notExists(db.select({ _: sql`1` }).from(t).where(exists)),
      ),
    );
  // Drizzle cannot see that `fields` names every column of a table given as a type parameter.
  return db.insert(t).select(select as unknown as SQLiteInsertSelectQueryBuilder<ResourceTable>);
}
