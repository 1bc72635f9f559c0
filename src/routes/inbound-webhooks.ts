import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { and, desc, eq, getTableColumns, ne, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { newWebhookToken } from '../auth/secrets';
import { iso, list, one } from '../contracts/common';
import {
  eventSorts,
  InboundWebhook,
  InboundWebhookCreate,
  InboundWebhookQuery,
  InboundWebhookUpdate,
  SampleField,
  WebhookEvent,
  WebhookEventQuery,
  webhookSorts,
} from '../contracts/inbound-webhooks';
import { conflict, invalid, notFound } from '../core/errors';
import { leaves } from '../core/json-paths';
import { configIssues, ownerRefs } from '../core/webhook-config';
import { guessType } from '../core/webhook-fields';
import type { Db } from '../db/client';
import { type Columns, listOwn, type Viewed, type WriteSpec } from '../db/own';
import { inboundEventResults, inboundEvents, inboundWebhooks, webhookRotations } from '../db/schema';
import { accountOf, type KeyRef, ownRow, scoped } from '../db/tenant';
import { bumped } from '../db/updated';
import type { AppEnv, Bindings } from '../env';
import { ownHandlers } from '../http/handlers';
import {
  bookmarkParam,
  errorResponses,
  idempotencyParam,
  jsonContent,
  pathId,
  replayedHeader,
  router,
  traceHeaders,
} from '../http/openapi';
import { keyset } from '../http/pagination';
import { linkHeader, resourceRoutes } from '../http/routes';
import { urlOf } from '../http/urls';
import { enqueueEvents } from '../queue/messages';

type Create = z.infer<typeof InboundWebhookCreate>;
type Update = z.infer<typeof InboundWebhookUpdate>;
type Row = typeof inboundWebhooks.$inferSelect;

export const present = (row: Row, c: Context<AppEnv>): z.infer<typeof InboundWebhook> => ({
  id: row.id,
  name: row.name,
  url: urlOf(c, `/hooks/${row.token}`),
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

const routes = resourceRoutes(
  {
    tag: 'Inbound webhooks',
    one: 'inbound webhook',
    conflicts: true,
    schema: 'InboundWebhook',
    plural: 'InboundWebhooks',
  },
  {
    resource: InboundWebhook,
    query: InboundWebhookQuery,
    create: InboundWebhookCreate,
    update: InboundWebhookUpdate,
  },
);

const handlers = ownHandlers('/v1/inbound-webhooks', webhookSpec, present);

/** A `/v1/inbound-webhooks` route beyond the four every resource has. */
const webhookRoute = <const R extends Omit<RouteConfig, 'tags' | 'security'>>(config: R) =>
  createRoute({
    ...config,
    tags: ['Inbound webhooks'],
    security: [{ bearerAuth: [] }],
    ...(config.method === 'get' && { parameters: [bookmarkParam] }),
    ...(config.method === 'post' && { parameters: [idempotencyParam] }),
  });
const WebhookParam = z.object({ id: pathId('id') });
const EventParams = z.object({ id: pathId('id'), event_id: pathId('event_id') });

const disable = webhookRoute({
  method: 'delete',
  path: '/{id}',
  operationId: 'disableInboundWebhook',
  summary: 'Disable an inbound webhook: its URL answers 404 from then on; its events stay readable',
  request: { params: WebhookParam },
  responses: { 204: { description: 'Disabled', headers: traceHeaders }, ...errorResponses(400, 404, 429) },
});

const rotate = webhookRoute({
  method: 'post',
  path: '/{id}/rotate-token',
  operationId: 'rotateInboundWebhookToken',
  summary: 'Give the webhook a new URL; the old one answers 404 at once',
  request: { params: WebhookParam },
  responses: {
    200: jsonContent(one(InboundWebhook, 'InboundWebhook'), 'The webhook with its new URL', replayedHeader),
    ...errorResponses(400, 404, 409, 413, 422, 429),
  },
});

const sampleFields = webhookRoute({
  method: 'get',
  path: '/{id}/sample-fields',
  operationId: 'listInboundWebhookSampleFields',
  summary: 'The dot-path keys seen in the latest test-mode events, to build a mapping from',
  request: { params: WebhookParam },
  responses: {
    200: jsonContent(
      z.object({ data: z.array(SampleField) }).openapi('WebhookSampleFieldList'),
      'Keys, newest example first',
    ),
    ...errorResponses(400, 404, 429),
  },
});

const events = webhookRoute({
  method: 'get',
  path: '/{id}/events',
  operationId: 'listInboundWebhookEvents',
  summary: "The webhook's event log, newest first",
  request: { params: WebhookParam, query: WebhookEventQuery },
  responses: {
    200: jsonContent(list(WebhookEvent, 'WebhookEvent'), 'One page', linkHeader),
    ...errorResponses(400, 404, 429),
  },
});

const replay = webhookRoute({
  method: 'post',
  path: '/{id}/events/{event_id}/replay',
  operationId: 'replayInboundWebhookEvent',
  summary: 'Run a failed event again',
  request: { params: EventParams },
  responses: {
    202: jsonContent(
      one(WebhookEvent, 'WebhookEvent'),
      'Queued again; it is `pending` until processed',
      replayedHeader,
    ),
    ...errorResponses(400, 404, 409, 413, 422, 429),
  },
});

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
  values: Partial<Pick<Row, 'enabled' | 'token' | 'mode' | 'secret'>>,
): Promise<Row> {
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

const setOwn = (
  c: Context<AppEnv, string, { out: { param: { id: number } } }>,
  values: Partial<Pick<Row, 'enabled' | 'token'>>,
) => setOwnWebhook(c.get('db'), c.get('keyHash'), c.req.valid('param').id, values);

/** Queues the caller's failed event again: 404 when it is not theirs, 409 when it has not failed. */
export async function replayEvent(
  db: Db,
  keyHash: KeyRef,
  queue: Bindings['EVENTS'],
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

export const inboundWebhooksRouter = router()
  .openapi(routes.list, async (c) => {
    const page = keyset<Row>(inboundWebhooks, webhookSorts, c.req.valid('query'));
    const rows = await listOwn(c.get('db'), c.get('keyHash'), webhookSpec, page, []);
    return c.json(
      page.page(c, rows, (row) => present(row, c)),
      200,
    );
  })
  .openapi(routes.get, handlers.get)
  .openapi(routes.create, handlers.create)
  .openapi(routes.update, handlers.update)
  .openapi(disable, async (c) => {
    await setOwn(c, { enabled: false });
    return c.body(null, 204);
  })
  .openapi(rotate, async (c) => {
    const row = await setOwn(c, { token: newWebhookToken() });
    return c.json({ data: present(row, c) }, 200);
  })
  .openapi(sampleFields, async (c) => {
    const { id } = c.req.valid('param');
    const db = c.get('db');
    const keyHash = c.get('keyHash');
    const [, hooks, samples] = await scoped(
      db,
      keyHash,
      db
        .select({ id: inboundWebhooks.id })
        .from(inboundWebhooks)
        .where(ownRow(inboundWebhooks, keyHash, id)),
      sampleEvents(db, keyHash, id),
    );
    if (!hooks.length) throw notFound();
    return c.json({ data: sampleFieldsOf(samples) }, 200);
  })
  .openapi(events, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    const page = keyset<EventRow>(inboundEvents, eventSorts, q, '-received_at');
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { table: inboundEvents, extras: eventExtras },
      page,
      eventFilters(id, q.status),
      undefined,
      { table: inboundWebhooks, id },
    );
    return c.json(page.page(c, rows, presentEvent), 200);
  })
  .openapi(replay, async (c) => {
    const { id, event_id } = c.req.valid('param');
    const row = await replayEvent(c.get('db'), c.get('keyHash'), c.env.EVENTS, id, event_id);
    return c.json({ data: presentEvent(row) }, 202);
  });
