import type { MoveTable } from './tables';

/**
 * The statements a move runs on one table of one account (docs/scaling.md, "Moving an account"):
 * keyset pages read in key order, the same rows written on the new shard by key, extras deleted by
 * key. Plain D1 statements over the table's columns as the schema lists them, so one code serves
 * every table. The account id is a whole number the move checked, inlined as a literal; every other
 * value is bound, at most D1's 100 bound parameters per statement.
 */
export type Key = (number | string)[];
export type Row = unknown[];

const MAX_PARAMS = 100;
const q = (name: string) => `"${name}"`;

/** SQL selecting the account's rows of `t`. */
function ofAccount(t: MoveTable, accountId: number): string {
  if (!Number.isSafeInteger(accountId)) throw new Error('account id must be a whole number');
  if (!t.via) return `${q(t.account)} = ${accountId}`;
  return `${q(t.via.column)} IN (SELECT id FROM ${q(t.via.table)} WHERE ${q(t.account)} = ${accountId})`;
}

const keyTuple = (t: MoveTable) =>
  t.key.length === 1 ? q(t.key[0] as string) : `(${t.key.map(q).join(', ')})`;
const marks = (n: number) => (n === 1 ? '?' : `(${Array(n).fill('?').join(', ')})`);

/** The key of a row read by `readPage` (its columns in the table's order). */
export function keyOf(t: MoveTable, row: Row): Key {
  return t.key.map((k) => row[t.columns.indexOf(k)] as number | string);
}

/**
 * A page of the account's rows of `t` after `after` in key order (all columns, or the key's alone),
 * up to `upTo` when given.
 */
export async function readPage(
  d1: D1Database,
  t: MoveTable,
  accountId: number,
  page: { after: Key | null; limit: number; upTo?: Key | undefined; keysOnly?: boolean },
): Promise<Row[]> {
  const where = [ofAccount(t, accountId)];
  const params: unknown[] = [];
  if (page.after) {
    where.push(`${keyTuple(t)} > ${marks(t.key.length)}`);
    params.push(...page.after);
  }
  if (page.upTo) {
    where.push(`${keyTuple(t)} <= ${marks(t.key.length)}`);
    params.push(...page.upTo);
  }
  const columns = (page.keysOnly ? t.key : t.columns).map(q).join(', ');
  const sql = `SELECT ${columns} FROM ${q(t.name)} WHERE ${where.join(' AND ')} ORDER BY ${t.key.map(q).join(', ')} LIMIT ${page.limit}`;
  return d1
    .prepare(sql)
    .bind(...params)
    .raw();
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Only while the new shard still marks the account `incoming`: a late step never writes after the switch. */
const fenced = (accountId: number) =>
  `EXISTS (SELECT 1 FROM account_freezes WHERE account_id = ${accountId} AND state = 'incoming')`;

/**
 * Writes `rows` on the new shard by key: each existing row updated to the old one's values, each
 * missing one inserted (never `INSERT OR REPLACE`, whose delete would skip the counters' triggers;
 * never an upsert, whose BEFORE INSERT triggers, the per-account caps, fire even when it updates).
 * The UPDATE also matches the account, so a row of another account never takes these values.
 */
export function writeRows(d1: D1Database, t: MoveTable, accountId: number, rows: readonly Row[]) {
  const per = Math.floor(MAX_PARAMS / t.columns.length);
  const values = (n: number) => Array(n).fill(marks(t.columns.length)).join(', ');
  const byKey = t.key.map((k) => `${q(t.name)}.${q(k)} = v.column${t.columns.indexOf(k) + 1}`).join(' AND ');
  const rest = t.columns.flatMap((c, i) => (t.key.includes(c) ? [] : [`${q(c)} = v.column${i + 1}`]));
  const account = t.via ? '' : ` AND ${q(t.name)}.${q(t.account)} = ${accountId}`;
  return chunks(rows, per).flatMap((chunk) => {
    const params = chunk.flat();
    const update = rest.length
      ? [
          d1
            .prepare(
              `UPDATE ${q(t.name)} SET ${rest.join(', ')} FROM (VALUES ${values(chunk.length)}) AS v WHERE ${byKey}${account} AND ${fenced(accountId)}`,
            )
            .bind(...params),
        ]
      : [];
    const insert = d1
      .prepare(
        `INSERT INTO ${q(t.name)} (${t.columns.map(q).join(', ')}) SELECT * FROM (VALUES ${values(chunk.length)}) AS v WHERE NOT EXISTS (SELECT 1 FROM ${q(t.name)} WHERE ${byKey}) AND ${fenced(accountId)}`,
      )
      .bind(...params);
    return [...update, insert];
  });
}

/** Deletes the account's rows of `t` with these keys (`fence`: only while the shard is `incoming`). */
export function deleteKeys(
  d1: D1Database,
  t: MoveTable,
  accountId: number,
  keys: readonly Key[],
  fence: boolean,
) {
  const per = Math.floor(MAX_PARAMS / t.key.length);
  return chunks(keys, per).map((chunk) =>
    d1
      .prepare(
        `DELETE FROM ${q(t.name)} WHERE ${ofAccount(t, accountId)} AND ${keyTuple(t)} IN (VALUES ${Array(chunk.length).fill(marks(t.key.length)).join(', ')})${fence ? ` AND ${fenced(accountId)}` : ''}`,
      )
      .bind(...chunk.flat()),
  );
}

/**
 * Deletes up to `limit` of the account's rows of `t` (the clean-up's step); its result has a row
 * per row deleted (`meta.changes` would count the rows its triggers change too: the search index's).
 */
export const deleteSome = (d1: D1Database, t: MoveTable, accountId: number, limit: number) =>
  d1.prepare(
    `DELETE FROM ${q(t.name)} WHERE rowid IN (SELECT rowid FROM ${q(t.name)} WHERE ${ofAccount(t, accountId)} LIMIT ${limit}) RETURNING 1`,
  );

/** SHA-256 of `text`, hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A table's checksum so far, with one more page folded in: SHA-256 over the previous checksum and
 * the page's rows as JSON. Both shards' pages split at the same keys, so equal tables give equal sums.
 */
export const foldChecksum = (previous: string, rows: readonly Row[]) =>
  sha256(`${previous}\n${JSON.stringify(rows)}`);
