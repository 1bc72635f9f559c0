import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { newApiKey, sha256Hex } from '../auth/secrets';
import { ApiKeyCreate, ApiKeyInfo, Me, NewApiKey } from '../contracts/api-keys';
import { MAX_LIVE_KEYS } from '../core/errors';
import type { AppEnv } from '../env';
import { IDEMPOTENCY_HEADER } from '../http/idempotency-claim';
import { jsonGuard } from '../http/middleware';
import {
  bodyErrors,
  bookmarkParam,
  errorResponses,
  IdParam,
  jsonBody,
  jsonContent,
  router,
  traceHeaders,
} from '../http/openapi';
import { badRequest } from '../http/problem';
import { urlOf } from '../http/urls';
import { createKey, getKey, listKeys, ownKey, presentKey, revokeKey } from '../model/api-keys';

const tags = ['API keys'];
// The scope each operation needs is derived from its method and path (src/core/scopes.ts).
const security = [{ bearerAuth: [] }];

const keyRoute = <const R extends Omit<RouteConfig, 'tags' | 'security'>>(config: R) =>
  createRoute({ ...config, tags, security, ...(config.method === 'get' && { parameters: [bookmarkParam] }) });

/**
 * The answer to a create holds the key's secret, which is never stored, not even for an
 * Idempotency-Key's replay: such a create is refused before it runs.
 */
const noIdempotencyKey = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header(IDEMPOTENCY_HEADER) !== undefined) {
    throw badRequest(
      'invalid_idempotency_key',
      `POST /v1/api-keys takes no ${IDEMPOTENCY_HEADER}: its answer holds the new key's secret, which is never stored to replay. If an answer was lost, GET /v1/api-keys shows whether the key was made; revoke it and make another.`,
    );
  }
  await next();
});

const listApiKeys = keyRoute({
  method: 'get',
  path: '/',
  operationId: 'listApiKeys',
  summary: `List the account's live API keys, newest first (at most ${MAX_LIVE_KEYS}: one page)`,
  description:
    'Every key of the account that is not revoked, expired ones included, with its name, scopes, expiry and last use (to the minute). Never a secret: only the create answer holds it.',
  responses: {
    200: jsonContent(
      z.object({ data: z.array(ApiKeyInfo) }).openapi('ApiKeyList'),
      'The keys, without secrets',
    ),
    ...errorResponses(400, 429),
  },
});

const getApiKey = keyRoute({
  method: 'get',
  path: '/{id}',
  operationId: 'getApiKey',
  summary: 'Get an API key (never its secret)',
  description: "One key of the account by id: a revoked key or another account's is a 404.",
  request: { params: IdParam },
  responses: {
    200: jsonContent(z.object({ data: ApiKeyInfo }).openapi('ApiKeyResponse'), 'The key'),
    ...errorResponses(400, 404, 429),
  },
});

const createApiKey = keyRoute({
  method: 'post',
  path: '/',
  operationId: 'createAccountApiKey',
  summary: 'Create an API key with at most the scopes of the key that creates it; its secret is shown once',
  description:
    'A new key with a name, scopes (`<resource>:<operation>`, wildcards allowed) and an optional expiry. It may hold no scope the creating key lacks and expire no later than it; the plaintext key is in this answer only (it is stored hashed). No `Idempotency-Key`: a stored answer would hold the secret.',
  middleware: [noIdempotencyKey, jsonGuard] as const,
  request: { body: jsonBody(ApiKeyCreate) },
  responses: {
    201: jsonContent(
      z.object({ data: NewApiKey }).openapi('NewApiKeyResponse'),
      'The new key, with its secret',
      {
        Location: { description: 'URL of the new key', schema: { type: 'string' } },
      },
    ),
    ...errorResponses(...bodyErrors, 409, 429),
  },
});

const revokeApiKey = keyRoute({
  method: 'delete',
  path: '/{id}',
  operationId: 'revokeAccountApiKey',
  summary: 'Revoke an API key: it answers 401 from its next request on (again is fine)',
  description:
    'Revokes a key of the account, this one included; panel sessions opened with it end too. Revoking a revoked key is a 204 again.',
  request: { params: IdParam },
  responses: { 204: { description: 'Revoked', headers: traceHeaders }, ...errorResponses(400, 404, 429) },
});

export const apiKeysRouter = router()
  .openapi(listApiKeys, async (c) => {
    const rows = await listKeys(c.get('db'), c.get('keyHash'));
    return c.json({ data: rows.map(presentKey) }, 200);
  })
  .openapi(getApiKey, async (c) => {
    const row = await getKey(c.get('db'), c.get('keyHash'), c.req.valid('param').id);
    return c.json({ data: presentKey(row) }, 200);
  })
  .openapi(createApiKey, async (c) => {
    // A key of the shard the account is on, as the request's own key says.
    const key = newApiKey(c.get('db').shard);
    const row = await createKey(
      c.get('db'),
      c.get('keyHash'),
      await sha256Hex(key),
      c.req.valid('json'),
      Date.now(),
    );
    c.header('Location', urlOf(c, `/v1/api-keys/${row.id}`));
    return c.json({ data: { ...presentKey(row), key } }, 201);
  })
  .openapi(revokeApiKey, async (c) => {
    await revokeKey(c.get('db'), c.get('keyHash'), c.req.valid('param').id, Date.now());
    return c.body(null, 204);
  });

const getMe = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getMe',
  tags,
  security,
  summary: 'The API key making the request: its account, scopes and expiry (any valid key may ask)',
  description:
    'What the calling key may do: its account, scopes (null: full access), expiry and last use. Any valid key may call it, whatever its scopes, so a tool can check its access before it starts.',
  parameters: [bookmarkParam],
  responses: {
    200: jsonContent(z.object({ data: Me }).openapi('MeResponse'), 'This key'),
    ...errorResponses(400, 429),
  },
});

export const meRouter = router().openapi(getMe, async (c) => {
  const row = await ownKey(c.get('db'), c.get('keyHash'));
  return c.json({ data: { account_id: row.accountId, api_key: presentKey(row) } }, 200);
});
