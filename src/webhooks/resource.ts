import type { z } from '@hono/zod-openapi';
import { and, desc, eq, getTableColumns, ne, sql } from 'drizzle-orm';
import { iso } from '../contracts/common';
import { conflict, invalid, notFound } from '../core/errors';
import { leaves } from '../core/json-paths';
import { allows } from '../core/scopes';
import { ownerRefs } from '../core/webhook-config';
import { guessType } from '../core/webhook-fields';
import { newWebhookToken } from '../core/webhook-token';
import type { Db } from '../db/client';
import type { Columns, Viewed, WriteSpec } from '../db/own';
import { inboundEventResults, inboundEvents, inboundWebhooks, webhookRotations } from '../db/schema';
import { accountOf, type KeyRef, ownRow, scoped } from '../db/tenant';
import { bumped } from '../db/updated';
import { type EventMessage, enqueueEvents } from '../model/event-messages';
import { configIssues } from './actions';
import type {
  InboundWebhook,
  InboundWebhookCreate,
  InboundWebhookUpdate,
  SampleField,
  WebhookEvent,
} from './contract';

type Create = z.infer<typeof InboundWebhookCreate>;
type Update = z.infer<typeof InboundWebhookUpdate>;
export type WebhookRow = typeof inboundWebhooks.$inferSelect;

/**
 * Whether a key sees a webhook's ingest URL. Its token is a write credential (a production webhook
 * without a secret turns any POST into records), so only a key that could rotate it anyway
 * (`webhooks:update`) sees it, and the key that just created the webhook (`webhooks:insert`, the
 * create answer). `held` is undefined until the key's lookup is read: nothing is shown then.
 */
export const seesWebhookUrl = (held: readonly string[] | null | undefined, creating = false): boolean =>
  held !== undefined && (allows(held, 'webhooks:update') || (creating && allows(held, 'webhooks:insert')));

/**
 * The webhook as the API shows it. Its URL is absolute, and only the caller knows the origin the
 * request came in on, so `urlOf` turns the webhook's path into that URL; null when the caller may
 * not see it (`seesWebhookUrl`).
 */
export const presentWebhook = (
  row: WebhookRow,
  urlOf: ((path: string) => string) | null,
): z.infer<typeof InboundWebhook> => ({
  id: row.id,
  name: row.name,
  url: urlOf ? urlOf(`/hooks/${row.token}`) : null,
  enabled: row.enabled,
  mode: row.mode,
  has_secret: row.secret !== null,
  fields: row.fields,
  flows: row.flows,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

/** The fields a body sent, as columns: serves create (after its defaults) and update. */
function columns(body: Update): Columns<typeof inboundWebhooks> {
  return {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    ...(body.mode !== undefined && { mode: body.mode }),
    ...(body.secret !== undefined && { secret: body.secret }),
    ...(body.fields !== undefined && { fields: body.fields }),
    ...(body.flows !== undefined && { flows: body.flows }),
  };
}

export const webhookSpec: WriteSpec<typeof inboundWebhooks, Create, Update> = {
  table: inboundWebhooks,
  // A new webhook gets its secret URL, and no fields or flows unless the body sends them.
  create: (body) => ({ token: newWebhookToken(), fields: [], flows: [], ...columns(body) }),
  update: (body) => columns(body),
  refs: (body) => ownerRefs(body.flows ?? []),
  // Round-robin turns are counted per action position: new flows start their rotations afresh.
  children: (db, body, accountId, id) =>
    body.flows === undefined || id === undefined
      ? []
      : [
          db
            .delete(webhookRotations)
            .where(and(eq(webhookRotations.accountId, accountId), eq(webhookRotations.webhookId, id))),
        ],
  // A PUT may send the fields or the flows alone: the pair they make with the stored half must hold.
  validate: (body, current) => {
    const issues = configIssues(body.fields ?? current.fields, body.flows ?? current.flows);
    if (issues.length) {
      throw invalid(issues.map((i) => ({ path: i.path.join('.'), code: 'invalid', message: i.message })));
    }
  },
};

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
  received_at: iso(row.receivedAt),
  processed_at: row.processedAt === null ? null : iso(row.processedAt),
  payload: JSON.parse(row.payload) as Record<string, unknown> | null,
  result: row.result,
  preview: row.preview,
  warnings: row.warnings,
  rejection: row.rejection,
});

/**
 * Sets columns of the caller's webhook `id` in one round trip (the key check in the same batch;
 * the update is scoped by the key's account), returning the row, or 404.
 */
export async function setOwnWebhook(
  db: Db,
  keyHash: KeyRef,
  id: number,
  values: Partial<Pick<WebhookRow, 'enabled' | 'token' | 'mode' | 'secret'>>,
): Promise<WebhookRow> {
  const [, rows] = await scoped(
    db,
    keyHash,
    db
      .update(inboundWebhooks)
      .set({ ...values, updatedAt: bumped(inboundWebhooks.updatedAt) })
      .where(ownRow(inboundWebhooks, keyHash, id))
      .returning(),
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}

/** Event `eventId` of the caller's webhook `id` (a disabled one's too), as one query of a batch. */
export const eventQuery = (db: Db, keyHash: KeyRef, id: number, eventId: number) =>
  db
    .select({ ...getTableColumns(inboundEvents), ...eventExtras })
    .from(inboundEvents)
    .where(and(ownRow(inboundEvents, keyHash, eventId), eq(inboundEvents.webhookId, id)));

/** One event of the caller's webhook `id`, in one round trip: 404 when it is not theirs. */
export async function readEvent(db: Db, keyHash: KeyRef, id: number, eventId: number): Promise<EventRow> {
  const [, found] = await scoped(db, keyHash, eventQuery(db, keyHash, id, eventId));
  const row = found[0];
  if (!row) throw notFound();
  return row as EventRow;
}

/** Queues the caller's failed event again: 404 when it is not theirs, 409 when it has not failed. */
export async function replayEvent(
  db: Db,
  keyHash: KeyRef,
  queue: Queue<EventMessage>,
  id: number,
  eventId: number,
): Promise<EventRow> {
  const theEvent = and(ownRow(inboundEvents, keyHash, eventId), eq(inboundEvents.webhookId, id));
  // One batch: the update only takes a failed event; the read after it tells 404 from 409.
  const [, replayed, found] = await scoped(
    db,
    keyHash,
    db
      .update(inboundEvents)
      .set({ status: 'pending', error: null, queuedAt: Date.now() })
      .where(and(theEvent, eq(inboundEvents.status, 'failed')))
      .returning({ id: inboundEvents.id }),
    db
      .select({ ...getTableColumns(inboundEvents), ...eventExtras })
      .from(inboundEvents)
      .where(theEvent),
  );
  const row = found[0];
  if (!row) throw notFound();
  if (!replayed.length) throw conflict(`Only a failed event can be replayed; this one is ${row.status}.`);
  // If the hand-over fails the event stays pending, and the cron queues it again.
  await enqueueEvents(queue, [row.id]);
  return row;
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

/** The filters of a webhook's event log: its events, of one status if given. */
export const eventFilters = (id: number, status: EventRow['status'] | undefined) => [
  eq(inboundEvents.webhookId, id),
  status ? eq(inboundEvents.status, status) : undefined,
];
