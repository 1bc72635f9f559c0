import { iso } from '../contracts/common';
import { presentEntry } from '../model/events';
import type { EntryRow } from './fanout';

/**
 * The body a journal entry is delivered as: `{ type, timestamp, data: <the entry> }`, the entry
 * exactly as `GET /v1/events` shows it (its record as `GET` returns it, `changed_fields`, `previous`).
 */
export const entryBody = (entry: EntryRow): string =>
  JSON.stringify({ type: entry.type, timestamp: iso(entry.occurredAt), data: presentEntry(entry) });
