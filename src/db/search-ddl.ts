import { getTableName } from 'drizzle-orm';
import { type SearchIndex, searchIndexes } from './search';

/**
 * The search's schema objects, generated from `searchIndexes` (src/db/search.ts): the views that
 * give each searchable text and its grams, one FTS5 table per index and its three triggers. Their
 * SQL is what drizzle/*_search*.sql migrations run (and sqlite_master then holds); the why of each
 * piece is written in drizzle/0003_search.sql. `npm run db:generate` writes a migration when
 * `searchIndexes` and the migrations disagree (scripts/search-migration.mjs).
 */

/** One searchable column: its index, its name in the index, and its base table and column. */
const texts = (indexes: Record<string, SearchIndex>) =>
  Object.values(indexes).flatMap((index) =>
    Object.entries(index.columns).map(([name, column]) => ({
      index,
      name,
      table: getTableName(column.table),
      column: column.name,
      src: `${getTableName(column.table)}.${name}`,
    })),
  );

const baseTable = (index: SearchIndex) => {
  const [column] = Object.values(index.columns);
  if (!column) throw new Error(`search index ${index.table} has no column`);
  return getTableName(column.table);
};

const SPAN = '4294967296';

/** The rowid of a row in the index: its account's range, then its id (see the migration). */
const rowid = (row: string) => `${row}account_id * ${SPAN} + ${row}id`;

/** `name, name_grams, ...`: the columns of an index's FTS5 table. */
const ftsColumns = (index: SearchIndex) =>
  Object.keys(index.columns).flatMap((name) => [name, `${name}_grams`]);

/** The grams of column `name` of the row `row` (`new.`, or the alias of a scan). */
const gramsOf = (index: SearchIndex, name: string, where: string) =>
  `(SELECT grams FROM search_grams ${where.replace('$src', `'${baseTable(index)}.${name}'`)})`;

/** The values of an index's row for `new` in a trigger. */
const newValues = (index: SearchIndex) =>
  Object.entries(index.columns)
    .flatMap(([name, column]) => [
      `new.${column.name}`,
      gramsOf(index, name, 'WHERE src = $src AND account_id = new.account_id AND id = new.id'),
    ])
    .join(', ');

const insertNew = (index: SearchIndex) =>
  `INSERT INTO ${index.table} (rowid, ${ftsColumns(index).join(', ')}) VALUES ( ${rowid('new.')}, ${newValues(index)} );`;

const deleteOld = (index: SearchIndex) => `DELETE FROM ${index.table} WHERE rowid = ${rowid('old.')};`;

export const SEARCH_GRAMS = `CREATE VIEW search_grams AS
  SELECT src, account_id, id, (
    SELECT group_concat(
      CAST(substr(b, k, w1) AS TEXT) || char(31, 31) || CAST(substr(b, k, w1 + w2) AS TEXT) || char(31), '')
    FROM (
      SELECT k, w1,
        CASE WHEN substr(b, k + w1, 1) < x'80' THEN 1 WHEN substr(b, k + w1, 1) < x'e0' THEN 2
          WHEN substr(b, k + w1, 1) < x'f0' THEN 3 ELSE 4 END AS w2
      FROM (
        SELECT key + 1 AS k,
          CASE WHEN substr(b, key + 1, 1) < x'80' THEN 1 WHEN substr(b, key + 1, 1) < x'e0' THEN 2
            WHEN substr(b, key + 1, 1) < x'f0' THEN 3 ELSE 4 END AS w1
        FROM json_each('[' || substr(replace(hex(zeroblob(length(b))), '00', ',0'), 2) || ']')
        WHERE substr(b, key + 1, 1) NOT BETWEEN x'80' AND x'bf'
      )
    )
  ) AS grams
  FROM (SELECT src, account_id, id, CAST(t AS BLOB) AS b FROM search_text)`;

export type SchemaObject = { type: 'view' | 'table' | 'trigger'; name: string; sql: string };

/** Every schema object of the search, in the order a migration creates them. */
export function searchSchema(indexes: Record<string, SearchIndex> = searchIndexes): SchemaObject[] {
  const [first, ...rest] = texts(indexes);
  if (!first) return [];
  const textView = [
    `CREATE VIEW search_text AS SELECT '${first.src}' AS src, account_id, id, ${first.column} AS t FROM ${first.table}`,
    ...rest.map((t) => `UNION ALL SELECT '${t.src}', account_id, id, ${t.column} FROM ${t.table}`),
  ].join(' ');
  const list = Object.values(indexes);
  return [
    { type: 'view', name: 'search_text', sql: textView },
    { type: 'view', name: 'search_grams', sql: SEARCH_GRAMS },
    ...list.map(
      (index): SchemaObject => ({
        type: 'table',
        name: index.table,
        sql: `CREATE VIRTUAL TABLE ${index.table} USING fts5( ${ftsColumns(index).join(', ')}, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1' )`,
      }),
    ),
    ...list.flatMap((index): SchemaObject[] => {
      const base = baseTable(index);
      const watched = ['account_id', 'id', ...Object.values(index.columns).map((c) => c.name)].join(', ');
      return [
        {
          type: 'trigger',
          name: `${index.table}_insert`,
          sql: `CREATE TRIGGER ${index.table}_insert AFTER INSERT ON ${base} BEGIN ${insertNew(index)} END`,
        },
        {
          type: 'trigger',
          name: `${index.table}_update`,
          sql: `CREATE TRIGGER ${index.table}_update AFTER UPDATE OF ${watched} ON ${base} BEGIN ${deleteOld(index)} ${insertNew(index)} END`,
        },
        {
          type: 'trigger',
          name: `${index.table}_delete`,
          sql: `CREATE TRIGGER ${index.table}_delete AFTER DELETE ON ${base} BEGIN ${deleteOld(index)} END`,
        },
      ];
    }),
  ];
}

/** The statement that fills the index `table` with the rows its base table holds already. */
export function searchBackfill(table: string, indexes: Record<string, SearchIndex> = searchIndexes): string {
  const index = Object.values(indexes).find((i) => i.table === table);
  if (!index) throw new Error(`no search index ${table}`);
  const values = Object.entries(index.columns).flatMap(([name, column]) => [
    column.name,
    gramsOf(index, name, 'g WHERE g.src = $src AND g.account_id = b.account_id AND g.id = b.id'),
  ]);
  return `INSERT INTO ${index.table} (rowid, ${ftsColumns(index).join(', ')}) SELECT ${rowid('')}, ${values.join(', ')} FROM ${baseTable(index)} b`;
}

/** SQL as SQLite compares it here: runs of whitespace as one space, none inside parentheses. */
export const sameSql = (sql: string) =>
  sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').replace(/;$/, '').trim();
