import { createRoute, z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import packageJson from '../package.json';
import { logError } from './core/log';
import { ownVar } from './core/own-vars';
import { primaryDb } from './db/client';
import { allShards, shardOf } from './db/shards';
import { purgeTrash } from './db/trash';
import type { Bindings } from './env';
import { apiCors } from './http/cors';
import { docsAsset, docsPage } from './http/docs';
import { polish } from './http/document';
import { apiGate } from './http/gate';
import { fastHealth, HEALTHY } from './http/health';
import { forgetExpiredKeys } from './http/idempotency';
import { methodNotAllowed } from './http/methods';
import { requestContext } from './http/middleware';
import { jsonContent, router } from './http/openapi';
import { ApiError, asApiError, type ProblemCode } from './http/problem';
import { problemIndex, problemPage } from './http/problem-pages';
import { clientRateLimit } from './http/rate-limit';
import { stateScopes } from './http/scopes';
import { sweepUnclaimedFiles } from './imports/files';
import { purgeJournal } from './journal/retention';
import { mcpRoute } from './mcp/route';
import { journals } from './model/journals';
import { withForwarding } from './moves/forwards';
import { drainStrandedHeld } from './moves/held';
import { requeueStalledMoves } from './moves/run';
import { mcpOAuth, oauthRouter } from './oauth/routes';
import { fanoutAfterWrite } from './outbound/after-write';
import type { Exporter } from './panel/exports';
import { panelRouter } from './panel/routes';
import { consume, requeueStranded } from './queue/consumer';
import { fanOutOnce, purgeDeliveries, requeueStrandedDeliveries } from './queue/outbound';
import { accountRouter } from './routes/account';
import { adminRouter } from './routes/admin';
import { apiKeysRouter, meRouter } from './routes/api-keys';
import { batchRouters } from './routes/batch';
import { companiesRouter } from './routes/companies';
import { contactsRouter } from './routes/contacts';
import { dealsRouter } from './routes/deals';
import { eventsRouter, historyRouter } from './routes/events';
import { exportRouters } from './routes/export';
import { hooksRouter } from './routes/hooks';
import { importsRouter } from './routes/imports';
import { inboundWebhooksRouter } from './routes/inbound-webhooks';
import { taskCategoriesRouter } from './routes/task-categories';
import { tasksRouter } from './routes/tasks';
import { usageRouter } from './routes/usage';
import { usersRouter } from './routes/users';
import {
  registerOutboundWebhooks,
  webhookDeliveriesRouter,
  webhookEndpointsRouter,
} from './routes/webhook-endpoints';
import { purgeExpiredEvents } from './webhooks/log/event-log';

const app = router();

// Four links on a `/v1` request (each a middleware call and a promise in Hono's chain): context and
// security headers (no-store among them); CORS; 405; limits, key, bookmark and Idempotency-Key.
app.use('*', requestContext);
// CORS first, so a preflight is answered and a 405 carries the headers a browser needs to read it.
app.use('/v1/*', apiCors);
app.use('*', methodNotAllowed(app));
app.use('/v1/*', apiGate);
app.use('/v1/*', fanoutAfterWrite);
app.use('/hooks/*', clientRateLimit);

const health = createRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  tags: ['Meta'],
  security: [],
  summary: 'Liveness: no auth, no database access',
  description:
    'Answers 200 while the Worker runs: for uptime checks and load balancers. Needs no credentials and reads no database, so it says nothing of D1.',
  responses: { 200: jsonContent(z.object({ status: z.literal('ok') }).openapi('Health'), 'Up') },
});

const routes = app
  .openapi(health, (c) => c.json(HEALTHY, 200))
  .route('/v1/users', exportRouters.users)
  .route('/v1/companies', exportRouters.companies)
  .route('/v1/contacts', exportRouters.contacts)
  .route('/v1/deals', exportRouters.deals)
  .route('/v1/tasks', exportRouters.tasks)
  .route('/v1/users', batchRouters.users)
  .route('/v1/companies', batchRouters.companies)
  .route('/v1/contacts', batchRouters.contacts)
  .route('/v1/deals', batchRouters.deals)
  .route('/v1/tasks', batchRouters.tasks)
  .route('/v1/users', usersRouter)
  .route('/v1/companies', companiesRouter)
  .route('/v1/contacts', contactsRouter)
  .route('/v1/deals', dealsRouter)
  .route('/v1/tasks', tasksRouter)
  .route('/v1/task-categories', taskCategoriesRouter)
  .route('/v1/inbound-webhooks', inboundWebhooksRouter)
  .route('/v1/companies', historyRouter('company'))
  .route('/v1/contacts', historyRouter('contact'))
  .route('/v1/deals', historyRouter('deal'))
  .route('/v1/tasks', historyRouter('task'))
  .route('/v1/users', historyRouter('user'))
  .route('/v1/events', eventsRouter)
  .route('/v1/webhook-endpoints', webhookEndpointsRouter)
  .route('/v1/webhook-endpoints', webhookDeliveriesRouter)
  .route('/v1/usage', usageRouter)
  .route('/v1/api-keys', apiKeysRouter)
  .route('/v1/me', meRouter)
  .route('/v1/account', accountRouter)
  .route('/v1/imports', importsRouter)
  .route('/hooks', hooksRouter)
  .route('/admin', adminRouter);

stateScopes(app);
registerOutboundWebhooks(app.openAPIRegistry);
app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
  type: 'http',
  scheme: 'bearer',
  description:
    'An API key of the account (`crm_…`). Each operation lists the scope it needs (`companies:read`); a key holding it, a wildcard of it (`*:read`, `companies:*`) or no scopes at all (full access) may call it.',
});
app.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The operator token (Worker secret ADMIN_TOKEN)',
});

/**
 * The document's config. `servers` names the origin the document was fetched from (or
 * PUBLIC_BASE_URL), so a client generated from it calls the same deployment.
 */
const documentConfig = (server: string) => ({
  openapi: '3.1.0',
  info: {
    title: 'CRM Service',
    version: packageJson.version,
    // The team's address goes here before the document is published outside; Redocly's info-contact.
    contact: { name: 'CRM Service maintainers' },
    description:
      'Multi-tenant CRM API. Lists use keyset pagination (`limit`, `cursor`, `sort`); errors are RFC 9457 problem+json. A path below with a method it does not list answers 405 `method_not_allowed` with `Allow`, before any authentication.',
  },
  servers: [{ url: server.replace(/\/$/, '') }],
  tags: [
    { name: 'Users', description: "The account's salespeople: owners and followers of records" },
    { name: 'Companies', description: 'Brazilian legal entities, one per CNPJ in an account' },
    { name: 'Contacts', description: 'People (leads), optionally at a company' },
    { name: 'Deals', description: 'Opportunities: open, won or lost' },
    { name: 'Tasks', description: 'To-dos on a deal, and their categories' },
    {
      name: 'Events',
      description:
        'The change journal: every change to a record, in commit order (the feed and each history)',
    },
    {
      name: 'Inbound webhooks',
      description: 'URLs that turn posted JSON into records, and their event logs',
    },
    { name: 'Imports', description: 'CSV files imported in chunks through the batch writes' },
    { name: 'Webhook ingest', description: 'Where senders post events; the URL is the credential' },
    {
      name: 'Webhook endpoints',
      description: 'URLs of yours the CRM posts its change events to, signed per Standard Webhooks',
    },
    {
      name: 'API keys',
      description: "The account's API keys and their scopes, and the key making the request",
    },
    { name: 'Account', description: "The account's settings: the time zone dates with no time stand in" },
    { name: 'Admin', description: 'Accounts and API keys, for the operator' },
    { name: 'Meta', description: 'Liveness' },
  ],
});

/** The OpenAPI document served from `server`; also for tools that generate or lint clients offline. */
export const openApiDocument = (server: string) => polish(app.getOpenAPI31Document(documentConfig(server)));
app.get('/openapi.json', (c) =>
  c.json(openApiDocument(ownVar(c.env, 'PUBLIC_BASE_URL') || new URL(c.req.url).origin)),
);
app.get('/docs', docsPage);
// Each problem's `type` (`/problems/<code>`) resolves to a page that explains its code.
app.get('/problems', problemIndex);
app.get('/problems/:code', problemPage);
app.get('/docs/:file', docsAsset);
// MCP for AI assistants (docs/mcp.md): JSON-RPC over one POST, each tool call a /v1 request made
// in-process; outside the OpenAPI document, whose operations its tools are made from.
// OAuth 2.1 for the assistants that connect only so (docs/mcp.md, *OAuth*): the metadata, token
// and registration endpoints here, the consent page in the panel; an access token on /mcp is
// checked by the library and stands for its grant's own API key.
/** The app, with old credentials of moved accounts forwarded (src/moves/forwards.ts). */
const appFetch = (request: Request, env: Bindings, ctx: ExecutionContext) =>
  withForwarding(request, env, async (r) => app.fetch(r, env, ctx));
app.route('/', oauthRouter(appFetch));
app.post(
  '/mcp',
  mcpOAuth(appFetch),
  mcpRoute(
    (request, env, ctx) => withForwarding(request, env, async (r) => app.fetch(r, env, ctx)),
    () => openApiDocument(''),
  ),
);
/** A panel list's export button: the `/v1` export router itself, run with the session's key. */
const panelExport: Exporter = (resource, c, key) => {
  const run = router()
    .use(async (inner, next) => {
      inner.set('db', c.get('db'));
      inner.set('keyHash', key);
      await next();
    })
    .route('/', exportRouters[resource]);
  // Its failures are the panel page's to show (a refused scope, a bad filter), not a JSON problem.
  run.onError((err) => {
    throw err;
  });
  const url = new URL(c.req.url);
  url.pathname = '/export';
  return Promise.resolve(run.fetch(new Request(url), c.env, c.executionCtx));
};

// The panel's pages are HTML for people, not part of the API: outside the OpenAPI document.
app.route(
  '/panel',
  panelRouter(async (request, env) => app.fetch(request, env), panelExport),
);

const problem = (err: ApiError, requestId: string | undefined) =>
  new Response(JSON.stringify(err.toProblem(requestId)), {
    status: err.status,
    headers: { 'Content-Type': 'application/problem+json', ...err.headers },
  });

// Under /hooks/, an unknown endpoint is an empty 404, as an unknown token is (routes/hooks.ts): a
// sender learns nothing there but that the URL is wrong.
app.notFound((c) =>
  c.req.path.startsWith('/hooks/')
    ? c.body(null, 404)
    : problem(new ApiError(404, 'not_found', 'No such route.'), c.get('requestId')),
);

/** Codes for Hono's own HTTP errors, so they match the documented ones. */
const httpCodes: Record<number, ProblemCode> = {
  400: 'malformed_json',
  413: 'body_too_large',
  415: 'unsupported_media_type',
};

app.onError((err, c) => {
  const requestId = c.get('requestId');
  const expected = asApiError(err);
  if (expected) return problem(expected, requestId);
  if (err instanceof HTTPException && err.status < 500) {
    const code = httpCodes[err.status] ?? 'bad_request';
    return problem(new ApiError(err.status as ContentfulStatusCode, code, err.message), requestId);
  }
  logError(err, requestId);
  return problem(new ApiError(500, 'internal_error', 'Something went wrong on our side.'), requestId);
});

/**
 * The cron's jobs on one shard, each on its own: a job refused by a moving account's freeze (a
 * purge across accounts touching its rows aborts with `account_moving`) is logged and the next
 * ones still run; it runs again in 5 minutes.
 */
async function cronOnShard(env: Bindings, shard: number): Promise<void> {
  const db = primaryDb(env, shard);
  const now = Date.now();
  const jobs: [string, () => Promise<unknown>][] = [
    ['requeue', () => requeueStranded(env, shard)],
    // Webhook calls held by a move that has ended: stored on the account's shard.
    ['held', () => drainStrandedHeld(env, shard)],
    ['idempotency', () => forgetExpiredKeys(db)],
    ['trash', () => purgeTrash(db, now, journals)],
    ['events', () => purgeExpiredEvents(db, now, env)],
    ['journal', () => purgeJournal(db, now, env)],
    // Outbound webhooks: entries whose fan-out ask was lost, deliveries whose message was lost.
    ['fanout', () => fanOutOnce(env, shard)],
    ['deliveries', () => requeueStrandedDeliveries(env, shard)],
    ['delivery-log', () => purgeDeliveries(env, shard)],
    // Keeps SQLite's planner statistics fresh as tables grow; D1 supports PRAGMA optimize.
    ['optimize', () => shardOf(env, shard).exec('PRAGMA optimize')],
  ];
  for (const [name, job] of jobs) {
    try {
      await job();
    } catch (err) {
      logError(err, `cron:shard:${shard}:${name}`);
    }
  }
}

/** For Hono's typed client: `hc<AppType>(baseUrl)`. */
export type AppType = typeof routes;

export default {
  fetch: (request: Request, env: Bindings, ctx: ExecutionContext) =>
    fastHealth(request) ?? appFetch(request, env, ctx),
  queue: consume,
  // Every job runs on each shard in turn (nothing joins across shards); a shard that fails is
  // logged and the next ones still run.
  async scheduled(controller, env) {
    // Moves whose step message was lost: their row is on shard 0, beside the directory.
    await requeueStalledMoves(env).catch((err) => logError(err, 'cron:moves'));
    // Import files no import took up (one bucket for every shard).
    await sweepUnclaimedFiles(env, controller.scheduledTime).catch((err) =>
      logError(err, 'cron:import-files'),
    );
    for (const shard of allShards(env)) await cronOnShard(env, shard);
  },
} satisfies ExportedHandler<Bindings>;
