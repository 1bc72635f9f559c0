import { SQL, type SQLChunk, StringChunk, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';

/** Where a hole of a template goes in its rendered text: no SQL the app writes holds this character. */
const HOLE = '\u0000';

/**
 * The text of `template` as Drizzle renders it, cut at its holes: for a statement piece built on
 * every request (the key's subquery), whose SQL tree Drizzle would otherwise build and walk chunk by
 * chunk each time. Rendered by Drizzle's own dialect, once, from code (never from a request).
 */
export function prerendered<H extends unknown[]>(
  template: (...holes: H) => SQL,
  holes: number,
): StringChunk[] {
  const marks = Array.from({ length: holes }, () => sql.raw(HOLE));
  const query = new SQLiteAsyncDialect().sqlToQuery(template(...(marks as H)));
  const pieces = query.sql.split(HOLE);
  if (query.params.length || pieces.length !== holes + 1) throw new Error(`not a template: ${query.sql}`);
  return pieces.map((text) => new StringChunk(text));
}

/** The SQL of prerendered `pieces` with `values` (parameters, or SQL) in their holes. */
export function filled<T>(pieces: readonly StringChunk[], ...values: unknown[]): SQL<T> {
  const chunks: SQLChunk[] = [pieces[0] as StringChunk];
  values.forEach((value, i) => {
    chunks.push(value as SQLChunk, pieces[i + 1] as StringChunk);
  });
  return new SQL<T>(chunks);
}

/** `prerendered`, on first use. */
export function lazyPieces<H extends unknown[]>(
  template: (...holes: H) => SQL,
  holes: number,
): () => StringChunk[] {
  let pieces: StringChunk[] | undefined;
  return () => {
    pieces ??= prerendered(template, holes);
    return pieces;
  };
}
