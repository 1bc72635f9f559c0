import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { oneWritten } from '../contracts/common';
import {
  DEFAULT_GRACE_S,
  endpointSorts,
  RotateSecretBody,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointQuery,
  WebhookEndpointUpdate,
} from '../contracts/webhook-endpoints';
import { createOwn, getOwn, listOwn, updateOwn } from '../db/own';
import { webhookEndpoints } from '../db/schema';
import { trashHandlers } from '../http/handlers';
import { jsonGuard } from '../http/middleware';
import {
  bodyErrors,
  errorResponses,
  idempotencyParam,
  jsonBody,
  jsonContent,
  pathId,
  replayedHeader,
  router,
} from '../http/openapi';
import { keyset } from '../http/pagination';
import { resourceRoutes, trashRoutes } from '../http/routes';
import { urlOf } from '../http/urls';
import { visibleAnswer } from '../http/visible';
import {
  type EndpointRow,
  endpointSpec,
  endpointTrash,
  presentEndpoint,
  rotateSecret,
} from '../outbound/endpoints';
import { assertOutboundUrl, outboundPolicy } from '../outbound/policy';
import { newSigningSecret } from '../outbound/signing';

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
export const endpointRoute = <const R extends Omit<RouteConfig, 'tags' | 'security'>>(config: R) =>
  createRoute({
    ...config,
    tags: [names.tag],
    security: [{ bearerAuth: [] }],
    ...(config.method === 'post' && { parameters: [idempotencyParam] }),
  });
export const EndpointParam = z.object({ id: pathId('id') });

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
    ...errorResponses(...bodyErrors, 404, 429),
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
    const body = c.req.valid('json');
    assertOutboundUrl(body.url, outboundPolicy(c.env, c.req.url));
    const secret = newSigningSecret();
    const row = await createOwn(c.get('db'), c.get('keyHash'), endpointSpec, { ...body, secret });
    c.header('Location', urlOf(c, `/v1/webhook-endpoints/${row.id}`));
    return c.json({ data: presentEndpoint(row, secret) }, 201);
  })
  .openapi(routes.update, async (c) => {
    const body = c.req.valid('json');
    if (body.url !== undefined) assertOutboundUrl(body.url, outboundPolicy(c.env, c.req.url));
    const { id } = c.req.valid('param');
    const row = await updateOwn(c.get('db'), c.get('keyHash'), endpointSpec, id, body);
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
