import { and, asc, eq, inArray, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { FieldError } from '../../core/errors';
import type { Said, SaidCode } from '../../core/said';
import type { Db } from '../../db/client';
import { inboundEventResults, inboundEvents, inboundWebhooks } from '../../db/schema';
import { shapes } from '../../db/shapes';
import { insertShaped } from '../../db/write-shapes';
import type { Rejection } from '../rules/config';
import { type EventMarkOutcome, MAX_EVENT_MARKS, MAX_MARK_ERROR_CHARS } from '../rules/event-history';
import { eventMoves, onlyFrom, statusIn } from './event-states';
import { retentionDays, type StorageVars } from './event-storage';

// The event log: every write to inbound_events but the LGPD erasure (db/erasure.ts, below this
// layer) is one of these functions, each move taking an event only from the statuses it allows
// (event-states.ts); releaseExpiredKey, which frees a key, changes no status. scripts/check-layers.mjs
// keeps the writes here. A function that returns a
// statement leaves it to the caller's batch, so the caller keeps its round trips.

const e = inboundEvents;
const DAY_MS = 24 * 60 * 60_000;
const attempted = sql`${e.attempts} + 1`;
const the = (move: keyof typeof eventMoves, id: number) => and(eq(e.id, id), statusIn(move));

/**
 * The event's history with one more mark, set in the statement of the move it records: the last
 * MAX_EVENT_MARKS only, so an event retried forever keeps a bounded history. `error` is an SQL
 * value (the give-up's is the error already stored), cut to MAX_MARK_ERROR_CHARS.
 */
const marked = (outcome: EventMarkOutcome, at: number, error: SQL | string | null = null) => {
  const mark = sql`json_object('at', ${at}, 'outcome', ${outcome}, 'error', substr(${error}, 1, ${MAX_MARK_ERROR_CHARS}))`;
  return sql`json_insert(case when json_array_length(${e.history}) >= ${MAX_EVENT_MARKS}
    then json_remove(${e.history}, '$[0]') else ${e.history} end, '$[#]', ${mark})`;
};

/** An event's failure: its English words, and its code and params, which the panel words. */
const failure = ({ code, params, message }: Said) => ({
  error: message,
  errorCode: code,
  errorParams: params ?? {},
});
const noFailure = { error: null, errorCode: null, errorParams: null };

/** The webhook an event is stored for. */
export type Hook = Pick<typeof inboundWebhooks.$inferSelect, 'accountId' | 'id' | 'mode'>;
/** What ingest keeps of an accepted call. */
export type Accepted = {
  payload: string;
  headers: Record<string, string>;
  idempotencyKey: string | undefined;
  warnings: FieldError[];
  lead: string[];
};

/** new → pending: an accepted call, unless a live event holds its Idempotency-Key (no row then). */
export const storeEvent = (db: Db, hook: Hook, event: Accepted, now: number) =>
  insertShaped(
    db,
    e,
    {
      accountId: hook.accountId,
      webhookId: hook.id,
      mode: hook.mode,
      status: eventMoves.store.to,
      ...event,
      receivedAt: now,
      queuedAt: now,
    },
    'store',
    // A live duplicate key: the event is already stored, so this call stores nothing.
    (insert) => insert.onConflictDoNothing().returning({ id: e.id }),
  );

const keyOf = (webhookId: number, key: string) => and(eq(e.webhookId, webhookId), eq(e.idempotencyKey, key));

/** Frees `key` from the webhook's event that took it before `since` (its status stays). */
export function releaseExpiredKey(db: Db, webhookId: number, key: string, since: number) {
  const where = and(keyOf(webhookId, key), lt(e.receivedAt, since));
  return shapes.statement(db, 'release key', [where], () =>
    db.update(e).set({ idempotencyKey: null }).where(where),
  );
}

/** The event holding `key`, unless its payload is `text` (read only when a retry differs). */
export function keyHolder(db: Db, webhookId: number, key: string, text: string) {
  const where = and(keyOf(webhookId, key), ne(e.payload, text));
  return shapes.statement(db, 'key holder', [where], () =>
    db.select({ payload: e.payload, headers: e.headers }).from(e).where(where),
  );
}

/**
 * new → rejected: a refused call with the problem its sender got, and the trim of the webhook's
 * rejected events, as the two statements of one batch.
 */
export const rejectEvent = (
  db: Db,
  hook: Hook,
  event: { headers: Record<string, string>; rejection: Rejection; lead: string[] },
  now: number,
) =>
  [
    db.insert(e).values({
      accountId: hook.accountId,
      webhookId: hook.id,
      mode: hook.mode,
      status: eventMoves.reject.to,
      payload: 'null',
      ...event,
      receivedAt: now,
      queuedAt: now,
    }),
    trimRejections(db, hook.accountId, hook.id),
  ] as const;

/** How many rejected events a webhook keeps, newest first: a flood of bad calls cannot grow D1. */
export const MAX_REJECTED_EVENTS = 100;
/** Beyond those, the newest rejection of each of this many distinct problems (the newest ones), and the first of as many (the earliest). */
export const MAX_KEPT_PROBLEMS = 50;

/**
 * rejected → deleted: webhook `webhookId`'s rejected events beyond the newest MAX_REJECTED_EVENTS,
 * except the newest and the first of each distinct problem, so a burst of junk cannot flush the
 * evidence of a real refusal. A problem is its code and its first error's path and code, and the
 * caller's User-Agent: junk with the same problem as a real refusal (a missing required field is
 * the usual case for both) comes from another client, so the real one stays the newest of its own
 * problem; and a real refusal that came first stays the first. At most 200 per webhook.
 */
export function trimRejections(db: Db, accountId: number, webhookId: number) {
  const status = onlyFrom('trim');
  const own = sql`r.account_id = ${accountId} and r.webhook_id = ${webhookId} and r.status = ${status}`;
  const problem = sql`json_array(json_extract(r.rejection, '$.code'), json_extract(r.rejection, '$.errors[0].path'), json_extract(r.rejection, '$.errors[0].code'), json_extract(r.headers, '$."user-agent"'))`;
  const ranked = sql`select r.id, r.received_at, row_number() over (partition by ${problem} order by r.received_at desc, r.id desc) as newest, row_number() over (partition by ${problem} order by r.received_at, r.id) as first from ${e} r where ${own}`;
  return db.delete(e).where(
    sql`${e.accountId} = ${accountId} and ${e.webhookId} = ${webhookId} and ${statusIn('trim')}
      and ${e.id} not in (select r.id from ${e} r where ${own} order by r.received_at desc, r.id desc limit ${MAX_REJECTED_EVENTS})
      and ${e.id} not in (select id from (${ranked}) where newest = 1 order by received_at desc, id desc limit ${MAX_KEPT_PROBLEMS})
      and ${e.id} not in (select id from (${ranked}) where first = 1 order by received_at, id limit ${MAX_KEPT_PROBLEMS})`,
  );
}

/** pending → test: what a test event's flows would have written. */
export const previewEvent = (
  db: Db,
  id: number,
  done: { preview: Record<string, unknown>; warnings: FieldError[] },
  now: number,
) =>
  db
    .update(e)
    .set({
      status: eventMoves.preview.to,
      ...done,
      processedAt: now,
      attempts: attempted,
      history: marked('previewed', now),
    })
    .where(the('preview', id));

/** pending → processed, in the batch that writes the event's records. */
export const processedEvent = (db: Db, id: number, warnings: FieldError[], now: number) =>
  db
    .update(e)
    // The warnings: what the mapping applied left out, which a mapping changed since ingest may change.
    .set({
      status: eventMoves.process.to,
      ...noFailure,
      warnings,
      processedAt: now,
      attempts: attempted,
      history: marked('processed', now),
    })
    .where(the('process', id));

/** pending → failed: a failure no retry can fix. */
export const failEvent = (db: Db, id: number, error: Said, now = Date.now()) =>
  db
    .update(e)
    .set({
      status: eventMoves.fail.to,
      ...failure(error),
      attempts: attempted,
      history: marked('failed', now, error.message),
    })
    .where(the('fail', id));

/** pending → pending: a transient failure, with the time its retry is due. */
export const noteRetry = (db: Db, id: number, error: Said, queuedAt: number, now = Date.now()) =>
  db
    .update(e)
    .set({
      attempts: attempted,
      ...failure(error),
      queuedAt,
      history: marked('retrying', now, error.message),
    })
    .where(the('retryNote', id));

/** pending → failed: events whose messages used up their retries, keeping their last error. */
export function giveUpEvents(db: Db, ids: number[], now = Date.now()) {
  const attempts = sql`${e.attempts} || case ${e.attempts} when 1 then ' attempt' else ' attempts' end`;
  return db
    .update(e)
    .set({
      status: eventMoves.giveUp.to,
      error: sql`'Gave up after ' || ${attempts} || ': ' || coalesce(${e.error}, 'unknown error')`,
      errorCode: 'gave_up' satisfies SaidCode,
      errorParams: sql`json_object('attempts', ${e.attempts}, 'last', ${e.error})`,
      // SET reads the row as it was: the mark keeps the last error the retries met.
      history: marked('gave_up', now, sql`${e.error}`),
    })
    .where(and(inArray(e.id, ids), statusIn('giveUp')));
}

/** pending → pending: up to 1,000 events last handed to the queue before `cutoff`, handed again `now`. */
export function requeueStrandedEvents(db: Db, cutoff: number, now: number) {
  const stranded = db
    .select({ id: e.id })
    .from(e)
    .where(and(statusIn('requeue'), lt(e.queuedAt, cutoff)))
    .limit(1000);
  return db
    .update(e)
    .set({ queuedAt: now, history: marked('requeued', now) })
    .where(inArray(e.id, stranded))
    .returning({ id: e.id });
}

/** failed → pending: the event `theEvent` picks, if it failed; returns its id then. */
export const replayFailed = (db: Db, theEvent: SQL | undefined, now: number) =>
  db
    .update(e)
    .set({ status: eventMoves.replay.to, ...noFailure, queuedAt: now, history: marked('replayed', now) })
    .where(and(theEvent, statusIn('replay')))
    .returning({ id: e.id });

/**
 * test → pending: the test event `theEvent` picks, if its webhook is in production now, handed to
 * the queue as a production event, which writes real records; returns its id then. Its preview
 * goes: the records it writes are its result.
 */
export const promoteTestEvent = (db: Db, theEvent: SQL | undefined, now: number) =>
  db
    .update(e)
    .set({
      status: eventMoves.promote.to,
      mode: 'production',
      preview: null,
      ...noFailure,
      queuedAt: now,
      history: marked('promoted', now),
    })
    .where(
      and(
        theEvent,
        statusIn('promote'),
        sql`exists (select 1 from ${inboundWebhooks} w where w.account_id = ${e.accountId} and w.id = ${e.webhookId} and w.mode = 'production')`,
      ),
    )
    .returning({ id: e.id });

/**
 * processed | test | failed | rejected → deleted: up to `limit` of the events `where` selects,
 * oldest first, each with its result row (the records stay), as two statements of the caller's
 * batch (one transaction). The pick runs once per statement, so its order is total and both
 * statements take the same events.
 */
export function discardEvents(db: Db, where: SQL | undefined, limit: number) {
  const due = db
    .select({ id: e.id })
    .from(e)
    .where(and(where, statusIn('discard')))
    .orderBy(asc(e.receivedAt), asc(e.id))
    .limit(limit);
  return [
    db.delete(inboundEventResults).where(sql`${inboundEventResults.eventId} in ${due}`),
    db.delete(e).where(sql`${e.id} in ${due}`).returning({ id: e.id }),
  ] as const;
}

/** Events the cron deletes per batch, and batches per run: 5,000 events every 5 minutes at most. */
export const EVENT_PURGE_BATCH = 500;
export const EVENT_PURGE_ROUNDS = 10;

/**
 * processed | test | failed | rejected → deleted: the cron's retention purge of events received
 * before the retention, oldest first, in bounded batches, each deleted with its result row (which
 * records the event wrote; the records stay) in one D1 batch. A `pending` event is never purged:
 * it has yet to be applied. The batch is picked twice (once per statement), so its order is total
 * (the id breaks ties of received_at): both statements must pick the same events. Returns the count.
 */
export async function purgeExpiredEvents(db: Db, now: number, vars: StorageVars): Promise<number> {
  const cutoff = now - retentionDays(vars) * DAY_MS;
  const due = sql`(select d.id from ${e} d where d.received_at < ${cutoff} and ${statusIn('purge', sql`d.status`)} order by d.received_at, d.id limit ${EVENT_PURGE_BATCH})`;
  let purged = 0;
  for (let round = 0; round < EVENT_PURGE_ROUNDS; round++) {
    const [, deleted] = await db.batch([
      db.delete(inboundEventResults).where(sql`${inboundEventResults.eventId} in ${due}`),
      db.delete(e).where(sql`${e.id} in ${due}`).returning({ id: e.id }),
    ]);
    purged += deleted.length;
    if (deleted.length < EVENT_PURGE_BATCH) break;
  }
  return purged;
}
