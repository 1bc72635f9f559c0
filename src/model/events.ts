import type { z } from '@hono/zod-openapi';
import { iso } from '../contracts/common';
import type { ChangeEvent } from '../contracts/events';
import type { JournalRecordType } from '../db/schema';
import type { EntryRow } from '../journal/reads';
import { type SnapshotSpec, snapshotRow } from '../journal/snapshot';
import { resourceByKind } from './resources';

type Presented = Record<string, unknown>;
type RecordView = { spec: SnapshotSpec; present: (row: never) => Presented; derived?: readonly string[] };

/** Each record type's snapshot spec, presenter and derived fields, from the registry. */
const records: Record<JournalRecordType, RecordView> = resourceByKind;

/** Types that tell what changed: the update and its named forms. */
const CHANGES = /\.(updated|completed|reopened)$|^[a-z]+\.restored$/;

/** The fields whose value differs between two presented versions (updated_at always moves). */
function changedFields(before: Presented, after: Presented, derived: readonly string[] = []): string[] {
  return Object.keys(after).filter(
    (key) =>
      key !== 'updated_at' &&
      !derived.includes(key) &&
      JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}

/** A journal entry as the API shows it: its snapshots through the record's own presenter. */
export function presentEntry(row: EntryRow): z.infer<typeof ChangeEvent> {
  const record = records[row.recordType];
  const shown = (snapshot: Record<string, unknown> | null) =>
    snapshot === null ? null : record.present(snapshotRow(record.spec, snapshot) as never);
  const data = shown(row.data);
  const before = shown(row.previous);
  const changed =
    data && before && CHANGES.test(row.type) ? changedFields(before, data, record.derived) : null;
  return {
    id: row.id,
    type: row.type,
    occurred_at: iso(row.occurredAt),
    record_type: row.recordType,
    record_id: row.recordId,
    version: row.version,
    actor: row.actor,
    changed_fields: changed,
    previous: changed && Object.fromEntries(changed.map((key) => [key, before?.[key] ?? null])),
    data,
  };
}
