import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { casingOf, dialectOf, inlinesParams, preparedItem, preparedOf } from '../../src/db/drizzle-internals';
import { D1Meter } from '../../src/db/meter';
import { companies } from '../../src/db/schema';

// Each internal of Drizzle the app leans on (src/db/drizzle-internals.ts), against the installed
// drizzle-orm: a Drizzle upgrade that renames or reshapes one fails here, naming it.
const changed = (what: string) => `Drizzle changed ${what}: update src/db/drizzle-internals.ts`;

const db = createDb(env.DB.withSession('first-primary'), new D1Meter());
// A table every database has, so a statement returns a row without any seeding.
const master = sqliteTable('sqlite_master', { type: text('type'), tableName: text('name') });

describe("Drizzle's internals the app reaches into", () => {
  it("the database's dialect, and the dialect's column casing", () => {
    const dialect = dialectOf(db);
    expect(dialect, changed('the database object (no `dialect`)')).toBeInstanceOf(SQLiteAsyncDialect);
    const casing = casingOf(dialect);
    expect(typeof casing?.getColumnCasing, changed("the dialect's `casing`")).toBe('function');
    expect(casing.getColumnCasing(companies.accountId), changed('`casing.getColumnCasing`')).toBe(
      'account_id',
    );
  });

  it("an SQL's inlined parameters flag", () => {
    expect(inlinesParams(sql`select ${1}`), changed('`SQL.shouldInlineParams`')).toBe(false);
    expect(inlinesParams(sql`select ${1}`.inlineParams()), changed('`SQL.shouldInlineParams`')).toBe(true);
  });

  it("a built statement's `_prepare` and its row mapping", () => {
    const prepared = preparedOf(db.select({ tableName: master.tableName }).from(master));
    expect(Array.isArray(prepared.fields), changed('`_prepare().fields`')).toBe(true);
    expect('joinsNotNullableMap' in prepared, changed('`_prepare().joinsNotNullableMap`')).toBe(true);
  });

  it('a batch item of a known text and parameters answers as the statement Drizzle builds', async () => {
    const built = db
      .select({ tableName: master.tableName })
      .from(master)
      .where(eq(master.type, 'table'))
      .orderBy(master.tableName)
      .limit(2);
    const prepared = preparedOf(built);
    const item = preparedItem(db, built.toSQL(), prepared.fields, prepared.joinsNotNullableMap);
    const [theirs] = await db.batch([built]);
    const [ours] = await db.batch([item as unknown as typeof built]);
    expect(theirs.length).toBe(2);
    expect(ours, changed("how `db.batch` prepares an item, or the session's `prepareQuery`")).toEqual(theirs);
  });
});
