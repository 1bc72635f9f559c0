import { iso } from '../contracts/common';
import type { EntryRow } from './fanout';

/**
 * The body a journal entry is delivered as: `{ type, timestamp, data: <the entry> }`. Until the
 * journal's own presenter of an entry lands (the feed's, src/journal/), `data.data` and
 * `data.previous` are the record's snapshots as the journal stores them (keyed by property name).
 */
export const entryBody = (entry: EntryRow): string =>
  JSON.stringify({
    type: entry.type,
    timestamp: iso(entry.occurredAt),
    data: {
      id: entry.id,
      type: entry.type,
      occurred_at: iso(entry.occurredAt),
      record_type: entry.recordType,
      record_id: entry.recordId,
      version: entry.version,
      actor: entry.actor,
      data: entry.data,
      previous: entry.previous,
    },
  });
