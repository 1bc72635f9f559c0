import type { z } from '@hono/zod-openapi';
import { and, count, desc, eq, getTableColumns, max, ne, type SQL, sql } from 'drizzle-orm';
import { iso, isoOrNull } from '../../contracts/common';
import { notFound } from '../../core/errors';
import { leaves } from '../../core/json-paths';
import type { FailureCode } from '../../core/said';
import type { Db } from '../../db/client';
import type { PagePlan } from '../../db/keyset';
import { listQuery, type Viewed } from '../../db/own';
import { inboundEventResults, inboundEvents, inboundWebhooks, users } from '../../db/schema';
import { accountOf, type KeyRef, ownRow, scoped } from '../../db/tenant';
import type { SampleField, WebhookEvent } from '../contract/schemas';
import { guessType } from '../rules/fields';
import { type EventFilter, eventConditions, eventWhere } from './event-filter';
import { statusIn } from './event-states';
import { type ResultName, resultNamesQuery } from './result-records';

// What `/v1/inbound-webhooks/{id}/events…` and the panel's event pages read, written once: both
// call these functions, with the key of the request (`/v1`) or of the session (the panel, whose
// session check is the key lookup of the same batch), so each read stays one round trip.

export const eventExtras = {
  result: sql<
    z.infer<typeof WebhookEvent>['result']
  >`(select json_object('contact_id', ${inboundEventResults.contactId}, 'company_id', ${inboundEventResults.companyId}, 'deal_id', ${inboundEventResults.dealId}, 'task_ids', json(${inboundEventResults.taskIds})) from ${inboundEventResults} where ${inboundEventResults.eventId} = ${inboundEvents.id})`.mapWith(
    (value: string | null) => (value === null ? null : JSON.parse(value)),
  ),
};

export type EventRow = Viewed<typeof inboundEvents, typeof eventExtras>;

export const presentEvent = (row: EventRow): z.infer<typeof WebhookEvent> => ({
  id: row.id,
  webhook_id: row.webhookId,
  status: row.status,
  attempts: row.attempts,
  error: row.error,
  error_code: row.errorCode as FailureCode | null,
  error_params: row.errorParams,
  received_at: iso(row.receivedAt),
  processed_at: isoOrNull(row.processedAt),
  payload: JSON.parse(row.payload) as Record<string, unknown> | null,
  result: row.result,
  preview: row.preview,
  warnings: row.warnings,
  rejection: row.rejection,
  history: row.history.map((m) => ({ ...m, at: iso(m.at) })),
});

/**
 * What an event page shows of the webhook its events belong to; reading it is also the check that
 * the webhook is the caller's. Its small columns only: never the configuration.
 */
const headColumns = {
  id: inboundWebhooks.id,
  name: inboundWebhooks.name,
  token: inboundWebhooks.token,
  mode: inboundWebhooks.mode,
  enabled: inboundWebhooks.enabled,
  secret: inboundWebhooks.secret,
};

export type WebhookHead = Pick<typeof inboundWebhooks.$inferSelect, keyof typeof headColumns>;
/** The head the event list reads: with the field mapping, to show who each lead is. */
export type ListedHead = WebhookHead & Pick<typeof inboundWebhooks.$inferSelect, 'fields'>;

const headQuery = (db: Db, keyHash: KeyRef, id: number) =>
  db
    .select(headColumns)
    .from(inboundWebhooks)
    .where(ownRow(inboundWebhooks, keyHash, id));

/** The caller's webhook `id` (a disabled one's too) with what was read under it; else not_found. */
function underWebhook<H extends WebhookHead, T>(hooks: H[], found: T): { webhook: H } & T {
  const webhook = hooks[0];
  if (!webhook) throw notFound();
  return { webhook, ...found };
}

/**
 * One page of the caller's webhook `id`'s events that `filter` keeps (event-filter.ts), in the
 * order of `page`, with the webhook and its field mapping (the panel shows who each lead is), and
 * when `countFailed`, how many failed events the filter finds (what the panel's bulk replay
 * offers): one round trip; not_found when the webhook is not theirs.
 */
export async function listEvents(
  db: Db,
  keyHash: KeyRef,
  id: number,
  page: PagePlan,
  filter: EventFilter,
  countFailed = false,
): Promise<{ webhook: ListedHead; events: EventRow[]; failed: number | null }> {
  const failed = db
    .select({ n: count() })
    .from(inboundEvents)
    .where(and(eventWhere(keyHash, id, filter), statusIn('replay')));
  const [, hooks, rows, counted] = await scoped(
    db,
    keyHash,
    db
      .select({ ...headColumns, fields: inboundWebhooks.fields })
      .from(inboundWebhooks)
      .where(ownRow(inboundWebhooks, keyHash, id)),
    listQuery(
      db,
      keyHash,
      { table: inboundEvents, extras: eventExtras },
      page,
      eventConditions(keyHash, id, filter),
    ),
    ...(countFailed ? [failed] : []),
  );
  const n = (counted as { n: number }[] | undefined)?.[0]?.n;
  return underWebhook(hooks, { events: rows as EventRow[], failed: n ?? null });
}

/**
 * The account's users (live or in the trash) that event `eventId`'s preview names as an owner, or
 * an `owner_unavailable` warning names as gone, by id: the panel writes their names, not their ids.
 */
const previewOwners = (db: Db, keyHash: KeyRef, eventId: number) =>
  db
    .select({ id: users.id, name: users.name, deletedAt: users.deletedAt })
    .from(users)
    .where(
      and(
        eq(users.accountId, accountOf(keyHash)),
        sql`${users.id} in (select t.value from ${inboundEvents} x, json_tree(x.preview) t where x.id = ${eventId} and x.account_id = ${accountOf(keyHash)} and t.key = 'owner_id' and t.type = 'integer' union all select t.value from ${inboundEvents} x, json_tree(x.warnings) t where x.id = ${eventId} and x.account_id = ${accountOf(keyHash)} and t.path like '$[%].params.%user_ids%' and t.type = 'integer')`,
      ),
    );

/** A user's id and name, and since when it is in the trash (null: live). */
export type Named = { id: number; name: string; deletedAt: number | null };

/** One event of the caller's webhook, with its extras: the where clause and its read. */
export const ownEvent = (keyHash: KeyRef, id: number, eventId: number) =>
  and(ownRow(inboundEvents, keyHash, eventId), eq(inboundEvents.webhookId, id));

export const eventQuery = (db: Db, where: SQL | undefined) =>
  db
    .select({ ...getTableColumns(inboundEvents), ...eventExtras })
    .from(inboundEvents)
    .where(where);

/**
 * Event `eventId` of the caller's webhook `id` (a disabled one's too), with the webhook and (if
 * `forPanel`) the users its preview names and the names of the records its result names: one
 * round trip; not_found when either is not theirs.
 */
export async function readEvent(
  db: Db,
  keyHash: KeyRef,
  id: number,
  eventId: number,
  forPanel = false,
): Promise<{ webhook: WebhookHead; event: EventRow; owners: Named[]; names: ResultName[] }> {
  const theEvent = eventQuery(db, ownEvent(keyHash, id, eventId));
  const [, hooks, events, owners = [], names = []] = forPanel
    ? await scoped(
        db,
        keyHash,
        headQuery(db, keyHash, id),
        theEvent,
        previewOwners(db, keyHash, eventId),
        resultNamesQuery(db, keyHash, eventId),
      )
    : await scoped(db, keyHash, headQuery(db, keyHash, id), theEvent);
  const { webhook, event } = underWebhook(hooks, { event: events[0] as EventRow | undefined });
  if (!event) throw notFound();
  return { webhook, event, owners, names };
}

/**
 * The account's events counted by webhook and status, with each group's latest arrival, as one
 * query of a batch: it groups on the covering `inbound_events_status_idx`.
 */
export const eventStatsQuery = (db: Db, keyHash: KeyRef) =>
  db
    .select({
      webhookId: inboundEvents.webhookId,
      status: inboundEvents.status,
      n: count(),
      last: max(inboundEvents.receivedAt),
    })
    .from(inboundEvents)
    .where(eq(inboundEvents.accountId, accountOf(keyHash)))
    .groupBy(inboundEvents.webhookId, inboundEvents.status);

type EventStats = Awaited<ReturnType<typeof eventStatsQuery>>;

/** Webhook `id`'s share of `eventStatsQuery`: its last event and its counts by status. */
export function statsOf(stats: EventStats, id: number) {
  const mine = stats.filter((s) => s.webhookId === id);
  const last = Math.max(0, ...mine.map((s) => s.last ?? 0));
  return {
    lastEvent: last ? iso(last) : null,
    counts: Object.fromEntries(mine.map((s) => [s.status, s.n])) as Partial<
      Record<EventRow['status'], number>
    >,
  };
}

// Enough recent test events to show every key a sender uses, few enough to read in one query.
const SAMPLE_EVENTS = 20;

/** The latest test events of webhook `id`, whose keys sample fields are made of. */
export const sampleEvents = (db: Db, keyHash: KeyRef, id: number, limit = SAMPLE_EVENTS) =>
  db
    .select({ payload: inboundEvents.payload })
    .from(inboundEvents)
    .where(
      and(
        eq(inboundEvents.accountId, accountOf(keyHash)),
        eq(inboundEvents.webhookId, id),
        eq(inboundEvents.mode, 'test'),
        // A rejected event keeps no payload, so it has no keys to offer.
        ne(inboundEvents.status, 'rejected'),
      ),
    )
    .orderBy(desc(inboundEvents.receivedAt), desc(inboundEvents.id))
    .limit(limit);

/** Every key the sample events hold, once, with its newest example and a guess at its type. */
export function sampleFieldsOf(samples: { payload: string }[]): z.infer<typeof SampleField>[] {
  const seen = new Map<string, z.infer<typeof SampleField>>();
  for (const { payload } of samples) {
    for (const [key, example] of leaves(JSON.parse(payload) as unknown)) {
      if (!seen.has(key)) seen.set(key, { key, example, type: guessType(example) });
    }
  }
  return [...seen.values()];
}

/** The sample fields of the caller's webhook `id`, in one round trip; not_found when it is not theirs. */
export async function readSampleFields(db: Db, keyHash: KeyRef, id: number) {
  const [, hooks, samples] = await scoped(
    db,
    keyHash,
    headQuery(db, keyHash, id),
    sampleEvents(db, keyHash, id),
  );
  return underWebhook(hooks, { fields: sampleFieldsOf(samples) }).fields;
}
