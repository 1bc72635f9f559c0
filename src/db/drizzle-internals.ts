import type { Column, Query, SQL } from 'drizzle-orm';
import type { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';

// Every place the app reaches past Drizzle's public API, in one file: the fast renderer
// (dialect.ts), the prebuilt statements (shapes.ts) and the batch items they make rest on these
// few internals of drizzle-orm 0.45. test/db/drizzle-internals.test.ts checks each one against the
// installed Drizzle, so an upgrade that moves one fails there, by name, before any query does.

/** Drizzle's column name resolver (the dialect's `casing`, used as its renderer uses it). */
export type Casing = { getColumnCasing(column: Column): string };

/** The dialect's column name resolver, a private member of Drizzle's dialect. */
export const casingOf = (dialect: SQLiteAsyncDialect): Casing =>
  (dialect as unknown as { casing: Casing }).casing;

/** Whether `sql.inlineParams()` was called on it: its parameters are rendered inline, not bound. */
export const inlinesParams = (sql: SQL): boolean =>
  (sql as unknown as { shouldInlineParams: boolean }).shouldInlineParams;

/** What Drizzle's D1 session makes of a statement for a batch: the statement and its row mapping. */
export type Prepared = { fields?: unknown; joinsNotNullableMap?: unknown };

/** A database's dialect and session, both private members of Drizzle's database object. */
type Internals = {
  dialect: SQLiteAsyncDialect;
  session: { prepareQuery(query: Query, fields: unknown, method: 'all', arrayMode: boolean): Prepared };
};

/** The dialect a database renders with. */
export const dialectOf = (db: object): SQLiteAsyncDialect => (db as Internals).dialect;

/**
 * A batch item of a statement text and parameters already known: Drizzle's `db.batch` asks each
 * item for `_prepare()` only, which here makes the D1 session's prepared statement, binding the
 * parameters and mapping the rows (`fields`, `joins`) exactly as for the statement Drizzle builds.
 */
export function preparedItem(
  db: object,
  query: Query,
  fields: unknown,
  joins: unknown,
): { _prepare(): Prepared } {
  return {
    _prepare: () => {
      const prepared = (db as Internals).session.prepareQuery(query, fields, 'all', true);
      prepared.joinsNotNullableMap = joins;
      return prepared;
    },
  };
}

/** What a batch would prepare of a statement Drizzle built: its row mapping. */
export const preparedOf = (built: object): Prepared => (built as { _prepare(): Prepared })._prepare();

/** How an SQL expression's value is decoded (`sql.mapWith`), a member Drizzle does not type. */
export const decoderOf = (expression: SQL): { mapFromDriverValue(value: unknown): unknown } | undefined =>
  (expression as unknown as { decoder?: { mapFromDriverValue(value: unknown): unknown } }).decoder;
