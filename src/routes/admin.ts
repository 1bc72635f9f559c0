import { createRoute, z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import { bearerToken, hasApiKeyPrefix, newApiKey, secretsEqual, sha256Hex } from '../auth/secrets';
import { ApiKeyCreate, type ApiKeyCreateBody, NewApiKey } from '../contracts/api-keys';
import { Id, iso, list, Name, one, Timestamp, writeBodies } from '../contracts/common';
import { invalid, notFound, unauthorized } from '../core/errors';
import { ownVar } from '../core/own-vars';
import { primaryDb } from '../db/client';
import {
  accountRows,
  accountsPerShard,
  directoryEntry,
  directoryPage,
  leastFilledShard,
  listAccount,
} from '../db/directory';
import { guardedWrite } from '../db/errors';
import { accounts, apiKeys } from '../db/schema';
import { shardStats } from '../db/shard-stats';
import { allShards, isShard, MAX_SHARDS, shardCount, shardOf } from '../db/shards';
import type { AppEnv, Bindings } from '../env';
import { jsonGuard } from '../http/middleware';
import { bodyErrors, errorResponses, IdParam, jsonBody, jsonContent, router } from '../http/openapi';
import { expiryOf, newKeyRow, presentKey } from '../model/api-keys';
import { loadMove } from '../moves/run';
import { presentMove, startMove } from '../moves/start';

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

const Shard = z.number().int().min(0).openapi({ description: 'The D1 database (shard) holding the account' });

const AccountOnShard = z
  .object({
    id: Id,
    name: z.string(),
    created_at: Timestamp,
    shard: Shard,
    state: z.enum(['active']).openapi({
      description: '`active`; a move of the account, and its state, is read at GET /admin/moves/{id}',
    }),
  })
  .openapi('AccountOnShard');

const ShardSummary = z
  .object({
    shard: Shard,
    accounts: z.number().int().openapi({ description: 'Accounts the directory puts on this shard' }),
    rows: z.record(z.string(), z.number().int()).openapi({ description: 'Rows of its main tables' }),
    bytes: z.number().int().nullable().openapi({ description: "The database's size, as D1 reports it" }),
  })
  .openapi('ShardSummary');

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
  request: {
    body: jsonBody(
      writeBodies({
        name: Name,
        shard: Shard.max(MAX_SHARDS - 1)
          .optional()
          .openapi({ description: 'The shard to put it on; none: the one with the fewest accounts' }),
      }).create.openapi('AccountCreate'),
    ),
  },
  responses: {
    201: jsonContent(
      one(
        z.object({ account: AccountOnShard, api_key: NewApiKey }).openapi('AccountWithKey'),
        'AccountWithKey',
      ),
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

const getAccount = createRoute({
  method: 'get',
  path: '/accounts/{id}',
  operationId: 'getAdminAccount',
  tags,
  security,
  summary: 'An account, with the shard the directory puts it on',
  description:
    'The account as the directory on shard 0 places it (docs/scaling.md): its `shard`, its `state`, and its row read from that shard.',
  request: { params: IdParam },
  responses: {
    200: jsonContent(one(AccountOnShard, 'AccountOnShard'), 'The account'),
    ...errorResponses(404),
  },
});

const listAccounts = createRoute({
  method: 'get',
  path: '/accounts',
  operationId: 'listAdminAccounts',
  tags,
  security,
  summary: 'Every account, across shards, in id order',
  description:
    'Driven by the directory (docs/scaling.md): each page reads the directory on shard 0, then the accounts of each shard it names, one query per shard. An account whose directory row was never written is not listed here; `GET /admin/shards` counts it as `unlisted`.',
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(25),
      cursor: z
        .string()
        .max(16)
        .regex(/^[0-9]{1,16}$/)
        .optional()
        .openapi({ description: 'From `meta.next_cursor`' }),
    }),
  },
  responses: { 200: jsonContent(list(AccountOnShard, 'AccountOnShard'), 'A page'), ...errorResponses(400) },
});

const listShards = createRoute({
  method: 'get',
  path: '/shards',
  operationId: 'listShards',
  tags,
  security,
  summary: 'Each shard with its accounts, rows and bytes',
  description:
    'For capacity planning (docs/scaling.md): per shard, the accounts the directory puts there, the rows of its main tables (exact counts, one batch per shard) and its size in bytes as D1 reports it.',
  responses: {
    200: jsonContent(z.object({ data: z.array(ShardSummary) }).openapi('ShardList'), 'The shards'),
    ...errorResponses(),
  },
});

const TableStats = z
  .object({
    copied: z.number().int().openapi({ description: 'Rows the copy wrote with writes open' }),
    deferred: z
      .number()
      .int()
      .openapi({ description: 'Pages the copy left to the verify (a parent row newer than its copy)' }),
    repaired: z.number().int().openapi({ description: 'Rows the verify wrote or deleted on the new shard' }),
    rows_from: z.number().int(),
    rows_to: z.number().int(),
    checksum_from: z.string().openapi({ description: 'SHA-256 chained over the old shard’s pages' }),
    checksum_to: z.string(),
  })
  .openapi('MoveTableStats');

const Move = z
  .object({
    id: Id,
    account_id: Id,
    from: Shard,
    to: Shard,
    state: z.enum(['copying', 'switching', 'cleaning', 'done', 'failed']),
    phase: z.string().openapi({
      description:
        'The step the move runs next (begin, copy, freeze, prune, reconcile, verify, switch, clean, drain; unwind when failing)',
    }),
    tables: z.record(z.string(), TableStats),
    frozen_seconds: z.number().nullable().openapi({
      description: "Seconds the account's writes answered 503 account_moving; null before the freeze",
    }),
    error: z.string().nullable(),
    created_at: Timestamp,
    frozen_at: Timestamp.nullable(),
    switched_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .openapi('AccountMove');

const moveAccount = createRoute({
  method: 'post',
  path: '/accounts/{id}/move',
  operationId: 'moveAccount',
  tags,
  security,
  summary: 'Move an account to another shard, online',
  description:
    "Starts a move (docs/scaling.md, *Moving an account*): the account's rows are copied to shard `to` with writes open, then frozen for seconds while each table is compared and verified (row counts and checksums), the directory switched, and the old copy deleted. During the freeze its writes answer 503 `account_moving` with Retry-After; reads and webhook posts go on. 409 `move_in_progress` while another move of the account runs, 409 `import_running` while one of its CSV imports is queued or running.",
  middleware: [jsonGuard] as const,
  request: {
    params: IdParam,
    body: jsonBody(
      writeBodies({
        // Optional in the schema only so an unknown account is a 404 whatever the body: it is required.
        to: Shard.max(MAX_SHARDS - 1)
          .optional()
          .openapi({ description: 'The shard to move it to (required): a higher one than its own' }),
      }).create.openapi('AccountMoveCreate'),
    ),
  },
  responses: {
    202: jsonContent(one(Move, 'AccountMove'), 'The move, started: follow it at Location'),
    ...errorResponses(...bodyErrors, 404, 409),
  },
});

const getMove = createRoute({
  method: 'get',
  path: '/moves/{id}',
  operationId: 'getAccountMove',
  tags,
  security,
  summary: 'A move: its state, progress per table, counts, checksums and the seconds writes were frozen',
  description:
    "A move of an account between shards (docs/scaling.md, *Moving an account*): `state` (`copying`, `switching`, `cleaning`, `done`, `failed`), the `phase` it runs next, per table the rows copied and repaired and both shards' row counts and checksums, `frozen_seconds` (how long its writes answered 503 `account_moving`), and `error` when it failed.",
  request: { params: IdParam },
  responses: { 200: jsonContent(one(Move, 'AccountMove'), 'The move'), ...errorResponses(404) },
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

type AccountRow = typeof accounts.$inferSelect;

const presentAccount = (account: AccountRow, entry: { shard: number; state: 'active' }) => ({
  id: account.id,
  name: account.name,
  created_at: iso(account.createdAt),
  shard: entry.shard,
  state: entry.state,
});

/** The account rows a directory page names: one query per shard it names, all at once. */
async function accountsOf(env: Bindings, page: { accountId: number; shard: number }[]) {
  const byShard = new Map<number, number[]>();
  for (const { accountId, shard } of page) {
    if (isShard(env, shard)) byShard.set(shard, [...(byShard.get(shard) ?? []), accountId]);
  }
  const found = await Promise.all(
    [...byShard].map(([shard, ids]) => accountRows(primaryDb(env, shard), ids)),
  );
  return new Map(found.flat().map((row) => [row.id, row]));
}

const base = router();
base.use('*', adminAuth);

export const adminRouter = base
  .openapi(createAccount, async (c) => {
    const body = c.req.valid('json');
    const directory = primaryDb(c.env, 0);
    const shard = body.shard ?? (await leastFilledShard(directory, shardCount(c.env)));
    if (!isShard(c.env, shard)) {
      const last = shardCount(c.env) - 1;
      throw invalid([
        { path: 'shard', code: 'invalid', message: `No shard ${shard}: shards are 0 to ${last}.` },
      ]);
    }
    const db = primaryDb(c.env, shard);
    const key = newApiKey(shard);
    const now = Date.now();
    // One atomic batch on the shard (ids from its range): the key row takes the account id from
    // the insert just before it.
    const [[account], [apiKey]] = await db.batch([
      db.insert(accounts).values({ name: body.name, createdAt: now }).returning(),
      db
        .insert(apiKeys)
        .values({ accountId: sql`last_insert_rowid()`, keyHash: await sha256Hex(key), createdAt: now })
        .returning(),
    ]);
    if (!account || !apiKey) throw new Error('account insert returned no row');
    // Then the directory, on shard 0: two databases share no batch. Should this write fail, the
    // key is never shown, so nobody reaches the account (docs/scaling.md, "Failure cases").
    await listAccount(directory, account.id, shard, now);
    return c.json(
      {
        data: {
          account: presentAccount(account, { shard, state: 'active' }),
          api_key: { ...presentKey(apiKey), key },
        },
      },
      201,
    );
  })
  .openapi(getAccount, async (c) => {
    const { id } = c.req.valid('param');
    const entry = await directoryEntry(primaryDb(c.env, 0), id);
    if (!entry || !isShard(c.env, entry.shard)) throw notFound('No such account.');
    const [account] = await accountRows(primaryDb(c.env, entry.shard), [id]);
    if (!account) throw notFound('No such account.');
    return c.json({ data: presentAccount(account, entry) }, 200);
  })
  .openapi(listAccounts, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const entries = await directoryPage(primaryDb(c.env, 0), cursor ? Number(cursor) : 0, limit + 1);
    const page = entries.slice(0, limit);
    const rows = await accountsOf(c.env, page);
    const data = page.flatMap((entry) => {
      const account = rows.get(entry.accountId);
      return account ? [presentAccount(account, entry)] : [];
    });
    const last = page.at(-1);
    const next = entries.length > limit && last ? String(last.accountId) : null;
    return c.json({ data, meta: { limit, next_cursor: next } }, 200);
  })
  .openapi(listShards, async (c) => {
    const counts = new Map((await accountsPerShard(primaryDb(c.env, 0))).map((row) => [row.shard, row.n]));
    const data = await Promise.all(
      allShards(c.env).map(async (shard) => ({
        shard,
        accounts: counts.get(shard) ?? 0,
        ...(await shardStats(shardOf(c.env, shard))),
      })),
    );
    return c.json({ data }, 200);
  })
  .openapi(createKey, async (c) => {
    const { id } = c.req.valid('param');
    // No body: an unnamed full-access key, as this route made before keys had names.
    const body: ApiKeyCreateBody = c.req.valid('json');
    const entry = await directoryEntry(primaryDb(c.env, 0), id);
    if (!entry || !isShard(c.env, entry.shard)) throw notFound('No such account.');
    const db = primaryDb(c.env, entry.shard);
    const key = newApiKey(entry.shard);
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
  .openapi(moveAccount, async (c) => {
    const { id } = c.req.valid('param');
    const move = await startMove(c.env, id, c.req.valid('json').to);
    c.header('Location', `/admin/moves/${move.id}`);
    return c.json({ data: presentMove(move) }, 202);
  })
  .openapi(getMove, async (c) => {
    const move = await loadMove(c.env, c.req.valid('param').id);
    if (!move) throw notFound('No such move.');
    return c.json({ data: presentMove(move) }, 200);
  })
  .openapi(revokeKey, async (c) => {
    const { id } = c.req.valid('param');
    const now = Date.now();
    // Revoking twice is fine; only an unknown key id is a 404. A key id is unique across shards,
    // and a moved account's keys keep theirs, so every shard is asked (an operator's rare call).
    const revoked = await Promise.all(
      allShards(c.env).map((shard) =>
        primaryDb(c.env, shard)
          .update(apiKeys)
          .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})` })
          .where(eq(apiKeys.id, id))
          .returning({ id: apiKeys.id }),
      ),
    );
    if (!revoked.some((rows) => rows.length)) throw notFound('No such API key.');
    return c.body(null, 204);
  });
