import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { primaryDb } from '../src/db/client';
import { allShards, homeShardOfId, shardOf } from '../src/db/shards';
import worker from '../src/index';

export const BASE = 'http://crm.test';

type Options = { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string> };

function request(path: string, options: Options): Request {
  const headers = new Headers(options.headers);
  if (options.key) headers.set('Authorization', `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  return new Request(`${BASE}${path}`, { method: options.method ?? 'GET', headers, body });
}

/** A request through the Worker's own fetch handler, as a client would make it. */
export async function call(path: string, options: Options = {}): Promise<Response> {
  return exports.default.fetch(request(path, options));
}

export type Statement = { sql: string; params: unknown[] };

/**
 * The real D1 of the test, seen through a layer that notes how each session starts and every
 * statement (SQL and parameters) before passing it on unchanged: what a route really sent.
 */
export function recordingD1(db: D1Database) {
  const sessions: string[] = [];
  const statements: Statement[] = [];
  const recording = (inner: D1DatabaseSession) => ({
    prepare: (sql: string) => ({
      bind: (...params: unknown[]) => {
        statements.push({ sql, params });
        return inner.prepare(sql).bind(...params);
      },
    }),
    batch: (batch: D1PreparedStatement[]) => inner.batch(batch),
    getBookmark: () => inner.getBookmark(),
  });
  const recorded = {
    withSession: (constraintOrBookmark: string) => {
      sessions.push(constraintOrBookmark);
      return recording(db.withSession(constraintOrBookmark));
    },
  };
  // The Worker only starts sessions, then prepares, binds and batches through them (as Drizzle does).
  return { db: recorded as unknown as D1Database, sessions, statements };
}

/** Like `call`, with some of the Worker's bindings replaced (a low rate limiter, a variable). */
export async function callWithEnv(
  bindings: Partial<typeof env>,
  path: string,
  options: Options = {},
): Promise<Response> {
  return worker.fetch(request(path, options), { ...env, ...bindings }, createExecutionContext());
}

/** Like `call`, with `db` as the Worker's D1 binding of shard `shard` (`DB` for shard 0). */
export function callWithDb(
  db: D1Database,
  path: string,
  options: Options = {},
  shard = 0,
): Promise<Response> {
  return callWithEnv({ [bindingOf(shard)]: db }, path, options);
}

/** The binding of shard n (src/db/shards.ts). */
export const bindingOf = (n: number): 'DB' | `DB_${number}` => (n === 0 ? 'DB' : `DB_${n}`);

/** The shard account `id` is on: its id's range says so, as no test moves an account. */
export const shardOfAccount = (id: number): number => homeShardOfId('accounts', id);

/** The D1 database of account `id`'s shard, for a test that reads or plants rows of its own. */
export const d1Of = (accountId: number): D1Database => shardOf(env, shardOfAccount(accountId));

/** The D1 database of the shard row `id` of `table` was made on (its id's range). */
export const d1OfRow = (table: string, id: number): D1Database => shardOf(env, homeShardOfId(table, id));

/** `SELECT count(*) AS n ...` summed over every shard: for rows that must exist nowhere. */
export async function countOnEveryShard(query: string, ...params: unknown[]): Promise<number> {
  const counts = await Promise.all(
    allShards(env).map((n) =>
      shardOf(env, n)
        .prepare(query)
        .bind(...params)
        .first<number>('n'),
    ),
  );
  return counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
}

/** A client of account `id`'s shard, as the queue and the cron make one. */
export const dbOf = (accountId: number) => primaryDb(env, shardOfAccount(accountId));

// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
export type Json = any;

/**
 * Runs `run` with the Worker's warnings and errors caught instead of printed, and returns them
 * parsed (the Worker logs one JSON object per line), so a test that provokes a failure on purpose
 * asserts what was logged and `npm test` stays quiet. Anything else logged meanwhile is kept too.
 */
export async function capturingLogs<T>(run: () => Promise<T>): Promise<{ value: T; logged: Json[] }> {
  const logged: Json[] = [];
  const keep = (...args: unknown[]) => {
    const [first] = args;
    try {
      logged.push(typeof first === 'string' ? JSON.parse(first) : first);
    } catch {
      logged.push(args.map(String).join(' '));
    }
  };
  const error = vi.spyOn(console, 'error').mockImplementation(keep);
  const warn = vi.spyOn(console, 'warn').mockImplementation(keep);
  try {
    return { value: await run(), logged };
  } finally {
    error.mockRestore();
    warn.mockRestore();
  }
}

export async function json(res: Response): Promise<Json> {
  return res.json();
}

/** Asserts an RFC 9457 problem response with the given status and code; returns its body. */
export async function expectProblem(res: Response, status: number, code?: string): Promise<Json> {
  expect(res.status).toBe(status);
  expect(res.headers.get('Content-Type')).toBe('application/problem+json');
  const body = await json(res);
  expect(body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  if (code) expect(body.code).toBe(code);
  return body;
}

/** The policy of every response but the /docs page: no source of any kind, no framing. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Asserts the security headers every response carries (`policy`: its Content-Security-Policy). */
export function expectSecurityHeaders(res: Response, policy = API_POLICY): void {
  const where = `${res.status} ${res.url}`;
  expect(res.headers.get('X-Content-Type-Options'), where).toBe('nosniff');
  expect(res.headers.get('X-Frame-Options'), where).toBe('DENY');
  expect(res.headers.get('Referrer-Policy'), where).toBe('no-referrer');
  expect(res.headers.get('Content-Security-Policy'), where).toBe(policy);
  expect(res.headers.get('Strict-Transport-Security'), where).toMatch(/^max-age=\d+/);
  expect(res.headers.get('X-Powered-By'), where).toBeNull();
}

/** Asserts a 422 `validation_failed` whose one error is `unknown_field` at `path`. */
export async function expectUnknownField(res: Response, path: string): Promise<void> {
  const body = await expectProblem(res, 422, 'validation_failed');
  expect(body.errors).toEqual([expect.objectContaining({ path, code: 'unknown_field' })]);
}

/**
 * Asserts a 422 whose errors are exactly one `read_only` per field (each message naming the field,
 * and `writes` where given: what to write instead), then `unknown` fields as `unknown_field`.
 */
export async function expectReadOnly(
  res: Response,
  fields: string[],
  { writes = {}, unknown = [] }: { writes?: Record<string, string>; unknown?: string[] } = {},
): Promise<void> {
  const body = await expectProblem(res, 422, 'validation_failed');
  const expected = [
    ...fields.map((path) => ({
      path,
      code: 'read_only',
      message: expect.stringMatching(new RegExp(`^${path} is read-only\\..*${writes[path] ?? ''}`)),
    })),
    ...unknown.map((path) => ({ path, code: 'unknown_field', message: expect.any(String) })),
  ];
  expect(body.errors).toHaveLength(expected.length);
  expect(body.errors).toEqual(expect.arrayContaining(expected));
}

/** A GET body without the fields the API sets (`id`, timestamps and `also`): what a client may write back. */
export function writable(row: Json, also: string[] = []): Json {
  const omitted = new Set(['id', 'created_at', 'updated_at', 'deleted_at', ...also]);
  return Object.fromEntries(Object.entries(row).filter(([key]) => !omitted.has(key)));
}

/**
 * Asserts that GET and PUT of `${path}/{id}` answer 404: `not_found` for `missing`, a well-formed id that no
 * row has, and 404 for each of the `malformed` ids.
 */
export async function expectNotFound(
  key: string,
  path: string,
  missing: number,
  malformed: string[],
): Promise<void> {
  const put = (id: number | string) => call(`${path}/${id}`, { method: 'PUT', key, body: { name: 'X' } });
  await expectProblem(await call(`${path}/${missing}`, { key }), 404, 'not_found');
  await expectProblem(await put(missing), 404, 'not_found');
  for (const id of malformed) {
    await expectProblem(await call(`${path}/${id}`, { key }), 404);
    await expectProblem(await put(id), 404);
  }
}

export const adminHeaders = () => ({ Authorization: `Bearer ${env.ADMIN_TOKEN}` });

/** Where a file's accounts go when it asks for none: see `accountsOnShard`. */
let pinned: number | undefined;

/**
 * For a file that reads and plants rows in shard 0's database itself (`env.DB`: query plans, raw
 * triggers, stored forms): every account it makes, through any helper, is on shard 0 until the
 * file ends. Every other file's accounts spread over the shards by the least-filled rule.
 */
export function accountsOnShard(shard: number): void {
  beforeAll(() => {
    pinned = shard;
  });
  afterAll(() => {
    pinned = undefined;
  });
}

/**
 * A new account and its first API key, through the admin API: on the shard with the fewest
 * accounts, as any account (or the file's, `accountsOnShard`), or on `shard`.
 */
export async function newAccount(
  name = 'Acme',
  shard: number | undefined = pinned,
): Promise<{ id: number; key: string; keyId: number }> {
  const body = shard === undefined ? { name } : { name, shard };
  const res = await call('/admin/accounts', { method: 'POST', body, headers: adminHeaders() });
  expect(res.status).toBe(201);
  const { data } = await json(res);
  return { id: data.account.id, key: data.api_key.key, keyId: data.api_key.id };
}

/**
 * A further API key of an account, through the admin API, with these scopes (and any other field
 * of its body, such as `expires_at`): the answer's `data`, its `key` the secret.
 */
export async function newKey(
  accountId: number,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<Json> {
  const res = await call(`/admin/accounts/${accountId}/api-keys`, {
    method: 'POST',
    headers: adminHeaders(),
    body: { name: 'Scoped', scopes, ...extra },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json(res)).data;
}

/** The secret of a new key of the account holding these scopes. */
export const keyWith = async (accountId: number, scopes: string[]): Promise<string> =>
  (await newKey(accountId, scopes)).key;

/** POSTs a resource and returns its body's `data`, failing the test on anything but 201. */
export async function create(key: string, path: string, body: unknown): Promise<Json> {
  const res = await call(path, { method: 'POST', key, body });
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status}: ${await res.text()}`);
  return (await json(res)).data;
}

/** A fresh account with one deal to hang tasks on. */
/** A user of the account, through the API, with an email of its own; its body. */
export const newUser = (key: string, name: string): Promise<Json> =>
  create(key, '/v1/users', { name, email: `${name.toLowerCase()}-${crypto.randomUUID()}@example.com` });

export async function accountWithDeal(name = 'Acme') {
  const account = await newAccount(name);
  const deal = await create(account.key, '/v1/deals', { name: `${name} deal` });
  return { ...account, dealId: deal.id as number };
}

/** Follows `next_cursor` to the end and returns every id, in order. */
export async function allIds(key: string, path: string): Promise<number[]> {
  const ids: number[] = [];
  let url: string | null = path;
  while (url) {
    const res = await call(url, { key });
    expect(res.status).toBe(200);
    const page = await json(res);
    ids.push(...page.data.map((row: { id: number }) => row.id));
    const next: string | null = page.meta.next_cursor;
    url = next ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next)}` : null;
  }
  return ids;
}

const regexEscape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * GETs a list page that has a next one: asserts 200, a `meta.next_cursor`, and a `Link: <url>; rel="next"`
 * to the same path carrying that cursor. Returns the page and that next URL.
 */
export async function pageWithNext(key: string, path: string): Promise<{ page: Json; next: URL }> {
  const res = await call(path, { key });
  expect(res.status, `GET ${path}`).toBe(200);
  const page = await json(res);
  expect(page.meta.next_cursor, `GET ${path}`).toEqual(expect.any(String));
  const link = res.headers.get('Link') ?? '';
  const { pathname } = new URL(path, BASE);
  expect(link).toMatch(new RegExp(`^<${regexEscape(`${BASE}${pathname}`)}\\?[^>]+>; rel="next"$`));
  const next = new URL(link.slice(1, link.indexOf('>')));
  expect(next.searchParams.get('cursor')).toBe(page.meta.next_cursor);
  return { page, next };
}

/** Exactly the documented format: `d1;dur=<ms>;desc="<n> round trips", total;dur=<ms>`, singular for 1. */
const SERVER_TIMING = /^d1;dur=\d+\.\d;desc="(\d+) (round trips?)", total;dur=\d+\.\d$/;

/** The number of D1 round trips a response reports in Server-Timing, whose format it checks. */
export function roundTrips(res: Response): number {
  const header = res.headers.get('Server-Timing') ?? '';
  expect(header).toMatch(SERVER_TIMING);
  const [, n, words] = SERVER_TIMING.exec(header) ?? [];
  expect(words, header).toBe(n === '1' ? 'round trip' : 'round trips');
  return Number(n);
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const idsOf = (body: Json): number[] => body.data.map((row: Json) => row.id);

export const qs = (params: Record<string, string>): string => new URLSearchParams(params).toString();

export const ms = (iso: string): number => Date.parse(iso);

/** GETs a list, asserting 200, and returns the parsed body. */
export async function list(key: string, path: string): Promise<Json> {
  const res = await call(path, { key });
  expect(res.status, `GET ${path}`).toBe(200);
  return json(res);
}

/** Shorthands for one `/v1` resource: `resource('/v1/deals').get(key, id)`. */
export function resource(path: string) {
  return {
    listIds: async (key: string, params: Record<string, string>): Promise<number[]> =>
      idsOf(await list(key, `${path}?${qs(params)}`)),
    put: (key: string, id: number | string, body: unknown): Promise<Response> =>
      call(`${path}/${id}`, { method: 'PUT', key, body }),
    get: async (key: string, id: number): Promise<Json> => {
      const res = await call(`${path}/${id}`, { key });
      expect(res.status).toBe(200);
      return (await json(res)).data;
    },
  };
}

/** Marks the webhook's newest event `failed` (as the consumer would), for a replay; its id. */
export async function failNewestEvent(hookId: number): Promise<number> {
  const d1 = d1OfRow('inbound_webhooks', hookId);
  const row = await d1
    .prepare('SELECT max(id) AS id FROM inbound_events WHERE webhook_id = ?')
    .bind(hookId)
    .first<{ id: number }>();
  await d1
    .prepare("UPDATE inbound_events SET status = 'failed', error = 'boom' WHERE id = ?")
    .bind(row?.id)
    .run();
  return row?.id as number;
}

/**
 * A row written straight to D1 (to choose timestamps, or for tables without an API yet), on the
 * shard of its `account_id`; its id.
 */
export async function insertRow(table: string, row: Record<string, string | number | null>): Promise<number> {
  const columns = Object.keys(row);
  const accountId = table === 'accounts' ? 0 : Number(row.account_id);
  const inserted = await d1Of(accountId)
    .prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING id`,
    )
    .bind(...Object.values(row))
    .first<{ id: number }>();
  if (!inserted) throw new Error(`${table} insert returned no row`);
  return inserted.id;
}

/** A company written straight to D1, for tests that are not about the companies API. */
export function insertCompany(accountId: number, name: string, cnpj: string): Promise<number> {
  const now = Date.now();
  return insertRow('companies', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    cnpj,
    created_at: now,
    updated_at: now,
  });
}

type CreatedAroundDay = {
  before: number;
  start: number;
  end: number;
  after: number;
  /** The ids a list of the resource sorted by created_at holds, under these query parameters. */
  ids: (params: Record<string, string>) => Promise<number[]>;
};

/**
 * Four rows of the account's resource at `path`, written by `insert(accountId, name, createdAt)` around the UTC
 * day 2024-03-05: `before` at the last ms before it, `start` and `end` at its first and last ms, `after` at the
 * first ms after.
 */
export async function createdAroundDay(
  account: { id: number; key: string },
  path: string,
  insert: (accountId: number, name: string, createdAt: number) => Promise<number>,
): Promise<CreatedAroundDay> {
  const at = (name: string, iso: string) => insert(account.id, name, ms(iso));
  const before = await at('before', '2024-03-04T23:59:59.999Z');
  const start = await at('start', '2024-03-05T00:00:00.000Z');
  const end = await at('end', '2024-03-05T23:59:59.999Z');
  const after = await at('after', '2024-03-06T00:00:00.000Z');
  const ids = (params: Record<string, string>) =>
    resource(path).listIds(account.key, { sort: 'created_at', ...params });
  return { before, start, end, after, ids };
}

/** Asserts that created_at bounds given as a bare date (YYYY-MM-DD) cover that whole UTC day. */
export async function expectDateBoundsCoverDay({ before, start, end, after, ids }: CreatedAroundDay) {
  const D = '2024-03-05';
  expect(await ids({ created_at__gte: D })).toEqual([start, end, after]);
  expect(await ids({ created_at__lte: D })).toEqual([before, start, end]);
  expect(await ids({ created_at__gt: D })).toEqual([after]);
  expect(await ids({ created_at__lt: D })).toEqual([before]);
  expect(await ids({ created_at__gte: D, created_at__lte: D })).toEqual([start, end]);
  expect(await ids({ created_at__gt: '2024-03-04', created_at__lt: '2024-03-06' })).toEqual([start, end]);
}

/** A webhook body that makes (or finds, by phone) a contact from `nome` and `telefone`. */
export const CONTACT_BY_PHONE = {
  fields: [
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  ],
  flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
};

/** An inbound webhook of the account (name defaults to `Webhook`); its data plus `path`, its URL's path. */
export async function newWebhook(key: string, body: Record<string, unknown> = {}): Promise<Json> {
  const hook = await create(key, '/v1/inbound-webhooks', { name: 'Webhook', ...body });
  return { ...hook, path: new URL(hook.url).pathname };
}

/** POSTs an event to an ingest URL (full or path only), as a sender would: no API key; JSON unless a string. */
export function postEvent(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(new URL(url, BASE).pathname, { method: 'POST', body, headers });
}

/** Asserts each `name=value` query on `path` is a 400 `invalid_query` whose first error names it. */
export async function expectUnknownQueries(key: string, path: string, queries: string[]): Promise<void> {
  for (const query of queries) {
    const body = await expectProblem(await call(`${path}?${query}`, { key }), 400, 'invalid_query');
    expect(body.errors[0].path, query).toBe(query.split('=')[0]);
  }
}

/** Asserts every `limit` outside 1..100, or not an integer, is a 400 `invalid_query` on `path`. */
export async function expectLimitsRefused(key: string, path: string): Promise<void> {
  for (const limit of ['0', '101', 'x', '-1', '-5', '1.5', '2.5', '']) {
    await expectProblem(await call(`${path}?limit=${limit}`, { key }), 400, 'invalid_query');
  }
}

/**
 * Asserts a cursor issued for `sort` on `path` is a 400 `invalid_cursor` under each of `otherSorts`
 * (`''` for the list's default, `defaultSort`), and that each of `garbage` is refused under `sort` itself.
 */
export async function expectCursorRefused(
  key: string,
  path: string,
  given: { sort: string; cursor: string; limit: number },
  otherSorts: string[],
  garbage: string[],
  defaultSort = '-created_at',
): Promise<void> {
  const cursor = encodeURIComponent(given.cursor);
  for (const other of otherSorts) {
    const sort = other ? `sort=${other}&` : '';
    const body = await expectProblem(
      await call(`${path}?${sort}limit=${given.limit}&cursor=${cursor}`, { key }),
      400,
      'invalid_cursor',
    );
    expect(body.detail).toBe(
      `This cursor was issued for sort=${given.sort}; send it with sort=${given.sort}, or leave out cursor to start sort=${other || defaultSort} from its first page.`,
    );
  }
  for (const bad of garbage) {
    await expectProblem(
      await call(`${path}?sort=${given.sort}&cursor=${encodeURIComponent(bad)}`, { key }),
      400,
      'invalid_cursor',
    );
  }
}

/**
 * The query string of an operation's required parameters, each from its documented example: a
 * well-formed key is looked up in the batch that reads, after the query is validated, so a request
 * that lacks one would be a 400 first. A required parameter with no example fails here, loudly.
 */
export function requiredQuery(operation: Json): string {
  const required = ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'query' && p.required);
  const pairs = required.map((p) => {
    const example = p.example ?? p.schema?.example;
    if (example === undefined) throw new Error(`query parameter ${p.name} is required but has no example`);
    return [p.name as string, String(example)];
  });
  return pairs.length ? `?${new URLSearchParams(pairs)}` : '';
}

/**
 * `env.MIGRATION_DB` with nothing in it, for a test that replays the migrations from the start. The
 * runtime outlives a test file (`isolate: false`), so an earlier file may have migrated it. One batch,
 * foreign keys checked at its end (nothing is left to check): search tables first, which take their
 * shadow tables with them, then the rest.
 */
export async function emptyMigrationDb(): Promise<D1Database> {
  const db = env.MIGRATION_DB;
  const { results } = await db
    .prepare(
      `SELECT type, name, sql LIKE 'CREATE VIRTUAL TABLE%' AS virtual FROM sqlite_master
       WHERE type IN ('table', 'view', 'trigger') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`,
    )
    .all<{ type: string; name: string; virtual: number }>();
  const order = (row: { type: string; virtual: number }) =>
    row.type === 'trigger' ? 0 : row.type === 'view' ? 1 : row.virtual ? 2 : 3;
  const drops = results
    .sort((a, b) => order(a) - order(b))
    .map(({ type, name }) => db.prepare(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`));
  if (drops.length) await db.batch([db.prepare('PRAGMA defer_foreign_keys = on'), ...drops]);
  return db;
}
