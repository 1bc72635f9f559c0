import type { JournalActor, JournalRecordType } from '../db/schema';

export type { JournalActor, JournalRecordType };

/** What happened to a record (the second half of an entry's `type`). */
export type JournalChange =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'restored'
  | 'completed'
  | 'reopened'
  | 'erased';

/** An entry as the API shows it (the feed, a record's history, an outbound webhook's `data`). */
export type JournalEntry = {
  id: string;
  type: `${JournalRecordType}.${JournalChange}`;
  occurred_at: string;
  record_type: JournalRecordType;
  record_id: number;
  version: number;
  actor: JournalActor;
  /** On updates (and task.completed / task.reopened): the API fields that changed. */
  changed_fields: string[] | null;
  /** On updates: the old values of `changed_fields`. */
  previous: Record<string, unknown> | null;
  /** The record exactly as `GET` returns it after the change; null for `contact.erased`. */
  data: Record<string, unknown> | null;
};
