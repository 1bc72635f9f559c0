import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import type { Sorts } from '../contracts/page';
import { fromBase64url, textToBase64url } from '../core/base64url';
import { keysetPlan, type SortValue, sortColumn } from '../db/keyset';
import type { AppEnv } from '../env';
import { badRequest } from './problem';
import { urlOf } from './urls';

type Cursor = [sort: string, value: SortValue, id: number, filters: string];

const invalidCursor = () => badRequest('invalid_cursor', 'The cursor is not one this API issued.');

/** What a page's query holds besides its filters: a cursor goes on under another limit. */
const PAGING = new Set(['cursor', 'limit', 'sort']);

/**
 * The filters a page was read with, as a short fingerprint its cursor carries: the parsed query
 * (so `owner_id=7,3` and `owner_id=3,7` are the same filter) in key order, through FNV-1a. Not a
 * secret: a cursor is the client's own, and this only tells it that it changed the query.
 */
function filtersOf(query: Readonly<Record<string, unknown>>): string {
  const canonical = JSON.stringify(
    Object.keys(query)
      .filter((name) => !PAGING.has(name) && query[name] !== undefined)
      .sort()
      .map((name) => {
        const value = query[name];
        return [name, Array.isArray(value) ? [...value].sort() : value];
      }),
  );
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) hash = Math.imul(hash ^ canonical.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

function encodeCursor(cursor: Cursor): string {
  return textToBase64url(JSON.stringify(cursor));
}

function decodeCursor(
  raw: string,
  expected: { sort: string; filters: string },
  sorts: Sorts,
  valueType: 'number' | 'string',
  nullable: boolean,
): Cursor {
  const { sort, filters } = expected;
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(raw)),
    );
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    !Number.isSafeInteger(parsed[2]) ||
    typeof parsed[3] !== 'string'
  )
    throw invalidCursor();
  const [cursorSort, value, id, cursorFilters] = parsed as unknown[];
  if (cursorSort !== sort) {
    // Named only when it is one of this list's sorts: the cursor is the client's text.
    const known = typeof cursorSort === 'string' && Object.hasOwn(sorts, cursorSort.replace(/^-/, ''));
    if (!known) throw invalidCursor();
    throw badRequest(
      'invalid_cursor',
      `This cursor was issued for sort=${cursorSort}; send it with sort=${cursorSort}, or leave out cursor to start sort=${sort} from its first page.`,
    );
  }
  if (cursorFilters !== filters) {
    throw badRequest(
      'invalid_cursor',
      'This cursor was issued for other filters than this request has: send it with the query of the page it came from (its Link header holds it), or leave out cursor to start these filters from their first page.',
    );
  }
  const typed =
    (valueType === 'number' ? Number.isSafeInteger(value) : typeof value === 'string') ||
    (nullable && value === null);
  if (!typed) throw invalidCursor();
  return [sort, value as SortValue, id as number, filters];
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
  const filters = filtersOf(query);
  const descending = sort.startsWith('-');
  const key = sorts[descending ? sort.slice(1) : sort];
  const { column } = sortColumn(table, key);
  const cursor =
    query.cursor === undefined
      ? undefined
      : decodeCursor(
          query.cursor,
          { sort, filters },
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
      const next =
        more && last ? encodeCursor([sort, last[key as keyof R] as SortValue, last.id, filters]) : null;
      if (next) {
        const url = new URL(c.req.url);
        url.searchParams.set('cursor', next);
        c.header('Link', `<${urlOf(c, url.pathname + url.search, url)}>; rel="next"`);
      }
      return { data: shown.map(present), meta: { limit: query.limit, next_cursor: next } };
    },
  };
}

/**
 * Every page of a walk, for an export: the first, then each after the last row of the one before
 * (the cursor's values, never encoded), in the list's sort.
 */
export function keysetWalk<R extends { id: number }>(
  table: SQLiteTable,
  sorts: Readonly<Record<string, keyof R & string>>,
  sort: string | undefined,
  limit: number,
  defaultSort = '-created_at',
) {
  const chosen = sort ?? defaultSort;
  const descending = chosen.startsWith('-');
  const key = sorts[descending ? chosen.slice(1) : chosen] as keyof R & string;
  return (last?: R) => keysetPlan(table, key, descending, limit, last && [last[key] as SortValue, last.id]);
}
