import { createRoute, z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { apiKeyAuth } from './auth/tenant';
import { primaryDb } from './db/client';
import type { Bindings } from './env';
import { bookmarkGuard } from './http/bookmark';
import { apiCors } from './http/cors';
import { docsPage, docsPolicy } from './http/docs';
import { forgetExpiredKeys, idempotency } from './http/idempotency';
import { requestContext } from './http/middleware';
import { jsonContent, router } from './http/openapi';
import { ApiError, logError } from './http/problem';
import { apiRateLimit, clientRateLimit } from './http/rate-limit';
import { noStore, securityHeaders } from './http/security';
import { panelRouter } from './panel/routes';
import { consume, requeueStranded } from './queue/consumer';
import { adminRouter } from './routes/admin';
import { companiesRouter } from './routes/companies';
import { contactsRouter } from './routes/contacts';
import { dealsRouter } from './routes/deals';
import { hooksRouter } from './routes/hooks';
import { inboundWebhooksRouter } from './routes/inbound-webhooks';
import { taskCategoriesRouter } from './routes/task-categories';
import { tasksRouter } from './routes/tasks';
import { usersRouter } from './routes/users';

const app = router();

app.use('*', securityHeaders, requestContext);
app.use('/v1/*', noStore, apiCors, clientRateLimit, apiKeyAuth, apiRateLimit, bookmarkGuard, idempotency);
app.use('/hooks/*', clientRateLimit);

const health = createRoute({
  method: 'get',
  path: '/health',
  tags: ['Meta'],
  summary: 'Liveness: no auth, no database access',
  responses: { 200: jsonContent(z.object({ status: z.literal('ok') }), 'Up') },
});

const routes = app
  .openapi(health, (c) => c.json({ status: 'ok' as const }, 200))
  .route('/v1/users', usersRouter)
  .route('/v1/companies', companiesRouter)
  .route('/v1/contacts', contactsRouter)
  .route('/v1/deals', dealsRouter)
  .route('/v1/tasks', tasksRouter)
  .route('/v1/task-categories', taskCategoriesRouter)
  .route('/v1/inbound-webhooks', inboundWebhooksRouter)
  .route('/hooks', hooksRouter)
  .route('/admin', adminRouter);

app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
  type: 'http',
  scheme: 'bearer',
  description: 'An API key of the account (`crm_…`), issued by the admin API',
});
app.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The operator token (Worker secret ADMIN_TOKEN)',
});

app.doc31('/openapi.json', {
  openapi: '3.1.0',
  info: {
    title: 'CRM Service',
    version: '1.0.0',
    description:
      'Multi-tenant CRM API. Lists use keyset pagination (`limit`, `cursor`, `sort`); errors are RFC 9457 problem+json.',
  },
});
app.get('/docs', docsPolicy, docsPage);
// The panel's pages are HTML for people, not part of the API: outside the OpenAPI document.
app.route(
  '/panel',
  panelRouter(async (request, env) => app.fetch(request, env)),
);

const problem = (err: ApiError, requestId: string | undefined) =>
  new Response(JSON.stringify(err.toProblem(requestId)), {
    status: err.status,
    headers: { 'Content-Type': 'application/problem+json', ...err.headers },
  });

app.notFound((c) => problem(new ApiError(404, 'not_found', 'No such route.'), c.get('requestId')));

/** Codes for Hono's own HTTP errors, so they match the documented ones. */
const httpCodes: Record<number, string> = {
  400: 'malformed_json',
  413: 'body_too_large',
  415: 'unsupported_media_type',
};

app.onError((err, c) => {
  const requestId = c.get('requestId');
  if (err instanceof ApiError) return problem(err, requestId);
  if (err instanceof HTTPException && err.status < 500) {
    const code = httpCodes[err.status] ?? 'bad_request';
    return problem(new ApiError(err.status as ContentfulStatusCode, code, err.message), requestId);
  }
  logError(err, requestId);
  return problem(new ApiError(500, 'internal_error', 'Something went wrong on our side.'), requestId);
});

/** For Hono's typed client: `hc<AppType>(baseUrl)`. */
export type AppType = typeof routes;

export default {
  fetch: app.fetch,
  queue: consume,
  async scheduled(_controller, env) {
    await requeueStranded(env);
    await forgetExpiredKeys(primaryDb(env.DB));
    // Keeps SQLite's planner statistics fresh as tables grow; D1 supports PRAGMA optimize.
    await env.DB.exec('PRAGMA optimize');
  },
} satisfies ExportedHandler<Bindings>;
