import { and, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn, AnySQLiteTable } from 'drizzle-orm/sqlite-core';
import { ACCENTED, normalizeText, withoutAccents } from '../core/text';
import { companies, contacts, users } from './schema';

/**
 * The FTS5 tables of the search (trigram, over the normalised columns; see drizzle/0003_search.sql)
 * and the column each of their searchable columns indexes, keyed by the resource listed with
 * `<column>__contains`. The tables, views and triggers are generated from this (db/search-ddl.ts):
 * after a change, `npm run db:generate` writes the migration.
 */
export const searchIndexes = {
  users: { table: 'users_search', columns: { name: users.nameNorm }, folded: { name: users.nameFold } },
  contacts: {
    table: 'contacts_search',
    columns: { name: contacts.nameNorm },
    folded: { name: contacts.nameFold },
  },
  companies: {
    table: 'companies_search',
    columns: { name: companies.nameNorm, segment: companies.segmentNorm },
    folded: { name: companies.nameFold, segment: companies.segmentFold },
  },
} as const;

export type SearchIndex = {
  table: string;
  columns: Readonly<Record<string, AnySQLiteColumn>>;
  /** Each column's stored fold (foldText, written with it), where a page reads the rows anyway. */
  folded?: Readonly<Record<string, AnySQLiteColumn>>;
};

/** A list's `__contains` filters: the exact conditions, and the index query that narrows them. */
export type Search = {
  /** instr() on each normalised column: exactly what a match is. The index only finds candidates. */
  exact: SQL[];
  /**
   * `exact` on the stored folds (`*_fold`, which drizzle/0022_search_folds.sql keeps equal to the
   * normalised column folded, whoever writes the row): the same matches, for a page that reads each
   * candidate's row anyway (the search index's matches in id order), where folding the column again
   * cost each row 14 nested replace() calls. A walk of the name index keeps `exact`, which that
   * index answers without reading rows.
   */
  folded: SQL[];
  /** The normalised columns compared, by their SQL names. */
  columns: Record<string, AnySQLiteColumn>;
  /** `exact` on unqualified names, for a subquery that selects `columns` under those names. */
  unqualified: SQL[];
  /** The FTS5 table and MATCH query, when some value gives the index something to look up. */
  match?: { table: string; query: string };
};

/**
 * `column` without the accents of `ACCENTED`, as SQL (SQLite has no such function): what a match is
 * checked on, so `joao` finds "João" on every path of the search, the index's and the sort walk's.
 * Literal characters, no parameters: the statement's text stays one for every value.
 */
const withoutAccentsSql = (column: SQL): SQL =>
  ACCENTED.reduce(
    (folded, [letter, base]) => sql`replace(${folded}, ${sql.raw(`'${letter}', '${base}'`)})`,
    column,
  );

/** What the index does not hold as characters: U+0000, and the combining marks it drops. */
const UNINDEXED = /\0|[\u0300-\u036f]/;

/** U+001F, the separator in the grams columns (see the migration). */
const US = '\u001f';

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** The number of code points of `text` (its length less the second half of each surrogate pair). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0) {
      const before = text.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) count--;
    }
  }
  return count;
}

/**
 * The MATCH clause that finds every row whose `column` contains `normalized` (a value already
 * through normalizeText), and maybe some that do not. Inside double quotes FTS5 takes everything
 * literally but `"` (doubled), so no value can inject query syntax. The tokenizer skips U+0000,
 * and with `remove_diacritics` drops a combining mark (U+0300-U+036F, as in `i̇`, which NFC cannot
 * join to its letter) from the text and the query alike, so the clause looks up the longest piece
 * between them (in code points; the first of equals), which any containing text holds too; a value
 * of nothing but those has no lookup at all.
 */
function clause(column: string, normalized: string): string | undefined {
  let piece = '';
  let longest = 0;
  for (const each of normalized.split(UNINDEXED)) {
    const length = codePoints(each);
    if (length > longest) {
      piece = each;
      longest = length;
    }
  }
  if (longest >= 3) return `${column} : ${quoted(piece)}`;
  if (longest === 2) return `${column}_grams : ${quoted(`${piece}${US}`)}`;
  if (longest === 1) return `${column}_grams : ${quoted(`${piece}${US}${US}`)}`;
  return undefined;
}

/** The search for `values` (searchable column -> the text it must contain) in `index`, if any. */
export function search<I extends SearchIndex>(
  index: I,
  values: Partial<Record<keyof I['columns'] & string, string>>,
): Search | undefined {
  const sent = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (!sent.length) return undefined;
  // Each value normalised once: the exact conditions and the MATCH clause both take it.
  const normalized = sent.map(([name, value]) => [name, normalizeText(value)] as const);
  // The index folds accents itself (`remove_diacritics`); the check compares both sides without them.
  const compared = normalized.flatMap(([name, value]) => {
    const column = index.columns[name];
    return column ? [{ column, fold: index.folded?.[name], value: withoutAccents(value) }] : [];
  });
  const exact = compared.map(
    ({ column, value }) => sql`instr(${withoutAccentsSql(sql`${column}`)}, ${value}) > 0`,
  );
  const folded = compared.map(
    ({ column, fold, value }) => sql`instr(${fold ?? withoutAccentsSql(sql`${column}`)}, ${value}) > 0`,
  );
  const columns = Object.fromEntries(compared.map(({ column }) => [column.name, column]));
  const unqualified = compared.map(
    ({ column, value }) =>
      sql`instr(${withoutAccentsSql(sql`${sql.identifier(column.name)}`)}, ${value}) > 0`,
  );
  const clauses = normalized.flatMap(([name, value]) => clause(name, value) ?? []);
  const found = { exact, folded, columns, unqualified };
  return clauses.length ? { ...found, match: { table: index.table, query: clauses.join(' AND ') } } : found;
}

/**
 * From this many matches in the account on, a page walks the index of its sort and checks each row
 * (matches are then dense enough to fill a page soon); below it, the page reads the matches from
 * the search index and sorts them, which costs at most this many rows whatever the account's size.
 */
export const MAX_SORTED_MATCHES = 1000;

/**
 * Before either, a page checks this many rows of its sort walk: when they hold the whole page (a
 * common value), that is the page, and the search index is never read. Counting a common value's
 * matches in the index up to the cap costs more than the rows the walk needs to fill a page.
 */
export const PROBED_ROWS = 1000;

// Search rowids are account_id * 2^32 + id (see the migration): constants, not parameters.
const SPAN = sql.raw('4294967296');
const LOW_BITS = sql.raw('4294967295');
const MAX = sql.raw(String(MAX_SORTED_MATCHES));

/** The pieces of a list query that a search's MATCH drives, for the account `account`. */
export function searchPlan(match: { table: string; query: string | SQL }, account: SQL<number>) {
  const fts = sql.identifier(match.table);
  const first = sql`${account} * ${SPAN}`;
  const matching = sql`${fts} match ${match.query} and rowid between ${first} and ${first} + ${LOW_BITS}`;
  const count = sql`(select count(*) from (select 1 from ${fts} where ${matching} limit ${MAX}))`;
  return {
    /**
     * FROM and WHERE for a walk of the matches among the account's ids `low` to `high` (SQL that
     * picks one id each; none when NULL, so no walk), in the index's rowid order, which is the
     * account's id order, each match joined to its row of `table`. `order` is the ORDER BY the
     * index serves itself, so the walk stops once its page is full.
     *
     * The ends come first as one-row loops (primary key lookups of `table`, renamed so no name
     * clashes with its columns): the index and its re-check of the rowid range then read their
     * rowids, where SQL in the range itself would run once for each. Each end's rowid is made from
     * its own row (`account_id * 2^32 + id`, the row being the account's), so the range names the
     * account's subquery nowhere: the statement holds two subqueries of the key fewer to compile
     * and run. The index enters through a subquery, which SQLite flattens, for the same reason.
     */
    inIdOrder: (
      table: AnySQLiteTable & { id: AnySQLiteColumn; accountId: AnySQLiteColumn },
      low: SQL,
      high: SQL,
    ) => ({
      from: sql`(select ${table.id} as low_id, ${table.accountId} * ${SPAN} + ${table.id} as low_found from ${table}) as low cross join (select ${table.id} as high_id, ${table.accountId} * ${SPAN} + ${table.id} as high_found from ${table}) as high cross join (select rowid as found, ${fts} as matched from ${fts}) as found cross join ${table}`,
      where: and(
        sql`low_id = ${low}`,
        sql`high_id = ${high}`,
        sql`matched match ${match.query}`,
        sql`found between low_found and high_found`,
        sql`${table.id} = found & ${LOW_BITS}`,
      ),
      order: (descending: boolean) => sql`found ${sql.raw(descending ? 'desc' : 'asc')}`,
    }),
    few: sql`${count} < ${MAX}`,
    many: sql`${count} >= ${MAX}`,
    /** The rows the index found, as `id IN (...)`. */
    found: (id: AnySQLiteColumn) => sql`${id} in (select rowid & ${LOW_BITS} from ${fts} where ${matching})`,
  };
}
