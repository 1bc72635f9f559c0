import { eq, inArray, ne, type SQL, type SQLWrapper } from 'drizzle-orm';
import { eventStatuses } from '../../core/statuses';
import { inboundEvents } from '../../db/schema';

/** The status of an event in the log. */
export type EventStatus = (typeof eventStatuses)[number];
/** Where an event comes from before its first write: the call that ingest reads. */
export const NEW = 'new';
/** Where a delete takes an event: out of the log. */
export const GONE = 'deleted';

type Move = {
  from: readonly (EventStatus | typeof NEW)[];
  to: EventStatus | typeof GONE;
  /** Who makes the move, and (in parentheses) its function in webhooks/log/event-log.ts. */
  by: string;
};

/**
 * THE state machine of inbound_events: every write that adds an event, moves it (to another status,
 * or to the same one with a new hand-over to the queue) or deletes it, with the statuses it may
 * start from. Each write in event-log.ts takes
 * its WHERE from here (statusIn), and test/webhooks/event-states.test.ts runs each one against
 * an event in every status, so a move this table does not allow cannot happen.
 */
export const eventMoves = {
  store: { from: [NEW], to: 'pending', by: 'ingest: an accepted call (storeEvent)' },
  reject: { from: [NEW], to: 'rejected', by: 'ingest: a refused call, kept (rejectEvent)' },
  preview: { from: ['pending'], to: 'test', by: 'consumer: a test-mode event (previewEvent)' },
  // `failed` too: a give-up that raced a delivery whose records were written (the event's result
  // row is the claim, so the records are the truth).
  process: { from: ['pending', 'failed'], to: 'processed', by: 'consumer: records written (processedEvent)' },
  fail: { from: ['pending'], to: 'failed', by: 'consumer: a permanent failure (failEvent)' },
  retryNote: { from: ['pending'], to: 'pending', by: 'consumer: a transient failure, retried (noteRetry)' },
  giveUp: { from: ['pending'], to: 'failed', by: 'dead-letter queue: retries used up (giveUpEvents)' },
  requeue: {
    from: ['pending'],
    to: 'pending',
    by: 'cron: not handed to the queue for 5 minutes, a failed send or a lost retry (requeueStrandedEvents)',
  },
  replay: { from: ['failed'], to: 'pending', by: 'POST …/replay and the panel (replayFailed)' },
  // Only once the webhook is in production (the function checks it): the event writes real records.
  promote: {
    from: ['test'],
    to: 'pending',
    by: 'POST …/process and the panel: a test event processed for real (promoteTestEvent)',
  },
  trim: { from: ['rejected'], to: GONE, by: 'ingest: beyond the kept rejections (trimRejections)' },
  // Not `pending`: an event still to be applied is a lead on its way (it leaves pending in minutes).
  discard: {
    from: ['processed', 'failed', 'test', 'rejected'],
    to: GONE,
    by: 'DELETE …/events and the panel: the account deletes events (discardEvents)',
  },
  purge: {
    from: ['processed', 'failed', 'test', 'rejected'],
    to: GONE,
    by: 'cron: past the retention (purgeExpiredEvents)',
  },
} as const satisfies Record<string, Move>;

export type EventMove = keyof typeof eventMoves;

/** The statuses an existing event may be in for `move` to take it. */
export const from = (move: EventMove): EventStatus[] =>
  eventMoves[move].from.filter((s): s is EventStatus => s !== NEW);

/**
 * The WHERE term that lets `move` take only an event in one of its source statuses, as plainly as
 * SQL says it (`=`, `<>` or `in`), so the indexes on status serve it as before.
 */
export function statusIn(move: EventMove, status: SQLWrapper = inboundEvents.status): SQL {
  const sources = from(move);
  const others = eventStatuses.filter((s) => !sources.includes(s));
  const [only] = sources;
  if (sources.length === 1 && only) return eq(status, only);
  const [other] = others;
  if (others.length === 1 && other) return ne(status, other);
  return inArray(status, sources);
}

/** The one status `move` starts from, for raw SQL that names it (trimRejections). */
export function onlyFrom(move: EventMove): EventStatus {
  const [only, ...rest] = from(move);
  if (!only || rest.length) throw new Error(`${move} starts from ${from(move).length} statuses`);
  return only;
}
