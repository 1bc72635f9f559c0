import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { Sorts } from '../contracts/page';
import { fromBase64url, textToBase64url } from '../core/base64url';
import { keysetPlan, type SortValue, sortColumn } from '../db/keyset';
import type { AppEnv } from '../env';
import { badRequest } from './problem';
import { urlOf } from './urls';

type Cursor = [sort: string, value: SortValue, id: number];

const invalidCursor = () => badRequest('invalid_cursor', 'The cursor is not one this API issued.');

function encodeCursor(cursor: Cursor): string {
  return textToBase64url(JSON.stringify(cursor));
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
 * A page of a list: the sort (validated against `sorts` by the query schema) and the cursor
 * decoded into the walks of db/keyset.ts, and `page`, which answers with the rows, the next
 * cursor and its Link header.
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
  const { column } = sortColumn(table, key);
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
  return {
    ...keysetPlan(table, key as string, descending, query.limit, cursor && [cursor[1], cursor[2]]),
    page<T>(c: Context<AppEnv>, rows: R[], present: (row: R) => T) {
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      const last = shown.at(-1);
      const next = more && last ? encodeCursor([sort, last[key as keyof R] as SortValue, last.id]) : null;
      if (next) {
        const url = new URL(c.req.url);
        url.searchParams.set('cursor', next);
        c.header('Link', `<${urlOf(c, url.pathname + url.search, url)}>; rel="next"`);
      }
      return { data: shown.map(present), meta: { limit: query.limit, next_cursor: next } };
    },
  };
}
