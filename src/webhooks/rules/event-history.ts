/**
 * What each mark of an event's history says happened, one per move of the event log after the
 * event was stored (docs/webhooks.md, "Event states"): an attempt of the consumer (`processed`,
 * `previewed`, `failed`, `retrying`), the dead-letter queue's `gave_up`, the cron's `requeued`,
 * and what a person asked for (`replayed`, `promoted`: a test event processed for real).
 */
export const eventMarks = [
  'processed',
  'previewed',
  'failed',
  'retrying',
  'gave_up',
  'requeued',
  'replayed',
  'promoted',
] as const;

export type EventMarkOutcome = (typeof eventMarks)[number];

/** One mark: when (ms since the epoch), what happened, and the error of a failed attempt. */
export type EventMark = { at: number; outcome: EventMarkOutcome; error: string | null };

/** How many marks an event keeps, the newest: an event failing forever cannot grow without bound. */
export const MAX_EVENT_MARKS = 20;

/** How much of an error a mark keeps (the event's `error` column keeps the last one whole). */
export const MAX_MARK_ERROR_CHARS = 500;
