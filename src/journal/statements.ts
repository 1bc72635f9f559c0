import { and, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { dialectOf, preparedItem } from '../db/drizzle-internals';
import type { Actor, Change, Journaling } from '../db/journaling';
import { type JournalRecordType, journalEntries } from '../db/schema';
import { actorJson } from './actor';
import { type SnapshotSpec, snapshotSql } from './snapshot';
import type { JournalChange } from './types';

const e = journalEntries;

/**
 * A statement of raw SQL for a batch. Drizzle's `db.run` cannot go into a D1 batch with
 * parameters (its item has no prepared statement to bind), so it is prepared as the shapes are.
 */
export const statement = (db: Db, query: SQL): BatchItem<'sqlite'> =>
  preparedItem(db, dialectOf(db).sqlToQuery(query), undefined, undefined) as unknown as BatchItem<'sqlite'>;

/** A new entry's public id: `evt_` and 96 random bits, made by SQLite in the entry's statement. */
export const newEntryId = sql<string>`'evt_' || lower(hex(randomblob(12)))`;

/** A journaled resource: its snapshot, and what its updates are called when they are more (a task's completion). */
export type JournalSource = SnapshotSpec & {
  recordType: JournalRecordType;
  /** The type of an update, from the snapshots before and after it; default `<type>.updated`. */
  updateType?: (previous: SQL, current: SQL) => SQL;
  /** Extras that follow other records (counts): kept in the snapshot, not a change of this one. */
  derived?: readonly string[];
};

/**
 * The change journal of one resource (see `Journaling`). Every statement is set-based and keyed
 * by the record's next version, so several records (a deal's tasks, a flow's contact and company)
 * share a batch: a placeholder is the entry (account, type, record, row's version + 1) whose data
 * is still null, and it never outlives its batch.
 */
export function journalOf(source: JournalSource): Journaling {
  const t = source.table;
  const recordType = sql.raw(`'${source.recordType}'`);
  const snapshot = snapshotSql(source);
  const typeOf = (change: JournalChange) => sql.raw(`'${source.recordType}.${change}'`);
  const insert = (
    type: SQL,
    data: SQL | null,
    previous: SQL | null,
    actor: Actor,
    now: number,
    where: SQL | undefined,
  ) =>
    sql`insert into ${e} (id, account_id, type, record_type, record_id, version, occurred_at, actor, data, previous)
      select ${newEntryId}, ${t.accountId}, ${type}, ${recordType}, ${t.id}, ${t.version} + 1, ${now}, ${actorJson(actor)}, ${data ?? sql`null`}, ${previous ?? sql`null`}
      from ${t} where ${where ?? sql`1`}`;
  // The entry of version `row's + step` of each row `where` selects.
  const at = (where: SQL | undefined, step: 0 | 1) =>
    sql`(${e.accountId}, ${e.recordType}, ${e.recordId}, ${e.version}) in (select ${t.accountId}, ${recordType}, ${t.id}, ${t.version} + ${sql.raw(String(step))} from ${t} where ${where ?? sql`1`})`;
  // Whether the row in the statement's FROM has an entry of its next version.
  const journaledNext = sql`exists (select 1 from ${e} where ${e.accountId} = ${t.accountId} and ${e.recordType} = ${recordType} and ${e.recordId} = ${t.id} and ${e.version} = ${t.version} + 1)`;
  const current = sql`(select ${snapshot} from ${t} where ${t.accountId} = ${e.accountId} and ${t.id} = ${e.recordId})`;
  // An update that brings the row back from the trash (a webhook flow's CNPJ) is its restore.
  const updated = sql`case when json_extract(${e.previous}, '$.deletedAt') is not null and json_extract(${current}, '$.deletedAt') is null
    then ${sql.raw(`'${source.recordType}.restored'`)} else ${source.updateType?.(sql`${e.previous}`, current) ?? sql.raw(`'${source.recordType}.updated'`)} end`;
  // What a write itself changed: updated_at moves on every write, and derived extras (a company's
  // counts of deals and contacts) change with other records, whose own entries tell of it.
  const ignored = sql.raw(['updatedAt', ...(source.derived ?? [])].map((key) => `'$.${key}'`).join(', '));
  const unchanged = sql`json_remove(${current}, ${ignored}) = json_remove(${e.previous}, ${ignored})`;
  return {
    // Only a journaled row (version > 0) keeps a placeholder: a row new to the journal, such as one
    // this batch inserted, gets its `created` entry from `after`.
    before: (db, where, change: Change, actor, now) =>
      statement(db, insert(typeOf(change), null, snapshot, actor, now, and(where, sql`${t.version} > 0`))),
    opened: (account) =>
      // By id alone: ids are unique across accounts (AUTOINCREMENT), and the entry names its account's row.
      sql`${t.id} in (select ${e.recordId} from ${e} where ${e.recordType} = ${recordType} and ${e.data} is null${account === undefined ? sql`` : sql` and ${e.accountId} = ${account}`})`,
    erased: (db, where, actor, now) => [
      statement(
        db,
        sql`update ${e} set ${sql.raw('data')} = null, ${sql.raw('previous')} = null
          where (${e.accountId}, ${e.recordType}, ${e.recordId}) in (select ${t.accountId}, ${recordType}, ${t.id} from ${t} where ${where ?? sql`1`})`,
      ),
      statement(db, insert(typeOf('erased'), null, null, actor, now, where)),
    ],
    gone: (db, where, actor, now) =>
      statement(db, insert(typeOf('deleted'), snapshot, null, actor, now, where)),
    after: (db, where, actor, now): BatchItem<'sqlite'>[] => [
      statement(
        db,
        insert(
          typeOf('created'),
          snapshot,
          null,
          actor,
          now,
          // A row written without the journal (before it, or by a seed) has no version 1 yet: its
          // first change is its first entry, not a creation.
          and(where, sql`${t.version} = 0`, sql`not ${journaledNext}`),
        ),
      ),
      // In this order, so that a placeholder keeps its null data (what `opened` finds it by) until
      // the last statement: drop those whose row did not change (or is gone), move each row with
      // an entry of its next version to it, then fill the placeholders with the row as it is.
      statement(
        db,
        sql`delete from ${e} where ${at(where, 1)} and ${e.data} is null and (${current} is null or ${unchanged})`,
      ),
      statement(
        db,
        sql`update ${t} set ${sql.raw('version')} = ${t.version} + 1 where ${where ?? sql`1`} and ${journaledNext}`,
      ),
      statement(
        db,
        sql`update ${e} set ${sql.raw('data')} = ${current}, ${sql.raw('type')} = case when ${e.type} = ${sql.raw(`'${source.recordType}.updated'`)} then ${updated} else ${e.type} end
          where ${at(where, 0)} and ${e.data} is null`,
      ),
    ],
  };
}
