import { and, desc, eq, sql } from 'drizzle-orm';
import { iso } from '../../contracts/common';
import { eventStatuses } from '../../core/statuses';
import type { Db } from '../../db/client';
import { inboundEvents } from '../../db/schema';
import { accountOf, type KeyRef } from '../../db/tenant';

// A webhook's overview: its events per hour by status over the last 7 days, its success rate and
// its last failure. Each read is one query for the page's batch; the overview is worked out here.

export type EventStatus = (typeof eventStatuses)[number];

const HOUR_MS = 3_600_000;
/** The hours the chart shows: 7 days, the current (partial) hour last. */
export const OVERVIEW_HOURS = 7 * 24;

/** The start of the chart's first hour: whole UTC hours, so every bar is one hour. */
export const overviewStart = (now: number) => (Math.floor(now / HOUR_MS) - OVERVIEW_HOURS + 1) * HOUR_MS;

/**
 * Webhook `id`'s events in each hour of the chart by the status they have now: one row per hour
 * (a recursive CTE makes the 168 hour starts), one count per status, each a seek on the covering
 * inbound_events_status_idx to its (status, hour) range. Each counts its range in the index, with
 * no sort: a GROUP BY of the hour would sort every event of the week, several times slower at
 * 10,000 events (docs/panel.md).
 */
export function hourlyQuery(db: Db, keyHash: KeyRef, id: number, now: number) {
  const start = overviewStart(now);
  const last = start + (OVERVIEW_HOURS - 1) * HOUR_MS;
  const hour = sql.raw(String(HOUR_MS));
  const e = inboundEvents;
  const count = (status: EventStatus) =>
    sql<number>`(select count(*) from ${e} where ${e.accountId} = ${accountOf(keyHash)} and ${e.webhookId} = ${id} and ${e.status} = ${status} and ${e.receivedAt} >= h.t and ${e.receivedAt} < h.t + ${hour})`
      .mapWith(Number)
      .as(status);
  // D1 names a result's columns by their SQL: each count needs its alias, or they would collide.
  return db
    .select({
      t: sql<number>`h.t`.mapWith(Number).as('t'),
      pending: count('pending'),
      processed: count('processed'),
      failed: count('failed'),
      test: count('test'),
      rejected: count('rejected'),
    })
    .from(
      sql`(with recursive h(t) as (select ${sql.raw(String(start))} union all select t + ${hour} from h where t < ${sql.raw(String(last))}) select t from h) as h`,
    );
}

type HourRow = { t: number } & Counts;

/** Webhook `id`'s latest event of `status` (any age), read backwards on the status index. */
export const latestQuery = (db: Db, keyHash: KeyRef, id: number, status: 'failed' | 'rejected') =>
  db
    .select({
      id: inboundEvents.id,
      status: inboundEvents.status,
      receivedAt: inboundEvents.receivedAt,
      error: inboundEvents.error,
      errorCode: inboundEvents.errorCode,
      errorParams: inboundEvents.errorParams,
      rejection: inboundEvents.rejection,
    })
    .from(inboundEvents)
    .where(
      and(
        eq(inboundEvents.accountId, accountOf(keyHash)),
        eq(inboundEvents.webhookId, id),
        eq(inboundEvents.status, status),
      ),
    )
    .orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id))
    .limit(1);

type Hourly = HourRow[];
type Latest = Awaited<ReturnType<typeof latestQuery>>;

export type Counts = Record<EventStatus, number>;

export type Overview = {
  /** The first hour's start (ISO); hour `i` of `hours` starts `i` hours later. */
  start: string;
  end: string;
  hours: Counts[];
  totals: Counts;
  /** processed ÷ (processed + failed): null when no event has settled. */
  rate: number | null;
  settled: number;
  /** The newest failed or rejected event: its id, time, status and why. */
  /**
   * `code`: a refused call's problem code, which words its detail, or a failure's `error_code`
   * with its `params` (src/panel/said-words.ts); '' for a failure stored before codes.
   */
  lastFailure: {
    id: number;
    at: string;
    status: 'failed' | 'rejected';
    error: string;
    code: string;
    params?: unknown;
  } | null;
};

const zero = (): Counts => ({ pending: 0, processed: 0, failed: 0, test: 0, rejected: 0 });

/** The overview out of the page batch's three reads. */
export function overviewOf(hourly: Hourly, failed: Latest, rejected: Latest, now: number): Overview {
  const start = overviewStart(now);
  const hours = Array.from({ length: OVERVIEW_HOURS }, zero);
  const totals = zero();
  for (const row of hourly) {
    const slot = hours[(row.t - start) / HOUR_MS];
    if (!slot) continue;
    for (const status of eventStatuses) {
      slot[status] += row[status];
      totals[status] += row[status];
    }
  }
  const settled = totals.processed + totals.failed;
  const newest = [...failed, ...rejected].sort((a, b) => b.receivedAt - a.receivedAt || b.id - a.id)[0];
  return {
    start: iso(start),
    end: iso(now),
    hours,
    totals,
    rate: settled ? totals.processed / settled : null,
    settled,
    lastFailure: newest
      ? {
          id: newest.id,
          at: iso(newest.receivedAt),
          status: newest.status === 'rejected' ? 'rejected' : 'failed',
          error: newest.error ?? newest.rejection?.detail ?? '',
          ...(newest.error
            ? { code: newest.errorCode ?? '', params: newest.errorParams ?? undefined }
            : { code: newest.rejection?.code ?? '', params: newest.rejection?.params }),
        }
      : null,
  };
}
