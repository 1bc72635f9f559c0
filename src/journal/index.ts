import { type SQL, sql } from 'drizzle-orm';
import type { Journaling } from '../db/journaling';
import type { JournalRecordType } from '../db/schema';
import type { SnapshotSpec } from './snapshot';
import { type JournalSource, journalOf } from './statements';

export type { JournalEntry } from './types';

/** A write spec with its change journal: every path that writes through the spec appends entries. */
export const journaled = <S extends SnapshotSpec>(
  recordType: JournalRecordType,
  spec: S,
  options: Pick<JournalSource, 'updateType' | 'derived'> = {},
): S & { journal: Journaling } => ({ ...spec, journal: journalOf({ ...spec, recordType, ...options }) });

/** A task's update that sets or clears its completion is `task.completed` / `task.reopened`. */
export const taskUpdateType = (previous: SQL, current: SQL): SQL => {
  const was = sql`json_extract(${previous}, '$.completedAt')`;
  const now = sql`json_extract(${current}, '$.completedAt')`;
  return sql`case when ${was} is null and ${now} is not null then 'task.completed'
    when ${was} is not null and ${now} is null then 'task.reopened' else 'task.updated' end`;
};
