import { type RouteConfig, z } from '@hono/zod-openapi';
import { list, oneWritten } from '../contracts/common';
import {
  DEFAULT_GRACE_S,
  deliverySorts,
  endpointSorts,
  RecoverBody,
  RecoverResult,
  RotateSecretBody,
  TestOutcome,
  WebhookDelivery,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointQuery,
  WebhookEndpointUpdate,
  WebhookMessage,
} from '../contracts/webhook-endpoints';
import { EVENT_TYPES, PING } from '../core/event-types';
import { getOwn, listOwn } from '../db/own';
import { webhookDeliveries, webhookEndpoints } from '../db/schema';
import { trashHandlers } from '../http/handlers';
import { jsonGuard } from '../http/middleware';
import {
  bodyErrors,
  errorResponses,
  jsonBody,
  jsonContent,
  pathId,
  replayedHeader,
  router,
  traceHeaders,
} from '../http/openapi';
import { keyset } from '../http/pagination';
import { linkHeader, resourceRoutes, subRoutes, trashRoutes } from '../http/routes';
import { urlOf } from '../http/urls';
import { visibleAnswer } from '../http/visible';
import { testEndpoint } from '../outbound/deliver';
import type { DeliveryRow } from '../outbound/deliveries';
import {
  createEndpoint,
  type EndpointRow,
  endpointSpec,
  endpointTrash,
  presentEndpoint,
  rotateSecret,
  updateEndpoint,
} from '../outbound/endpoints';
import { listDeliveries, presentDelivery, sendAgain } from '../outbound/log';
import { outboundPolicy } from '../outbound/policy';

const names = { tag: 'Webhook endpoints', one: 'webhook endpoint', schema: 'WebhookEndpoint' };
const routes = resourceRoutes(
  { ...names, plural: 'WebhookEndpoints' },
  {
    resource: WebhookEndpoint,
    query: WebhookEndpointQuery,
    create: WebhookEndpointCreate,
    update: WebhookEndpointUpdate,
  },
);
const trash = trashRoutes(
  {
    ...names,
    removeNote:
      'Nothing is sent to it from then on; its delivery log stays, and a restore within 30 days turns it back as it was.',
  },
  { resource: WebhookEndpoint },
);
const present = (row: EndpointRow) => presentEndpoint(row);
const trashed = trashHandlers(endpointTrash, present);

/** A `/v1/webhook-endpoints/{id}/…` route beyond the resource's own. */
const endpointRoute = subRoutes(names.tag);
const EndpointParam = z.object({ id: pathId('id') });

const rotate = endpointRoute({
  method: 'post',
  path: '/{id}/rotate-secret',
  operationId: 'rotateWebhookEndpointSecret',
  summary: 'Give the endpoint a new signing secret; the old one signs too for a grace period',
  description:
    'Replaces the secret and answers with the new one, shown this once. For `grace_period` seconds (default 86400: 24 hours; 0 for a secret that leaked) every message carries two signatures in `webhook-signature`, one per secret, so a receiver verifies with either while it moves. Rotating again during a grace ends the older secret at once.',
  middleware: [jsonGuard] as const,
  request: { params: EndpointParam, body: jsonBody(RotateSecretBody) },
  responses: {
    200: jsonContent(
      oneWritten(WebhookEndpoint, 'WebhookEndpoint'),
      'The endpoint with its new `secret`',
      replayedHeader,
    ),
    ...errorResponses(...bodyErrors, 404, 409, 429),
  },
});

export const webhookEndpointsRouter = router()
  .openapi(routes.list, async (c) => {
    const q = c.req.valid('query');
    const page = keyset<EndpointRow>(webhookEndpoints, endpointSorts, q);
    const rows = await listOwn(
      c.get('db'),
      c.get('keyHash'),
      { ...endpointSpec, trash: q.deleted },
      page,
      [],
    );
    return c.json(page.page(c, rows, present), 200);
  })
  .openapi(routes.get, async (c) => {
    const row = await getOwn(c.get('db'), c.get('keyHash'), endpointSpec, c.req.valid('param').id);
    return c.json({ data: present(row) }, 200);
  })
  .openapi(routes.create, async (c) => {
    const policy = outboundPolicy(c.env, c.req.url);
    const { row, secret } = await createEndpoint(c.get('db'), c.get('keyHash'), c.req.valid('json'), policy);
    c.header('Location', urlOf(c, `/v1/webhook-endpoints/${row.id}`));
    return c.json({ data: presentEndpoint(row, secret) }, 201);
  })
  .openapi(routes.update, async (c) => {
    const body = c.req.valid('json');
    const { id } = c.req.valid('param');
    const policy = outboundPolicy(c.env, c.req.url);
    const row = await updateEndpoint(c.get('db'), c.get('keyHash'), id, body, policy);
    return c.json({ data: visibleAnswer(c, present(row), Object.keys(body)) }, 200);
  })
  .openapi(trash.remove, trashed.remove)
  .openapi(trash.restore, trashed.restore)
  .openapi(rotate, async (c) => {
    const grace = c.req.valid('json').grace_period ?? DEFAULT_GRACE_S;
    const row = await rotateSecret(c.get('db'), c.get('keyHash'), c.req.valid('param').id, grace);
    const shown = presentEndpoint(row, row.secret);
    return c.json(
      { data: visibleAnswer(c, shown, ['secret', 'previous_secret_expires_at', 'updated_at']) },
      200,
    );
  });

const DeliveryParams = z.object({ id: pathId('id'), delivery_id: pathId('delivery_id') });

const deliveries = endpointRoute({
  method: 'get',
  path: '/{id}/deliveries',
  operationId: 'listWebhookEndpointDeliveries',
  summary: "The endpoint's delivery log, newest first, with every attempt",
  description:
    "Each message sent to the endpoint (its `webhook-id` as `message_id`), where it stands (`pending`, `succeeded`, `failed`, `aborted`) and every attempt: time, HTTP status, latency and the answer's first 2 KiB. Kept 30 days. Another account's endpoint is a 404.",
  request: { params: EndpointParam, query: WebhookDeliveryQuery },
  responses: {
    200: jsonContent(list(WebhookDelivery, 'WebhookDelivery'), 'One page', linkHeader),
    ...errorResponses(400, 404, 429),
  },
});

const resend = endpointRoute({
  method: 'post',
  path: '/{id}/deliveries/{delivery_id}/resend',
  operationId: 'resendWebhookDelivery',
  summary: 'Send one delivery again, with the same webhook-id',
  description:
    'Starts a new round of tries (the whole retry schedule) for a delivery that ended: failed, aborted or even succeeded. One still being tried is a 409. The receiver sees the same `webhook-id`: dedupe by it.',
  request: { params: DeliveryParams },
  responses: {
    202: { description: 'Queued', headers: { ...traceHeaders, ...replayedHeader } },
    ...errorResponses(400, 404, 409, 422, 429),
  },
});

const recover = endpointRoute({
  method: 'post',
  path: '/{id}/recover',
  operationId: 'recoverWebhookEndpoint',
  summary: 'Send again every failed delivery since a time',
  description:
    'After an outage (or once a disabled endpoint is on again): every delivery made since `since` that failed or was aborted gets a new round of tries, in version order per record. Answers how many.',
  middleware: [jsonGuard] as const,
  request: { params: EndpointParam, body: jsonBody(RecoverBody) },
  responses: {
    200: jsonContent(RecoverResult, 'How many were queued', replayedHeader),
    ...errorResponses(...bodyErrors, 404, 409, 429),
  },
});

const test = endpointRoute({
  method: 'post',
  path: '/{id}/test',
  operationId: 'testWebhookEndpoint',
  summary: 'Send a `ping` now and answer with what the endpoint said',
  description:
    'Signs and posts a `ping` message (`{ "type": "ping", "timestamp", "data": { "endpoint_id" } }`) at once, whatever the endpoint subscribes to and even when it is disabled, and answers with the delivery and its one attempt (no retries). It writes no record: only the delivery log.',
  request: { params: EndpointParam },
  responses: {
    200: jsonContent(TestOutcome, 'The ping and its attempt', replayedHeader),
    ...errorResponses(400, 404, 409, 422, 429),
  },
});

export const webhookDeliveriesRouter = router()
  .openapi(deliveries, async (c) => {
    const page = keyset<DeliveryRow>(webhookDeliveries, deliverySorts, c.req.valid('query'));
    const found = await listDeliveries(c.get('db'), c.get('keyHash'), c.req.valid('param').id, page);
    return c.json(
      page.page(c, found.rows, (row) => presentDelivery(row, found.attempts)),
      200,
    );
  })
  .openapi(resend, async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    await sendAgain(c.get('db'), c.get('keyHash'), c.env.OUTBOUND, id, { deliveryId: delivery_id });
    return c.body(null, 202);
  })
  .openapi(recover, async (c) => {
    const since = c.req.valid('json').since ?? 0;
    const { id } = c.req.valid('param');
    const resent = await sendAgain(c.get('db'), c.get('keyHash'), c.env.OUTBOUND, id, { since });
    return c.json({ data: { resent } }, 200);
  })
  .openapi(test, async (c) => {
    const tried = await testEndpoint(c.get('db'), c.env, c.get('keyHash'), c.req.valid('param').id);
    return c.json({ data: tried.delivery }, 200);
  });

const signatureHeaders = z.object({
  'webhook-id': z
    .string()
    .openapi({ description: "The entry's id (`evt_…`): the same on every retry; dedupe by it" }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt' }),
  'webhook-signature': z.string().openapi({
    description:
      '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, space-separated when two secrets sign (a rotation)',
  }),
});

/** The document's `webhooks`: one per event type (and the ping), each the signed POST a receiver gets. */
export function registerOutboundWebhooks(registry: { registerWebhook: (route: RouteConfig) => void }): void {
  for (const type of [...EVENT_TYPES, PING]) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      tags: [names.tag],
      summary: `\`${type}\`, posted to every endpoint subscribed to it`,
      // `company.created` -> `onCompanyCreated`: a name a generated receiver's handler can take.
      operationId: `on${type.replace(/(?:^|[._])(\w)/g, (_, c: string) => c.toUpperCase())}`,
      // The receiver checks the signature headers below, not an HTTP scheme: no security scheme.
      security: [],
      request: { headers: signatureHeaders, body: jsonBody(WebhookMessage) },
      responses: {
        200: { description: 'Any 2xx acknowledges it; anything else (or no answer within 15 s) is retried' },
        410: { description: 'Turns the endpoint off' },
      },
    });
  }
}
