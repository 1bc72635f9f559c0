import { createRoute, z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { bearerToken, hasApiKeyPrefix, newApiKey, secretsEqual, sha256Hex } from '../auth/secrets';
import { ApiKeyCreate, type ApiKeyCreateBody, NewApiKey } from '../contracts/api-keys';
import { Id, iso, Name, one, Timestamp, writeBodies } from '../contracts/common';
import { notFound, unauthorized } from '../core/errors';
import { ownVar } from '../core/own-vars';
import { guardedWrite } from '../db/errors';
import { accounts, apiKeys } from '../db/schema';
import type { AppEnv } from '../env';
import { jsonGuard } from '../http/middleware';
import { bodyErrors, errorResponses, IdParam, jsonBody, jsonContent, router } from '../http/openapi';
import { expiryOf, newKeyRow, presentKey } from '../model/api-keys';

/**
 * Without an ADMIN_TOKEN secret the admin API does not exist (404), so no token can be guessed at;
 * the 404 says how an operator turns it on, which is no secret.
 */
const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  // Own property only: a value planted on Object.prototype must never turn the admin API on.
  const expected = ownVar(c.env, 'ADMIN_TOKEN');
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

/** The body is optional here, as it was before keys had names: none makes an unnamed full-access key. */
const optionalJson = createMiddleware<AppEnv>(async (c, next) =>
  c.req.header('Content-Type') === undefined ? next() : jsonGuard(c, next),
);

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
      one(z.object({ account: Account, api_key: NewApiKey }).openapi('AccountWithKey'), 'AccountWithKey'),
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
  summary: 'Issue another API key for an account, with any scopes (the body of POST /v1/api-keys)',
  description:
    'A further key for the account (one per client, so each can be revoked alone), with a name, scopes and an expiry as `POST /v1/api-keys` takes them, but any scopes; no body: an unnamed full-access key. The key is shown only in this answer. 409 when the account already holds 100 live keys.',
  middleware: [optionalJson] as const,
  request: { params: IdParam, body: { ...jsonBody(ApiKeyCreate), required: false } },
  responses: {
    201: jsonContent(one(NewApiKey, 'NewApiKey'), 'The new key, with its secret'),
    ...errorResponses(...bodyErrors, 404, 409),
  },
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
        .returning(),
    ]);
    if (!account || !apiKey) throw new Error('account insert returned no row');
    return c.json(
      {
        data: {
          account: { id: account.id, name: account.name, created_at: iso(account.createdAt) },
          api_key: { ...presentKey(apiKey), key },
        },
      },
      201,
    );
  })
  .openapi(createKey, async (c) => {
    const { id } = c.req.valid('param');
    // No body: an unnamed full-access key, as this route made before keys had names.
    const body: ApiKeyCreateBody = c.req.valid('json');
    const db = c.get('db');
    const key = newApiKey();
    const now = Date.now();
    const values = newKeyRow(
      { accountId: id, hash: await sha256Hex(key), body, expiresAt: expiryOf(body, null, now) },
      now,
    );
    // Insert-from-select: the account must exist, in the same statement. The trigger api_keys_cap
    // holds the operator to the account's 100 live keys too (409).
    const [row] = await guardedWrite(
      db
        .insert(apiKeys)
        .select(
          db
            // Every column of the table, in its order.
            .select({
              id: sql<number>`null`.as('id'),
              accountId: accounts.id,
              keyHash: sql<string>`${values.keyHash}`.as('key_hash'),
              createdAt: sql<number>`${now}`.as('created_at'),
              revokedAt: sql<number | null>`null`.as('revoked_at'),
              name: sql<string | null>`${values.name}`.as('name'),
              scopes: sql<string | null>`${values.scopes && JSON.stringify(values.scopes)}`.as('scopes'),
              expiresAt: sql<number | null>`${values.expiresAt}`.as('expires_at'),
              lastUsedAt: sql<number | null>`null`.as('last_used_at'),
            })
            .from(accounts)
            .where(eq(accounts.id, id)),
        )
        .returning(),
      apiKeys,
    );
    if (!row) throw notFound('No such account.');
    return c.json({ data: { ...presentKey(row), key } }, 201);
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
