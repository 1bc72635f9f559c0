import { and, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client';
import { dialectOf, preparedItem } from '../db/drizzle-internals';
import type { Actor, Change, Journaling } from '../db/journaling';
import { type JournalRecordType, journalEntries } from '../db/schema';
import { shapes } from '../db/shapes';
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

/**
 * `statement`, prebuilt per shape (see `shapes`): a journal statement is long (the snapshot, its
 * extras' subqueries) and every write sends several, so Drizzle builds and renders each text once.
 * `sources` are the request's pieces (the write's `where`, the actor, the time), each used in the
 * query as it is; `shape` names the rest (the resource, the statement, the change).
 */
const shaped = (db: Db, shape: string, sources: readonly unknown[], query: () => SQL): BatchItem<'sqlite'> =>
  shapes.statement(db, `journal ${shape}`, sources, () => {
    const built = query();
    return Object.assign(statement(db, built), { getSQL: () => built });
  });

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
 * The journal's statements of one resource, prebuilt per shape: `inserted` entries of a type for
 * the rows `where` selects (and `also`), by `actor` at `now`; `about` a statement on those rows alone.
 */
function writersOf(source: JournalSource) {
  const t = source.table;
  const recordType = sql.raw(`'${source.recordType}'`);
  const typeOf = (change: JournalChange) => sql.raw(`'${source.recordType}.${change}'`);
  // `who` and `when` are the request's actor and time, each one SQL of its own: sources of the shape.
  const insert = (
    type: SQL,
    data: SQL | null,
    previous: SQL | null,
    who: SQL,
    when: SQL,
    where: SQL | undefined,
  ) =>
    sql`insert into ${e} (id, account_id, type, record_type, record_id, version, occurred_at, actor, data, previous)
      select ${newEntryId}, ${t.accountId}, ${type}, ${recordType}, ${t.id}, ${t.version} + 1, ${when}, ${who}, ${data ?? sql`null`}, ${previous ?? sql`null`}
      from ${t} where ${where ?? sql`1`}`;
  // An insert of entries of `type` for the rows `where` selects (and `also`), prebuilt per shape:
  // `name` tells the call (whose data, previous and also are its constants).
  const inserted = (
    db: Db,
    name: string,
    [type, data, previous]: [JournalChange, SQL | null, SQL | null],
    actor: Actor,
    now: number,
    where: SQL | undefined,
    also?: SQL,
  ) => {
    const who = actorJson(actor);
    const when = sql`${now}`;
    return shaped(db, `${source.recordType} ${name} ${type}`, [where, who, when], () =>
      insert(typeOf(type), data, previous, who, when, also ? and(where, also) : where),
    );
  };
  // A statement about the rows `where` selects alone, prebuilt per shape.
  const about = (db: Db, name: string, where: SQL | undefined, query: (where: SQL) => SQL) =>
    shaped(db, `${source.recordType} ${name}`, [where], () => query(where ?? sql`1`));
  return { inserted, about };
}

/**
 * A resource's first entries and versions: `created` for each row new to the journal that `where`
 * selects, `moved` each row with an entry of its next version to it.
 */
function versionsOf(
  source: JournalSource,
  inserted: ReturnType<typeof writersOf>['inserted'],
  about: ReturnType<typeof writersOf>['about'],
) {
  const t = source.table;
  const recordType = sql.raw(`'${source.recordType}'`);
  const snapshot = snapshotSql(source);
  // Whether the row in the statement's FROM has an entry of its next version.
  const journaledNext = sql`exists (select 1 from ${e} where ${e.accountId} = ${t.accountId} and ${e.recordType} = ${recordType} and ${e.recordId} = ${t.id} and ${e.version} = ${t.version} + 1)`;
  // A row written without the journal (before it, or by a seed) has no version 1 yet: its first
  // change is its first entry, not a creation.
  const created = (db: Db, where: SQL | undefined, actor: Actor, now: number) =>
    inserted(
      db,
      'created',
      ['created', snapshot, null],
      actor,
      now,
      where,
      and(sql`${t.version} = 0`, sql`not ${journaledNext}`),
    );
  // Each row with an entry of its next version moves to it.
  const moved = (db: Db, where: SQL | undefined) =>
    about(
      db,
      'version',
      where,
      (mine) =>
        sql`update ${t} set ${sql.raw('version')} = ${t.version} + 1 where ${mine} and ${journaledNext}`,
    );
  return { created, moved };
}

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
  const { inserted, about } = writersOf(source);
  const { created, moved } = versionsOf(source, inserted, about);
  // The entry of version `row's + step` of each row `where` selects.
  const at = (where: SQL | undefined, step: 0 | 1) =>
    sql`(${e.accountId}, ${e.recordType}, ${e.recordId}, ${e.version}) in (select ${t.accountId}, ${recordType}, ${t.id}, ${t.version} + ${sql.raw(String(step))} from ${t} where ${where ?? sql`1`})`;
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
      inserted(db, 'placeholder', [change, null, snapshot], actor, now, where, sql`${t.version} > 0`),
    opened: (account) =>
      // By id alone: ids are unique across accounts (AUTOINCREMENT), and the entry names its account's row.
      sql`${t.id} in (select ${e.recordId} from ${e} where ${e.recordType} = ${recordType} and ${e.data} is null${account === undefined ? sql`` : sql` and ${e.accountId} = ${account}`})`,
    erased: (db, where, actor, now) => [
      about(
        db,
        'erase',
        where,
        (mine) => sql`update ${e} set ${sql.raw('data')} = null, ${sql.raw('previous')} = null
          where (${e.accountId}, ${e.recordType}, ${e.recordId}) in (select ${t.accountId}, ${recordType}, ${t.id} from ${t} where ${mine})`,
      ),
      inserted(db, 'erased', ['erased', null, null], actor, now, where),
    ],
    gone: (db, where, actor, now) => inserted(db, 'gone', ['deleted', snapshot, null], actor, now, where),
    created: (db, where, actor, now) => [created(db, where, actor, now), moved(db, where)],
    after: (db, where, actor, now): BatchItem<'sqlite'>[] => [
      created(db, where, actor, now),
      // In this order, so that a placeholder keeps its null data (what `opened` finds it by) until
      // the last statement: drop those whose row did not change (or is gone), move each row with
      // an entry of its next version to it, then fill the placeholders with the row as it is.
      about(
        db,
        'drop',
        where,
        (mine) =>
          sql`delete from ${e} where ${at(mine, 1)} and ${e.data} is null and (${current} is null or ${unchanged})`,
      ),
      moved(db, where),
      about(
        db,
        'fill',
        where,
        (
          mine,
        ) => sql`update ${e} set ${sql.raw('data')} = ${current}, ${sql.raw('type')} = case when ${e.type} = ${sql.raw(`'${source.recordType}.updated'`)} then ${updated} else ${e.type} end
          where ${at(mine, 0)} and ${e.data} is null`,
      ),
    ],
  };
}
