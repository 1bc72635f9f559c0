import { and, count, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { iso } from '../contracts/common';
import { eventStatuses } from '../core/statuses';
import type { Db } from '../db/client';
import { inboundEvents } from '../db/schema';
import { accountOf, type KeyRef } from '../db/tenant';

// A webhook's overview: its events per hour by status over the last 7 days, its success rate and
// its last failure. Each read is one query for the page's batch; the overview is worked out here.

export type EventStatus = (typeof eventStatuses)[number];

const HOUR_MS = 3_600_000;
/** The hours the chart shows: 7 days, the current (partial) hour last. */
export const OVERVIEW_HOURS = 7 * 24;

/** The start of the chart's first hour: whole UTC hours, so every bar is one hour. */
export const overviewStart = (now: number) => (Math.floor(now / HOUR_MS) - OVERVIEW_HOURS + 1) * HOUR_MS;

/**
 * Webhook `id`'s events since the chart's start, counted by the hour they arrived and their status
 * now. The status list (every status) lets it seek inbound_events_status_idx per status to the
 * start, a covering read of the window only.
 */
export const hourlyQuery = (db: Db, keyHash: KeyRef, id: number, now: number) =>
  db
    .select({
      hour: sql<number>`${inboundEvents.receivedAt} / ${sql.raw(String(HOUR_MS))}`.mapWith(Number),
      status: inboundEvents.status,
      n: count(),
    })
    .from(inboundEvents)
    .where(
      and(
        eq(inboundEvents.accountId, accountOf(keyHash)),
        eq(inboundEvents.webhookId, id),
        inArray(inboundEvents.status, [...eventStatuses]),
        gte(inboundEvents.receivedAt, overviewStart(now)),
      ),
    )
    .groupBy(sql`1`, inboundEvents.status);

/** Webhook `id`'s latest event of `status` (any age), read backwards on the status index. */
export const latestQuery = (db: Db, keyHash: KeyRef, id: number, status: 'failed' | 'rejected') =>
  db
    .select({
      id: inboundEvents.id,
      status: inboundEvents.status,
      receivedAt: inboundEvents.receivedAt,
      error: inboundEvents.error,
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

type Hourly = Awaited<ReturnType<typeof hourlyQuery>>;
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
  lastFailure: { id: number; at: string; status: 'failed' | 'rejected'; error: string } | null;
};

const zero = (): Counts => ({ pending: 0, processed: 0, failed: 0, test: 0, rejected: 0 });

/** The overview out of the page batch's three reads. */
export function overviewOf(hourly: Hourly, failed: Latest, rejected: Latest, now: number): Overview {
  const start = overviewStart(now);
  const hours = Array.from({ length: OVERVIEW_HOURS }, zero);
  const totals = zero();
  for (const row of hourly) {
    const slot = hours[row.hour - start / HOUR_MS];
    if (!slot) continue;
    slot[row.status] += row.n;
    totals[row.status] += row.n;
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
        }
      : null,
  };
}
