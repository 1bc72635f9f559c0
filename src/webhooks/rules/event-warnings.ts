import type { FieldError } from '../../core/errors';

/**
 * The codes of the warnings the consumer writes afresh each time it applies the webhook's current
 * mapping to an event (a field left out, a reserved key left out by `readFields`, an action
 * skipped or run in part).
 */
const MAPPING_CODES: ReadonlySet<string> = new Set([
  'dropped',
  'reserved_key',
  'step_skipped',
  'no_due_date',
  'owner_unavailable',
]);

/** What ingest noted about the call itself (its charset), which no mapping changes. */
export const ingestWarnings = (stored: readonly FieldError[]): FieldError[] =>
  stored.filter((w) => !MAPPING_CODES.has(w.code));
