import {
  Column,
  getTableName,
  isSQLWrapper,
  Name,
  Param,
  Placeholder,
  type Query,
  SQL,
  StringChunk,
  Subquery,
  Table,
  View,
} from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { type Casing, casingOf, inlinesParams } from './drizzle-internals';

/** Thrown by the walk at anything it does not render exactly as Drizzle does; Drizzle renders it. */
export const NOT_MINE = Symbol('not mine');

const escapeName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Each table's rendered name (SQLite tables have no schema): tables are module constants. */
const tableNames = new WeakMap<Table, string>();

function tableName(table: Table): string {
  let name = tableNames.get(table);
  if (name === undefined) {
    name = escapeName(getTableName(table));
    tableNames.set(table, name);
  }
  return name;
}

/**
 * Renders a statement's SQL tree to text and parameters as Drizzle's `SQL.toQuery` does, chunk for
 * chunk, but with `instanceof` instead of `is()` and one string instead of a merged query per chunk:
 * Drizzle's renderer was the largest part of a request's CPU time. Only the chunk kinds the app's
 * statements hold are handled; anything else (inlined parameters, placeholders, views) throws
 * NOT_MINE and the statement goes to Drizzle.
 */
export class Renderer {
  sql = '';
  readonly params: unknown[] = [];

  constructor(private readonly casing: Casing) {}

  chunk(chunk: unknown): void {
    if (chunk instanceof StringChunk) this.sql += chunk.value.join('');
    else if (chunk instanceof Name) this.sql += escapeName(chunk.value);
    else if (chunk === undefined) return;
    else if (Array.isArray(chunk)) {
      this.sql += '(';
      chunk.forEach((each, i) => {
        if (i > 0) this.sql += ', ';
        this.chunk(each);
      });
      this.sql += ')';
    } else if (chunk instanceof SQL) {
      if (inlinesParams(chunk)) throw NOT_MINE;
      for (const each of chunk.queryChunks) this.chunk(each);
    } else if (chunk instanceof Table) this.sql += tableName(chunk);
    else if (chunk instanceof Column) {
      this.sql += `${tableName(chunk.table)}.${escapeName(this.casing.getColumnCasing(chunk))}`;
    } else if (chunk instanceof View || chunk instanceof Placeholder) throw NOT_MINE;
    else if (chunk instanceof Param) {
      if (chunk.value instanceof Placeholder) throw NOT_MINE;
      const value = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
      if (value instanceof SQL) this.chunk(value);
      else this.param(value);
    } else if (chunk instanceof SQL.Aliased && chunk.fieldAlias !== undefined) {
      this.sql += escapeName(chunk.fieldAlias);
    } else if (chunk instanceof Subquery) {
      if (chunk._.isWith) this.sql += escapeName(chunk._.alias);
      else {
        this.sql += '(';
        this.chunk(chunk._.sql);
        this.sql += `) ${escapeName(chunk._.alias)}`;
      }
    } else if (typeof chunk === 'function') throw NOT_MINE;
    else if (isSQLWrapper(chunk)) {
      if (chunk.shouldOmitSQLParens?.()) this.chunk(chunk.getSQL());
      else {
        this.sql += '(';
        this.chunk(chunk.getSQL());
        this.sql += ')';
      }
    } else this.param(chunk);
  }

  private param(value: unknown): void {
    this.sql += '?';
    this.params.push(value);
  }
}

/** How many statement texts are remembered as checked; past it the record starts again. */
const CHECKED_LIMIT = 2000;

const sameParams = (a: unknown[], b: unknown[]) =>
  a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

/**
 * The SQLite dialect with the renderer above. The first time a statement text comes out of it, it
 * is rendered by Drizzle too and the two must agree, text and parameters; a text on which they
 * disagreed is left to Drizzle from then on. Holds statement texts only (parameters never), so it
 * is shared by every request.
 */
export class FastDialect extends SQLiteAsyncDialect {
  private readonly checked = new Map<string, boolean>();

  override sqlToQuery(sql: SQL, invokeSource?: 'indexes' | undefined): Query {
    if (invokeSource !== undefined) return super.sqlToQuery(sql, invokeSource);
    const renderer = new Renderer(casingOf(this));
    try {
      renderer.chunk(sql);
    } catch (err) {
      if (err === NOT_MINE) return super.sqlToQuery(sql);
      throw err;
    }
    const query = { sql: renderer.sql, params: renderer.params };
    const agreed = this.checked.get(query.sql);
    if (agreed === true) return query;
    if (agreed === false) return super.sqlToQuery(sql);
    const theirs = super.sqlToQuery(sql);
    if (this.checked.size >= CHECKED_LIMIT) this.checked.clear();
    const same = theirs.sql === query.sql && sameParams(theirs.params, query.params);
    this.checked.set(query.sql, same);
    return same ? query : theirs;
  }
}
