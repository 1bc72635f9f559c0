import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { list, one, oneWritten } from '../contracts/common';
import { listOwn } from '../db/own';
import { inboundEvents, inboundWebhooks } from '../db/schema';
import type { AppEnv } from '../env';
import { ownHandlers } from '../http/handlers';
import { jsonGuard } from '../http/middleware';
import {
  bodyErrors,
  errorResponses,
  jsonContent,
  pathId,
  replayedHeader,
  router,
  traceHeaders,
} from '../http/openapi';
import { keyset } from '../http/pagination';
import { linkHeader, resourceRoutes, subRoutes } from '../http/routes';
import { urlOf } from '../http/urls';
import { visibleAnswer } from '../http/visible';
import {
  BulkReplay,
  EventDeleteResult,
  eventSorts,
  InboundWebhook,
  InboundWebhookCreate,
  InboundWebhookQuery,
  InboundWebhookUpdate,
  MAX_BULK_REPLAY,
  MAX_EVENT_DELETE,
  RotateTokenBody,
  SampleField,
  WebhookEvent,
  WebhookEventDeleteQuery,
  WebhookEventFilter,
  WebhookEventQuery,
  webhookSorts,
} from '../webhooks/contract/schemas';
import { replayMatching } from '../webhooks/log/bulk-replay';
import { deleteMatching } from '../webhooks/log/event-delete';
import {
  type EventRow,
  listEvents,
  presentEvent,
  readEvent,
  readSampleFields,
} from '../webhooks/log/event-reads';
import { processTestEvent } from '../webhooks/log/promote';
import {
  presentWebhook,
  replayEvent,
  rotateOwnWebhook,
  seesWebhookUrl,
  setOwnWebhook,
  type WebhookRow,
  webhookSpec,
} from '../webhooks/resource/store';

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

/** The URL only for a key allowed to see it; a create's answer counts as the creating key's. */
const present = (row: WebhookRow, c: Context<AppEnv>) => {
  const grant = c.get('keyHash');
  const shown = seesWebhookUrl(grant.held, grant.scope === 'webhooks:insert');
  return presentWebhook(row, shown ? (path) => urlOf(c, path) : null);
};

const handlers = ownHandlers('/v1/inbound-webhooks', webhookSpec, present);

/** A `/v1/inbound-webhooks` route beyond the four every resource has. */
const webhookRoute = subRoutes('Inbound webhooks');
const WebhookParam = z.object({ id: pathId('id') });
const EventParams = z.object({ id: pathId('id'), event_id: pathId('event_id') });

const disable = webhookRoute({
  method: 'delete',
  path: '/{id}',
  operationId: 'disableInboundWebhook',
  summary: 'Disable an inbound webhook: its URL answers 404 from then on; its events stay readable',
  description:
    'Turns the webhook off: a sender posting to its URL gets a 404 from then on, and nothing is processed. The webhook and its event log stay readable; `PUT` with `"enabled": true` turns it on again with the same URL.',
  request: { params: WebhookParam },
  responses: { 204: { description: 'Disabled', headers: traceHeaders }, ...errorResponses(400, 404, 429) },
});

/**
 * Rotate's body is optional, as it was before it had one: a request without a body (whatever its
 * Content-Type, such as a client that always sends `application/json`) rotates as before; one
 * with a body goes through the JSON guard like every other.
 */
const optionalBody = createMiddleware<AppEnv>(async (c, next) => {
  const empty = c.req.header('Content-Length') === '0' || c.req.raw.body === null;
  if (!empty) return jsonGuard(c, next);
  if (c.req.header('Content-Type') !== undefined) {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('Content-Type');
    c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers });
  }
  await next();
});

const rotate = webhookRoute({
  method: 'post',
  path: '/{id}/rotate-token',
  operationId: 'rotateInboundWebhookToken',
  summary: 'Give the webhook a new URL; the old one can keep working for a grace period',
  description:
    "Replaces the secret token in the webhook's URL. The answer holds the new URL. With `grace_period` (seconds, up to 604800: 7 days; the panel offers 24 hours by default) the old URL keeps working until `previous_url_expires_at`, so the sender can move without losing events, as Stripe does when rolling a secret. Without it (or with 0) the old URL answers 404 at once, as before: the choice for a URL that leaked. Only the URL just replaced gets a grace: rotating again during one ends the older URL at once. Past its grace, the old URL answers 404, as an unknown one does. The body is optional.",
  middleware: [optionalBody] as const,
  request: {
    params: WebhookParam,
    body: { required: false, content: { 'application/json': { schema: RotateTokenBody } } },
  },
  responses: {
    200: jsonContent(
      oneWritten(InboundWebhook, 'InboundWebhook'),
      'The webhook with its new URL (to a key without `webhooks:read`, only its id, URLs and `updated_at`)',
      replayedHeader,
    ),
    ...errorResponses(...bodyErrors, 404, 409, 429),
  },
});

const sampleFields = webhookRoute({
  method: 'get',
  path: '/{id}/sample-fields',
  operationId: 'listInboundWebhookSampleFields',
  summary: 'The dot-path keys seen in the latest test-mode events, to build a mapping from',
  description:
    'Every key (as a dot path such as `lead.phone`) found in the latest test-mode events, with its newest example value and a guess at its field type: what a configurer maps to targets. Empty until a sender posts in test mode.',
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
  description:
    'One page of the events senders posted to this webhook, newest first: status (`pending`, `processed`, `failed`, `rejected`), attempts, the error of a failure and the records a processed event wrote. `status` filters by one status, `q` finds a lead by any text of the payload (a name, an email, a phone in any format), `received_at__gte`/`__lt` (and `__gt`/`__lte`) bound the arrival time, `has_warnings` keeps the events with (or without) warnings; the filters combine.',
  request: { params: WebhookParam, query: WebhookEventQuery },
  responses: {
    200: jsonContent(list(WebhookEvent, 'WebhookEvent'), 'One page', linkHeader),
    ...errorResponses(400, 404, 429),
  },
});

const event = webhookRoute({
  method: 'get',
  path: '/{id}/events/{event_id}',
  operationId: 'getInboundWebhookEvent',
  summary: 'One event of the webhook',
  description:
    "An event of the webhook's log, as listed by `GET /v1/inbound-webhooks/{id}/events`: its status, attempts, error and result (the records it wrote). Readable after the webhook is disabled. 404 when the event is not this webhook's.",
  request: { params: EventParams },
  responses: {
    200: jsonContent(one(WebhookEvent, 'WebhookEvent'), 'The event'),
    ...errorResponses(400, 404, 429),
  },
});

const replay = webhookRoute({
  method: 'post',
  path: '/{id}/events/{event_id}/replay',
  operationId: 'replayInboundWebhookEvent',
  summary: 'Run a failed event again',
  description:
    "Queues a `failed` event again with the webhook's current configuration; it is `pending` until the consumer processes it. Any other status is a 409. A key without `webhooks:read` gets only the event's `id` and `status`.",
  request: { params: EventParams },
  responses: {
    202: jsonContent(
      oneWritten(WebhookEvent, 'WebhookEvent'),
      'Queued again; it is `pending` until processed',
      replayedHeader,
    ),
    ...errorResponses(400, 404, 409, 413, 422, 429),
  },
});

const processForReal = webhookRoute({
  method: 'post',
  path: '/{id}/events/{event_id}/process',
  operationId: 'processInboundWebhookTestEvent',
  summary: 'Process a test event for real, once the webhook is in production',
  description:
    "Queues a `test` event (one that was only previewed) as a production event: it is `pending` until the consumer processes it with the webhook's current configuration, and then it writes real records, as if it had arrived now. The webhook must be in production mode (409 otherwise); any status but `test` is a 409 too. Needs `webhooks:update`, as a replay does; a key without `webhooks:read` gets only the event's `id` and `status`.",
  request: { params: EventParams },
  responses: {
    202: jsonContent(
      oneWritten(WebhookEvent, 'WebhookEvent'),
      'Queued as a production event; it is `pending` until processed',
      replayedHeader,
    ),
    ...errorResponses(400, 404, 409, 413, 422, 429),
  },
});

const replayAll = webhookRoute({
  method: 'post',
  path: '/{id}/recover',
  operationId: 'replayInboundWebhookEvents',
  summary: 'Run again the failed events a filter finds',
  description: `Queues again, with the webhook's current configuration, the \`failed\` events that the list's filters (the same query parameters as \`GET …/events\`: \`q\`, \`received_at__*\`, \`has_warnings\`, \`status\`) find, oldest first, at most ${MAX_BULK_REPLAY} per call. Answers how many were queued and how many failed events still match: call again until \`remaining\` is 0. No filter: every failed event of the webhook. Nothing failed: 200 with \`replayed: 0\`. A path of its own, like Svix's \`recover\`: \`…/events/replay\` would read as the event \`replay\`.`,
  request: { params: WebhookParam, query: WebhookEventFilter },
  responses: {
    200: jsonContent(
      z.object({ data: BulkReplay }).openapi('WebhookEventBulkReplayResult'),
      'Queued again',
      replayedHeader,
    ),
    ...errorResponses(400, 404, 409, 413, 422, 429),
  },
});

const deleteEvents = webhookRoute({
  method: 'delete',
  path: '/{id}/events',
  operationId: 'deleteInboundWebhookEvents',
  summary: "Delete the webhook's events a filter finds, to free event storage",
  description: `Deletes, oldest first and at most ${MAX_EVENT_DELETE} per call, the webhook's events that the filters find (the list's: \`status\`, \`q\`, \`has_warnings\`, \`received_at__*\`), each with its result row; the records an event wrote stay. \`received_at__lt\` is required, so an event that arrives meanwhile is never deleted. \`pending\` events (still to be applied) are never deleted. Each call is one transaction: it deletes all it answers, or nothing. Answers how many were deleted and how many still match: call again until \`remaining\` is 0. The space they took is free at once (\`GET /v1/usage\`): the way out when a flooded URL fills the webhook's share of the storage (disable the webhook or rotate its URL first, or the flood fills it again). Needs \`webhooks:delete\`.`,
  request: { params: WebhookParam, query: WebhookEventDeleteQuery },
  responses: {
    200: jsonContent(
      z.object({ data: EventDeleteResult }).openapi('WebhookEventDeleteResultBody'),
      'Deleted',
    ),
    ...errorResponses(400, 404, 429),
  },
});

const setOwn = (
  c: Context<AppEnv, string, { out: { param: { id: number } } }>,
  values: Partial<Pick<WebhookRow, 'enabled' | 'token'>>,
) => setOwnWebhook(c.get('db'), c.get('keyHash'), c.req.valid('param').id, values);

export const inboundWebhooksRouter = router()
  .openapi(routes.list, async (c) => {
    const page = keyset<WebhookRow>(inboundWebhooks, webhookSorts, c.req.valid('query'));
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
    // No grace unless asked: a default changing would break the clients that rotate a leaked URL.
    const grace = c.req.valid('json')?.grace_period ?? 0;
    const row = await rotateOwnWebhook(c.get('db'), c.get('keyHash'), c.req.valid('param').id, grace);
    const changed = ['url', 'previous_url_expires_at', 'updated_at'];
    return c.json({ data: visibleAnswer(c, present(row, c), changed) }, 200);
  })
  .openapi(sampleFields, async (c) => {
    const fields = await readSampleFields(c.get('db'), c.get('keyHash'), c.req.valid('param').id);
    return c.json({ data: fields }, 200);
  })
  .openapi(events, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    const page = keyset<EventRow>(inboundEvents, eventSorts, q, '-received_at');
    const { events } = await listEvents(c.get('db'), c.get('keyHash'), id, page, q);
    return c.json(page.page(c, events, presentEvent), 200);
  })
  .openapi(event, async (c) => {
    const { id, event_id } = c.req.valid('param');
    const { event } = await readEvent(c.get('db'), c.get('keyHash'), id, event_id);
    return c.json({ data: presentEvent(event) }, 200);
  })
  .openapi(deleteEvents, async (c) => {
    const { id } = c.req.valid('param');
    const done = await deleteMatching(c.get('db'), c.get('keyHash'), id, c.req.valid('query'));
    return c.json({ data: done }, 200);
  })
  .openapi(replayAll, async (c) => {
    const { id } = c.req.valid('param');
    const done = await replayMatching(c.get('db'), c.get('keyHash'), c.env.EVENTS, id, c.req.valid('query'));
    return c.json({ data: done }, 200);
  })
  .openapi(replay, async (c) => {
    const { id, event_id } = c.req.valid('param');
    const row = await replayEvent(c.get('db'), c.get('keyHash'), c.env.EVENTS, id, event_id);
    // A `webhooks:update` key without `webhooks:read` never reads the lead's payload this way.
    return c.json({ data: visibleAnswer(c, presentEvent(row), ['status']) }, 202);
  })
  .openapi(processForReal, async (c) => {
    const { id, event_id } = c.req.valid('param');
    const row = await processTestEvent(c.get('db'), c.get('keyHash'), c.env.EVENTS, id, event_id);
    return c.json({ data: visibleAnswer(c, presentEvent(row), ['status']) }, 202);
  });
