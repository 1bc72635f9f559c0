import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../db/schema';
import type { EndpointRow } from './endpoints';
import { MAX_TRIES, retryDelayS } from './schedule';
import type { AttemptOutcome } from './send';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
const d = webhookDeliveries;

/** An attempt under way holds its delivery this long (past the send's 15 s timeout), then the cron may take it. */
export const LEASE_MS = 60_000;
/** An endpoint failing without a break this long is turned off. */
export const FAILING_DISABLES_MS = 5 * 24 * 3600_000;

/** A delivery to make: one message to one endpoint. */
export type NewDelivery = {
  accountId: number;
  endpointId: number;
  messageId: string;
  type: string;
  body: string;
  recordKey?: string | null;
  version?: number | null;
};

/** A delivery made to be tried at once by its maker (a ping): its first attempt already under way. */
export const underWay = (now: number) => ({ attempts: 1, tries: 1, nextAttemptAt: now + LEASE_MS });

// D1 binds at most 100 parameters per statement: a delivery row takes 14 (its defaults are bound too).
const ROWS_PER_INSERT = 6;

/**
 * Insert statements for deliveries, each due now (or `state`). A message already delivered to that
 * endpoint is left alone (the unique (endpoint, message) index): a fan-out run twice makes each
 * delivery once. Each statement returns the rows it inserted.
 */
export function deliveryInserts(db: Db, rows: NewDelivery[], now: number, state = { nextAttemptAt: now }) {
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    statements.push(
      db
        .insert(d)
        .values(chunk.map((row) => ({ ...row, ...state, createdAt: now, updatedAt: now })))
        .onConflictDoNothing({ target: [d.endpointId, d.messageId] })
        .returning(),
    );
  }
  return statements;
}

/** Inserts deliveries in one round trip; the rows inserted. */
export async function insertDeliveries(
  db: Db,
  rows: NewDelivery[],
  now: number,
  state = { nextAttemptAt: now },
) {
  const [first, ...rest] = deliveryInserts(db, rows, now, state);
  if (!first) return [];
  const results = await db.batch([first, ...rest]);
  return results.flat();
}

/** A pending delivery of the same record to the same endpoint, of an earlier version. */
const earlierPending = sql`exists (select 1 from ${d} as earlier where earlier.endpoint_id = ${d.endpointId} and earlier.record_key = ${d.recordKey} and earlier.version < ${d.version} and earlier.status = 'pending')`;
const endpointOn = sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.id} = ${d.endpointId} and ${webhookEndpoints.enabled} and ${webhookEndpoints.deletedAt} is null)`;
const due = (id: number, now: number) =>
  and(eq(d.id, id), eq(d.status, 'pending'), lte(d.nextAttemptAt, now));

export type Claim =
  | { kind: 'send'; delivery: DeliveryRow; endpoint: EndpointRow }
  | { kind: 'endpoint_off'; delivery: DeliveryRow }
  | { kind: 'none' };

/**
 * Takes delivery `id` for one attempt, in one round trip: only when it is due, its endpoint is on,
 * and no earlier version of its record is still pending for that endpoint. One blocked by an
 * earlier version waits (no due time) until that one ends (see `recordAttempt`): the order of a
 * record's versions at a receiver is never broken while an earlier one is retried. The lease
 * keeps a second message for the same delivery (the cron's, a duplicate) from sending it twice.
 */
export async function claimDelivery(db: Db, id: number, now: number): Promise<Claim> {
  const [claimed, , rows] = await db.batch([
    db
      .update(d)
      .set({ tries: sql`${d.tries} + 1`, attempts: sql`${d.attempts} + 1`, nextAttemptAt: now + LEASE_MS })
      .where(and(due(id, now), endpointOn, sql`not ${earlierPending}`))
      .returning(),
    db
      .update(d)
      .set({ nextAttemptAt: null })
      .where(and(due(id, now), endpointOn, earlierPending)),
    db
      .select({ endpoint: webhookEndpoints, delivery: d })
      .from(d)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, d.endpointId))
      .where(eq(d.id, id)),
  ]);
  const [delivery] = claimed;
  const found = rows[0];
  if (delivery && found) return { kind: 'send', delivery, endpoint: found.endpoint };
  const off = found && (!found.endpoint.enabled || found.endpoint.deletedAt !== null);
  if (off && found.delivery.status === 'pending') return { kind: 'endpoint_off', delivery: found.delivery };
  return { kind: 'none' };
}

/** `retries`: false for a ping, tried once. `retryScale`: the schedule's factor (1 but in a local drill). */
export type AttemptOptions = { retries: boolean; retryScale?: number };

/** The status after an attempt, and when the next one is due (null: none). */
function next(delivery: DeliveryRow, outcome: AttemptOutcome, options: AttemptOptions) {
  if (outcome.ok) return { status: 'succeeded' as const, nextAttemptAt: null };
  if (outcome.abort) return { status: 'aborted' as const, nextAttemptAt: null };
  const delayS =
    options.retries && !outcome.gone
      ? retryDelayS(delivery.tries, outcome.retryAfterS, Math.random(), options.retryScale)
      : undefined;
  if (delayS === undefined || delivery.tries >= MAX_TRIES)
    return { status: 'failed' as const, nextAttemptAt: null };
  return { status: 'pending' as const, nextAttemptAt: outcome.at + delayS * 1000 };
}

/** Statements that let the next version of the record go, once this delivery has ended. */
const unblockNext = (db: Db, delivery: DeliveryRow, now: number) =>
  db
    .update(d)
    .set({ nextAttemptAt: now })
    .where(
      eq(
        d.id,
        sql`(select id from ${d} where ${and(
          eq(d.endpointId, delivery.endpointId),
          eq(d.recordKey, delivery.recordKey ?? ''),
          eq(d.status, 'pending'),
          isNull(d.nextAttemptAt),
        )} order by ${d.version} limit 1)`,
      ),
    )
    .returning({ id: d.id });

export type Recorded = {
  status: DeliveryRow['status'];
  nextAttemptAt: number | null;
  /** Deliveries this one's end lets go (the record's next version): to queue now. */
  released: number[];
  /** Whether the endpoint went off with this attempt (a 410, or 5 days failing), and why. */
  disabled: 'gone' | 'failing' | null;
};

/**
 * Writes an attempt's outcome in one round trip: its log row, the delivery's state and the
 * endpoint's failing streak (a success ends it; a 410, or a streak of 5 days, turns it off).
 */
export async function recordAttempt(
  db: Db,
  delivery: DeliveryRow,
  outcome: AttemptOutcome,
  options: AttemptOptions,
): Promise<Recorded> {
  const { status, nextAttemptAt } = next(delivery, outcome, options);
  const e = webhookEndpoints;
  const streakStart = outcome.ok ? null : sql`coalesce(${e.failingSince}, ${outcome.at})`;
  const failingTooLong = sql`coalesce(${e.failingSince}, ${outcome.at}) <= ${outcome.at - FAILING_DISABLES_MS}`;
  const reason = outcome.gone ? sql`'gone'` : sql`case when ${failingTooLong} then 'failing' else null end`;
  const ended = status !== 'pending';
  const [, , endpoint, released] = await db.batch([
    db.insert(webhookAttempts).values({
      accountId: delivery.accountId,
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      at: outcome.at,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      response: outcome.response,
      error: outcome.error,
    }),
    db.update(d).set({ status, nextAttemptAt, updatedAt: outcome.at }).where(eq(d.id, delivery.id)),
    db
      .update(e)
      .set(
        outcome.ok
          ? { failingSince: null }
          : {
              failingSince: streakStart as SQL<number>,
              enabled: sql`case when ${reason} is null then ${e.enabled} else 0 end`,
              disabledReason: sql`coalesce(${reason}, ${e.disabledReason})`,
            },
      )
      .where(eq(e.id, delivery.endpointId))
      .returning({ enabled: e.enabled, reason: e.disabledReason }),
    ended && delivery.recordKey
      ? unblockNext(db, delivery, outcome.at)
      : db.select({ id: d.id }).from(d).where(sql`0`),
  ]);
  const after = endpoint[0];
  const disabled = !outcome.ok && after && !after.enabled && after.reason ? after.reason : null;
  return { status, nextAttemptAt, released: released.map((r) => r.id), disabled };
}

/** A delivery whose endpoint went off before its attempt: failed, so a recover can send it again. */
export async function failUnsent(db: Db, delivery: DeliveryRow, now: number): Promise<number[]> {
  const [, released] = await db.batch([
    db.update(d).set({ status: 'failed', nextAttemptAt: null, updatedAt: now }).where(eq(d.id, delivery.id)),
    delivery.recordKey ? unblockNext(db, delivery, now) : db.select({ id: d.id }).from(d).where(sql`0`),
  ]);
  return released.map((r) => r.id);
}

/**
 * Deliveries due longer than `cutoff` ago: their message was lost (a send that failed after the
 * commit, a consumer that died mid-attempt past its lease). The cron queues them again; the claim
 * keeps a duplicate from sending twice.
 */
export const strandedDeliveries = (db: Db, cutoff: number, limit = 100) =>
  db
    .select({ id: d.id })
    .from(d)
    .where(and(eq(d.status, 'pending'), isNotNull(d.nextAttemptAt), lt(d.nextAttemptAt, cutoff)))
    .orderBy(asc(d.nextAttemptAt))
    .limit(limit);

/** Sends ended deliveries again (of `statuses`): a new round of tries, due now. */
export const reopen = (db: Db, where: SQL | undefined, statuses: DeliveryRow['status'][], now: number) =>
  db
    .update(d)
    .set({ status: 'pending', tries: 0, nextAttemptAt: now, updatedAt: now })
    .where(and(where, inArray(d.status, statuses)))
    .returning({ id: d.id });
