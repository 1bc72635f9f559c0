import { and, asc, desc, getTableColumns, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { Sorts } from '../contracts/page';
import { fromBase64url, toBase64url } from '../core/base64url';
import type { AppEnv } from '../env';
import { badRequest } from './problem';
import { urlOf } from './urls';

type SortValue = string | number | null;

type Cursor = [sort: string, value: SortValue, id: number];

const invalidCursor = () => badRequest('invalid_cursor', 'The cursor is not one this API issued.');

function encodeCursor(cursor: Cursor): string {
  return toBase64url(new TextEncoder().encode(JSON.stringify(cursor)));
}

function decodeCursor(
  raw: string,
  sort: string,
  sorts: Sorts,
  valueType: 'number' | 'string',
  nullable: boolean,
): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(raw)),
    );
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !Number.isSafeInteger(parsed[2]))
    throw invalidCursor();
  const [cursorSort, value, id] = parsed as unknown[];
  if (cursorSort !== sort) {
    // Named only when it is one of this list's sorts: the cursor is the client's text.
    const known = typeof cursorSort === 'string' && Object.hasOwn(sorts, cursorSort.replace(/^-/, ''));
    if (!known) throw invalidCursor();
    throw badRequest(
      'invalid_cursor',
      `This cursor was issued for sort=${cursorSort}; send it with sort=${cursorSort}, or leave out cursor to start sort=${sort} from its first page.`,
    );
  }
  const typed =
    (valueType === 'number' ? Number.isSafeInteger(value) : typeof value === 'string') ||
    (nullable && value === null);
  if (!typed) throw invalidCursor();
  return [sort, value as SortValue, id as number];
}

/**
 * Keyset pagination over (sort key, id): no OFFSET, stable under concurrent inserts. Returns the
 * walks that make up the page (a WHERE for each), the ORDER BY, and a function that builds the
 * page. `sort` has been validated against `sorts` by the query schema. Rows whose sort key is null
 * come last in both directions.
 */
export function keyset<R extends { id: number }>(
  table: SQLiteTable,
  sorts: Readonly<Record<string, keyof R & string>>,
  query: { sort?: string | undefined; cursor?: string | undefined; limit: number },
  defaultSort = '-created_at',
) {
  const sort = query.sort ?? defaultSort;
  const descending = sort.startsWith('-');
  const key = sorts[descending ? sort.slice(1) : sort];
  const columns = getTableColumns(table);
  const column = key === undefined ? undefined : columns[key];
  const id = columns.id;
  if (!key || !column || !id) throw new Error(`cannot sort by ${sort}: the sorts map and the table disagree`);
  const direction = descending ? desc : asc;
  const beyond = descending ? sql`<` : sql`>`;
  const cursor =
    query.cursor === undefined
      ? undefined
      : decodeCursor(
          query.cursor,
          sort,
          sorts,
          column.dataType === 'number' ? 'number' : 'string',
          !column.notNull,
        );

  // A nullable key is walked in two parts, the rows that have a value and then those without, each
  // in the order of an (account, key, id) index: merged with nulls last, they need no sort of the
  // account's rows, and the page stops reading once it is full. A cursor in the null part only
  // walks that part.
  let walks: (SQL | undefined)[];
  if (!cursor) walks = column.notNull ? [undefined] : [isNotNull(column), isNull(column)];
  else {
    const [, value, lastId] = cursor;
    const past = sql`(${column}, ${id}) ${beyond} (${value}, ${lastId})`;
    if (column.notNull) walks = [past];
    else if (value === null) walks = [and(isNull(column), sql`${id} ${beyond} ${lastId}`)];
    else walks = [and(isNotNull(column), past), isNull(column)];
  }

  return {
    /** The column the page is walked in the order of, and the direction. */
    sortColumn: column,
    descending,
    walks,
    /** The ORDER BY, built anew for each use: Drizzle rewrites the one of a compound query in place. */
    orderBy: (): SQL[] =>
      column.notNull
        ? [direction(column), direction(id)]
        : [sql`${column} ${sql.raw(descending ? 'desc' : 'asc')} nulls last`, direction(id)],
    /** Fetch one row more than the page so the last page is known without a count query. */
    fetch: query.limit + 1,
    page<T>(c: Context<AppEnv>, rows: R[], present: (row: R) => T) {
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      const last = shown.at(-1);
      const next = more && last ? encodeCursor([sort, last[key as keyof R] as SortValue, last.id]) : null;
      if (next) {
        const url = new URL(c.req.url);
        url.searchParams.set('cursor', next);
        c.header('Link', `<${urlOf(c, url.pathname + url.search)}>; rel="next"`);
      }
      return { data: shown.map(present), meta: { limit: query.limit, next_cursor: next } };
    },
  };
}
