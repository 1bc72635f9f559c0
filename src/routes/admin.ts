import { createRoute, z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { bearerToken, hasApiKeyPrefix, newApiKey, secretsEqual, sha256Hex } from '../auth/secrets';
import { Id, iso, Name, one, Timestamp, writeBodies } from '../contracts/common';
import { notFound, unauthorized } from '../core/errors';
import { accounts, apiKeys } from '../db/schema';
import type { AppEnv } from '../env';
import { jsonGuard } from '../http/middleware';
import { bodyErrors, errorResponses, IdParam, jsonBody, jsonContent, router } from '../http/openapi';

/**
 * Without an ADMIN_TOKEN secret the admin API does not exist (404), so no token can be guessed at;
 * the 404 says how an operator turns it on, which is no secret.
 */
const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) {
    throw notFound(
      'The admin API is off: set the ADMIN_TOKEN secret to turn it on (locally in .dev.vars, see .dev.vars.example; in production with `wrangler secret put ADMIN_TOKEN`).',
    );
  }
  const token = bearerToken(c.req.header('Authorization'));
  if (!token) throw unauthorized('The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.');
  if (!(await secretsEqual(token, expected))) {
    throw unauthorized(
      hasApiKeyPrefix(token)
        ? 'This is an account API key (crm_…); /admin takes the ADMIN_TOKEN: Authorization: Bearer <ADMIN_TOKEN>.'
        : 'The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.',
    );
  }
  await next();
});

const ApiKey = z
  .object({
    id: Id,
    key: z
      .string()
      .openapi({ description: 'The plaintext key: shown only in this response', example: 'crm_…' }),
    created_at: Timestamp,
  })
  .openapi('ApiKey');

const Account = z.object({ id: Id, name: z.string(), created_at: Timestamp }).openapi('Account');

const tags = ['Admin'];
const security = [{ adminToken: [] }];

const createAccount = createRoute({
  method: 'post',
  path: '/accounts',
  operationId: 'createAccount',
  tags,
  security,
  summary: 'Create an account and its first API key',
  description:
    'For the operator (the `ADMIN_TOKEN` secret; every /admin route is a 404 without it). Creates a tenant and its first API key; the key in `api_key.key` is shown only in this answer, since the API stores its hash.',
  middleware: [jsonGuard] as const,
  request: { body: jsonBody(writeBodies({ name: Name }).create.openapi('AccountCreate')) },
  responses: {
    201: jsonContent(
      one(z.object({ account: Account, api_key: ApiKey }).openapi('AccountWithKey'), 'AccountWithKey'),
      'The account and its key',
    ),
    ...errorResponses(...bodyErrors, 404),
  },
});

const createKey = createRoute({
  method: 'post',
  path: '/accounts/{id}/api-keys',
  operationId: 'createApiKey',
  tags,
  security,
  summary: 'Issue another API key for an account',
  description:
    'A further key for the account (one per client, so each can be revoked alone). The key is shown only in this answer.',
  request: { params: IdParam },
  responses: { 201: jsonContent(one(ApiKey, 'ApiKey'), 'The new key'), ...errorResponses(404) },
});

const revokeKey = createRoute({
  method: 'delete',
  path: '/api-keys/{id}',
  operationId: 'revokeApiKey',
  tags,
  security,
  summary: 'Revoke an API key: it answers 401 from then on',
  description:
    'Revokes the key at once: every request with it is a 401. The account and its other keys are untouched.',
  request: { params: IdParam },
  responses: { 204: { description: 'Revoked' }, ...errorResponses(404) },
});

const base = router();
base.use('*', adminAuth);

export const adminRouter = base
  .openapi(createAccount, async (c) => {
    const { name } = c.req.valid('json');
    const db = c.get('db');
    const key = newApiKey();
    const now = Date.now();
    // One atomic batch: the key row takes the account id from the insert just before it.
    const [[account], [apiKey]] = await db.batch([
      db.insert(accounts).values({ name, createdAt: now }).returning(),
      db
        .insert(apiKeys)
        .values({ accountId: sql`last_insert_rowid()`, keyHash: await sha256Hex(key), createdAt: now })
        .returning({ id: apiKeys.id }),
    ]);
    if (!account || !apiKey) throw new Error('account insert returned no row');
    return c.json(
      {
        data: {
          account: { id: account.id, name: account.name, created_at: iso(account.createdAt) },
          api_key: { id: apiKey.id, key, created_at: iso(now) },
        },
      },
      201,
    );
  })
  .openapi(createKey, async (c) => {
    const { id } = c.req.valid('param');
    const db = c.get('db');
    const key = newApiKey();
    const now = Date.now();
    const keyHash = await sha256Hex(key);
    const [apiKey] = await db
      .insert(apiKeys)
      .select(
        db
          // Insert-from-select needs every column of the table, in its order.
          .select({
            id: sql<number>`null`.as('id'),
            accountId: accounts.id,
            keyHash: sql<string>`${keyHash}`.as('key_hash'),
            createdAt: sql<number>`${now}`.as('created_at'),
            revokedAt: sql<number | null>`null`.as('revoked_at'),
          })
          .from(accounts)
          .where(eq(accounts.id, id)),
      )
      .returning({ id: apiKeys.id });
    if (!apiKey) throw notFound('No such account.');
    return c.json({ data: { id: apiKey.id, key, created_at: iso(now) } }, 201);
  })
  .openapi(revokeKey, async (c) => {
    const { id } = c.req.valid('param');
    const db = c.get('db');
    // Revoking twice is fine; only an unknown key id is a 404.
    const [revoked] = await db
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${Date.now()})` })
      .where(eq(apiKeys.id, id))
      .returning({ id: apiKeys.id });
    if (!revoked) throw notFound('No such API key.');
    return c.body(null, 204);
  });
