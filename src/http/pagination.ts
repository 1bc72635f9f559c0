import { z } from '@hono/zod-openapi';
import { asc, desc, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Context } from 'hono';
import { badRequest } from './problem';

type Row = { id: number };
type SortValue = string | number;

/** The sortable fields of a resource: API field name -> the row property (and column) it orders by. */
export type Sorts<R> = Record<string, keyof R & string>;

export const MetaSchema = z
  .object({
    limit: z.number().int(),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page; null on the last' }),
  })
  .openapi('PageMeta');

// A cursor carries the sort value itself (a name may be 255 characters of any script), as
// base64url of the UTF-8 JSON; 4 KiB holds the longest one.
const MAX_CURSOR = 4096;

/** Query parameters every list shares: `limit`, `cursor` and `sort` over the resource's fields. */
export function pageQuery<const F extends string>(fields: readonly F[]) {
  const values = fields.flatMap((f) => [f, `-${f}`]) as [F | `-${F}`, ...(F | `-${F}`)[]];
  return {
    limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: '1..100, default 25' }),
    cursor: z.string().max(MAX_CURSOR).optional().openapi({ description: 'Opaque, from `meta.next_cursor`' }),
    sort: z.enum(values).optional().openapi({
      description: 'A field, or `-field` for descending; ties broken by id. Default `-created_at`',
    }),
  };
}

type Cursor = [sort: string, value: SortValue, id: number];

function encodeCursor(cursor: Cursor): string {
  const bytes = new TextEncoder().encode(JSON.stringify(cursor));
  return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function decodeCursor(raw: string, sort: string): Cursor {
  let parsed: unknown;
  try {
    const binary = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
    parsed = JSON.parse(
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(
        Uint8Array.from(binary, (c) => c.charCodeAt(0)),
      ),
    );
  } catch {
    throw badRequest('invalid_cursor', 'The cursor is not one this API issued.');
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length === 3 &&
    (typeof parsed[1] === 'string' || typeof parsed[1] === 'number') &&
    Number.isSafeInteger(parsed[2]);
  if (!valid) throw badRequest('invalid_cursor', 'The cursor is not one this API issued.');
  const cursor = parsed as Cursor;
  if (cursor[0] !== sort) throw badRequest('invalid_cursor', 'The cursor was issued for another sort order.');
  return cursor;
}

/**
 * Keyset pagination over (sort key, id): no OFFSET, stable under concurrent inserts. Returns the
 * WHERE fragment that starts after the cursor, the ORDER BY, and a function that builds the page.
 */
export function keyset<R extends Row>(
  table: SQLiteTable,
  sorts: Sorts<R>,
  query: { sort?: string | undefined; cursor?: string | undefined; limit: number },
) {
  const sort = query.sort ?? '-created_at';
  const descending = sort.startsWith('-');
  const key = sorts[descending ? sort.slice(1) : sort];
  if (!key) throw badRequest('invalid_sort', `Cannot sort by ${sort}.`);
  const columns = table as unknown as Record<string, AnySQLiteColumn>;
  const column = columns[key] as AnySQLiteColumn;
  const id = columns.id as AnySQLiteColumn;
  const direction = descending ? desc : asc;

  let after: SQL | undefined;
  if (query.cursor !== undefined) {
    const [, value, lastId] = decodeCursor(query.cursor, sort);
    after = descending
      ? sql`(${column}, ${id}) < (${value}, ${lastId})`
      : sql`(${column}, ${id}) > (${value}, ${lastId})`;
  }

  return {
    after,
    orderBy: [direction(column), direction(id)],
    /** Fetch one row more than the page so the last page is known without a count query. */
    fetch: query.limit + 1,
    page<T>(c: Context, rows: R[], present: (row: R) => T) {
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      const last = shown.at(-1);
      const next = more && last ? encodeCursor([sort, last[key] as SortValue, last.id]) : null;
      if (next) {
        const url = new URL(c.req.url);
        url.searchParams.set('cursor', next);
        c.header('Link', `<${url.toString()}>; rel="next"`);
      }
      return { data: shown.map(present), meta: { limit: query.limit, next_cursor: next } };
    },
  };
}
