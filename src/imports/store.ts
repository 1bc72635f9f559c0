/** The imports table's statements: its one writer and reader (docs/import-export.md#csv-import). */
import { and, eq, inArray, isNotNull, or, type SQL, sql } from 'drizzle-orm';
import { conflict, rootMessage } from '../core/errors';
import { writeScopes } from '../core/scopes';
import type { Db } from '../db/client';
import { grantQuery, KeyGrant } from '../db/key-grant';
import type { PagePlan } from '../db/keyset';
import { importChunks, imports, type TrashTable } from '../db/schema';
import { accountOf, type KeyRef, scoped } from '../db/tenant';
import { IMPORT_RESOURCES } from './fields';

export type ImportRow = typeof imports.$inferSelect;
export const ACTIVE = ['queued', 'running'] as const;

/** At most this many imports of an account queued or running at once. */
export const MAX_ACTIVE_IMPORTS = 3;

export const activeImports = (db: Db, keyHash: KeyRef) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(imports)
    .where(and(sql`${imports.accountId} = ${accountOf(keyHash)}`, inArray(imports.status, [...ACTIVE])));

/**
 * The import's row. A queued one takes its status only while the account has fewer than
 * MAX_ACTIVE_IMPORTS queued or running, checked inside the insert: otherwise its status is null,
 * the NOT NULL constraint refuses it (`quotaRefused`), and concurrent starts cannot all pass.
 */
export const insertImport = (db: Db, values: typeof imports.$inferInsert) =>
  db
    .insert(imports)
    .values({
      ...values,
      status:
        values.status === 'queued'
          ? sql`(select 'queued' where (select count(*) from ${imports} where ${imports.accountId} = ${values.accountId} and ${imports.status} in ('queued', 'running')) < ${MAX_ACTIVE_IMPORTS})`
          : values.status,
    })
    .returning();

/** Whether `error` is insertImport's refusal of an import over the quota. */
export const quotaRefused = (error: unknown) =>
  /NOT NULL constraint failed: imports\.status/.test(rootMessage(error));

export const tooManyImports = () =>
  conflict(
    `At most ${MAX_ACTIVE_IMPORTS} imports of an account run at once: wait for one to end, or cancel one.`,
  );

const mine = (keyHash: KeyRef, id: number): SQL | undefined =>
  and(eq(imports.id, id), sql`${imports.accountId} = ${accountOf(keyHash)}`);

export const importById = (db: Db, keyHash: KeyRef, id: number) =>
  db.select().from(imports).where(mine(keyHash, id));

/** Whether the key holds `scope`: its grant subquery for that scope yields it. */
const holds = (key: KeyGrant, scope: Parameters<typeof grantQuery>[0]) =>
  sql`${grantQuery(scope)(key.key, sql.raw(String(key.now)))} is not null`;

/**
 * The imports the key may read one by one (see `readImport`): those of a resource whose scopes it
 * holds for the import's mode, decided in the list's own statement.
 */
function readable(key: KeyRef): SQL | undefined {
  if (!(key instanceof KeyGrant)) return undefined;
  return or(
    ...IMPORT_RESOURCES.map((resource) => {
      const [canInsert, canUpdate] = writeScopes(resource, ['upsert']).map((scope) => holds(key, scope));
      // An update needs no `:insert`, a create no `:update`.
      return and(
        eq(imports.resource, resource),
        or(eq(imports.mode, 'update'), canInsert),
        or(eq(imports.mode, 'create'), canUpdate),
      );
    }),
  );
}

/** A page of the account's imports the key may read, in the page's order: one round trip. */
export async function listImports(db: Db, keyHash: KeyRef, page: PagePlan): Promise<ImportRow[]> {
  const [, rows] = await scoped(
    db,
    keyHash,
    db
      .select()
      .from(imports)
      .where(and(sql`${imports.accountId} = ${accountOf(keyHash)}`, readable(keyHash), or(...page.walks)))
      .orderBy(...page.orderBy())
      .limit(page.fetch),
  );
  return rows;
}

/** The account's import of the stored file `fileKey` (none for ''). */
export const importOfFile = (db: Db, keyHash: KeyRef, fileKey: string) =>
  db
    .select({ id: imports.id })
    .from(imports)
    .where(and(sql`${imports.accountId} = ${accountOf(keyHash)}`, eq(imports.fileKey, fileKey)));

/** Cancels it while queued or running; the chunk in flight then writes nothing (see `chunkGuard`). */
export const cancelImport = (db: Db, keyHash: KeyRef, id: number, now: number) =>
  db
    .update(imports)
    .set({ status: 'cancelled', finishedAt: now })
    .where(and(mine(keyHash, id), inArray(imports.status, [...ACTIVE])))
    .returning();

/** Every failed row's chunk, in file order. */
export const importErrors = (db: Db, id: number) =>
  db
    .select({ errors: importChunks.errors })
    .from(importChunks)
    .where(and(eq(importChunks.importId, id), isNotNull(importChunks.errors)))
    .orderBy(importChunks.offset);

export type RowError = { line: number; cells: string[]; reason: string };

/**
 * The chunk's mark, first in its write batch: its offset must be the import's own while the
 * import is queued or running, or `offset` is null and the NOT NULL constraint fails the whole
 * batch (cancelled meanwhile: nothing written); a redelivered chunk breaks the primary key.
 */
export const chunkGuard = (db: Db, importId: number, offset: number, errors: RowError[]) =>
  db.insert(importChunks).values({
    importId,
    offset: sql`(select ${imports.offset} from ${imports} where ${imports.id} = ${importId} and ${imports.offset} = ${offset} and ${imports.status} in ('queued', 'running'))`,
    errors: errors.length ? errors : null,
  });

export type Progress = {
  next: number;
  line: number;
  rows: number;
  created: number;
  /** The records the chunk updates, each with its version and updated_at as read before its write. */
  updated: { id: number; version: number; updatedAt: number }[];
  failed: number;
  done: boolean;
  now: number;
};

/**
 * How many of `updated` are still at the version read before the write: the journal found their
 * values unchanged (src/journal/statements.ts drops the entry and keeps the version). Run after
 * the items' statements, in their batch; one JSON parameter for any number of records.
 */
const stillAt = (table: TrashTable, updated: Progress['updated']) =>
  sql<number>`(select count(*) from ${table} where ${unchangedOf(table, updated)})`;

const readOf = (updated: Progress['updated']) =>
  sql`json_each(${JSON.stringify(updated.map((u) => [u.id, u.version, u.updatedAt]))})`;

const unchangedOf = (table: TrashTable, updated: Progress['updated']) =>
  sql`(${table.id}, ${table.version}) in (select json_extract(value, '$[0]'), json_extract(value, '$[1]') from ${readOf(updated)})`;

/**
 * An unchanged record keeps its updated_at too (the update's statement moved it before the
 * journal compared): a sync reading `updated_at` sees no change where there was none.
 */
export const keepUnchanged = (db: Db, table: TrashTable, updated: Progress['updated']) => {
  const t: TrashTable = table;
  return db
    .update(t)
    .set({
      updatedAt: sql`(select json_extract(value, '$[2]') from ${readOf(updated)} where json_extract(value, '$[0]') = ${t.id})`,
    })
    .where(unchangedOf(t, updated));
};

/** The import moved past the chunk, its counts added; completed at the file's end. */
export const advance = (db: Db, importId: number, table: TrashTable, p: Progress) =>
  db
    .update(imports)
    .set({
      offset: p.next,
      line: p.line,
      rows: sql`${imports.rows} + ${p.rows}`,
      created: sql`${imports.created} + ${p.created}`,
      updated: sql`${imports.updated} + ${p.updated.length} - ${stillAt(table, p.updated)}`,
      unchanged: sql`${imports.unchanged} + ${stillAt(table, p.updated)}`,
      failed: sql`${imports.failed} + ${p.failed}`,
      status: p.done ? 'completed' : 'running',
      finishedAt: p.done ? p.now : null,
    })
    .where(eq(imports.id, importId));

/** The import failed as a whole (its key revoked, its file gone): why, in words. */
export const failImport = (db: Db, importId: number, error: string, now: number) =>
  db
    .update(imports)
    .set({ status: 'failed', error, finishedAt: now })
    .where(and(eq(imports.id, importId), inArray(imports.status, [...ACTIVE])));

export const importState = (db: Db, importId: number) =>
  db
    .select({ offset: imports.offset, line: imports.line, status: imports.status })
    .from(imports)
    .where(eq(imports.id, importId));
