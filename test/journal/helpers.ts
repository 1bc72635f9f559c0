import { d1Of, d1OfRow } from '../helpers';

export type Entry = {
  seq: number;
  id: string;
  type: string;
  record_type: string;
  record_id: number;
  version: number;
  occurred_at: number;
  actor: Record<string, unknown>;
  data: Record<string, unknown> | null;
  previous: Record<string, unknown> | null;
};

/** The account's journal entries as stored, oldest first (optionally one record's). */
export async function entriesOf(accountId: number, recordType?: string, recordId?: number): Promise<Entry[]> {
  const { results } = await d1Of(accountId)
    .prepare(
      `select * from journal_entries where account_id = ?1
       and (?2 is null or record_type = ?2) and (?3 is null or record_id = ?3) order by seq`,
    )
    .bind(accountId, recordType ?? null, recordId ?? null)
    .all<Record<string, unknown>>();
  return results.map((row) => ({
    ...(row as unknown as Entry),
    actor: JSON.parse(row.actor as string),
    data: row.data === null ? null : JSON.parse(row.data as string),
    previous: row.previous === null ? null : JSON.parse(row.previous as string),
  }));
}

/** The record's version column. */
export async function versionOf(table: string, id: number): Promise<number | undefined> {
  const row = await d1OfRow(table, id)
    .prepare(`select version from ${table} where id = ?`)
    .bind(id)
    .first<{ version: number }>();
  return row?.version;
}
