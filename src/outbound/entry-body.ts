import { iso } from '../contracts/common';
import { logError } from '../core/log';
import { presentEntry } from '../model/events';
import type { EntryRow } from './fanout';

const envelope = (entry: EntryRow, data: unknown) =>
  JSON.stringify({ type: entry.type, timestamp: iso(entry.occurredAt), data });

/**
 * The body a journal entry is delivered as: `{ type, timestamp, data: <the entry> }`, the entry
 * exactly as `GET /v1/events` shows it (its record as `GET` returns it, `changed_fields`, `previous`).
 * An entry the presenter cannot show (a snapshot of a shape no longer read) still goes out, as its
 * envelope without the record: one account's bad row must not stop every account's fan-out, which
 * reads the journal in one order for all, and nothing is dropped without a trace in the log.
 */
export function entryBody(entry: EntryRow): string {
  try {
    return envelope(entry, presentEntry(entry));
  } catch (error) {
    logError(error, `journal:${entry.id}`);
    return envelope(entry, {
      id: entry.id,
      type: entry.type,
      occurred_at: iso(entry.occurredAt),
      record_type: entry.recordType,
      record_id: entry.recordId,
      version: entry.version,
      actor: entry.actor,
      changed_fields: null,
      previous: null,
      data: null,
    });
  }
}
