import { and, eq, getTableName, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { sha256Hex } from '../auth/secrets';
import { accountOf } from '../auth/tenant';
import type { Db } from '../db/client';
import type { BatchExtension } from '../db/meter';
import { apiKeys, idempotencyKeys, type StoredResponse } from '../db/schema';
import type { AppEnv } from '../env';
import { ApiError, badRequest } from './problem';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** How long a key is remembered, here and by webhook ingest. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEEP_MS = IDEMPOTENCY_WINDOW_MS;
// Far longer than any request runs: a claim this old with no answer and no write was abandoned
// (its isolate died), so a retry may run the request again.
const ABANDONED_MS = 60_000;
const REPLAYED_HEADERS = ['content-type', 'location'];

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** The 409 of a retry whose first request has not answered yet; refined by the middleware. */
class KeyInUse extends ApiError {
  constructor() {
    super(
      409,
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still running; retry in a moment.',
    );
  }
}

const TAKEN = `UNIQUE constraint failed: ${getTableName(idempotencyKeys)}.`;

function isKeyTaken(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e.message.includes(TAKEN)) return true;
  return false;
}

type Armed = {
  db: Db;
  key: string;
  keyHash: string;
  /** The request's hash, read when the claim is made: by then the body has passed its limits. */
  fingerprint: () => Promise<string>;
};

/**
 * A request's hold on its Idempotency-Key, kept in D1 without a round trip of its own: the claim
 * (insert of the key's row) runs first in the request's first batch, so a second request with the
 * key fails that batch before it writes anything; and every batch that writes also marks the row
 * committed, atomically with the writes, so a committed request is never run again.
 */
export class IdempotencyClaim implements BatchExtension {
  #armed?: Armed;
  #sent = false;
  claimed = false;
  committed = false;

  arm(armed: Armed): void {
    this.#armed = armed;
  }

  get #row(): SQL | undefined {
    const armed = this.#armed;
    if (!armed) return undefined;
    return and(eq(idempotencyKeys.accountId, accountOf(armed.keyHash)), eq(idempotencyKeys.key, armed.key));
  }

  async around(d1: D1DatabaseSession, queries: readonly string[]) {
    const armed = this.#armed;
    if (!armed) return { before: [], after: [] };
    const claiming = !this.#sent;
    this.#sent = true;
    const { db, key, keyHash, fingerprint } = armed;
    const t = idempotencyKeys;
    const now = Date.now();
    const before = claiming
      ? [
          db
            .delete(t)
            .where(
              and(
                this.#row,
                or(
                  lte(t.createdAt, now - KEEP_MS),
                  and(isNull(t.status), eq(t.committed, false), lte(t.createdAt, now - ABANDONED_MS)),
                ),
              ),
            ),
          db.insert(t).select(
            db
              .select({
                accountId: apiKeys.accountId,
                key: sql`${key}`.as('key'),
                requestHash: sql`${await fingerprint()}`.as('request_hash'),
                createdAt: sql`${now}`.as('created_at'),
                committed: sql`0`.as('committed'),
                status: sql`null`.as('status'),
                response: sql`null`.as('response'),
              })
              .from(apiKeys)
              .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt))),
          ),
        ]
      : [];
    const writes = queries.some((q) => WRITE.test(q));
    const after =
      writes && (claiming || this.claimed) ? [db.update(t).set({ committed: true }).where(this.#row)] : [];
    const prepare = (q: { toSQL(): { sql: string; params: unknown[] } }) => {
      const { sql: text, params } = q.toSQL();
      return d1.prepare(text).bind(...params);
    };
    return { before: before.map(prepare), after: after.map(prepare) };
  }

  settle(outcome: { before: D1Result[]; after: D1Result[] } | { error: unknown }): void {
    if ('error' in outcome) {
      if (isKeyTaken(outcome.error)) throw new KeyInUse();
      return;
    }
    if (outcome.before.length) this.claimed = outcome.before[1]?.meta.changes === 1;
    if (outcome.after[0]?.meta.changes) this.committed = true;
  }

  /**
   * The write that stores the response for replays, or for an uncommitted 5xx releases the key so
   * that a retry runs the request. The body is read now, before the response streams out.
   */
  async record(res: Response): Promise<() => Promise<unknown>> {
    const armed = this.#armed;
    if (!armed || !this.claimed) return async () => undefined;
    const t = idempotencyKeys;
    if (res.status >= 500 && !this.committed) return () => armed.db.delete(t).where(this.#row);
    const headers = Object.fromEntries(
      REPLAYED_HEADERS.flatMap((name) => {
        const value = res.headers.get(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    const response: StoredResponse = { headers, body: await res.clone().text() };
    return () => armed.db.update(t).set({ status: res.status, response }).where(this.#row);
  }

  /** What a retry whose claim failed gets: the stored response, a 422, or the 409 in flight. */
  async answerRetry(): Promise<Response | ApiError | undefined> {
    const armed = this.#armed;
    if (!armed) return undefined;
    const [row] = await armed.db
      .select({
        requestHash: idempotencyKeys.requestHash,
        status: idempotencyKeys.status,
        response: idempotencyKeys.response,
      })
      .from(idempotencyKeys)
      .where(this.#row);
    if (!row) return undefined;
    if (row.requestHash !== (await armed.fingerprint())) {
      return new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used for a different request (another path or body) in the last 24 hours.',
      );
    }
    if (row.status === null || !row.response) return undefined;
    return new Response(row.response.body, {
      status: row.status,
      headers: { ...row.response.headers, [REPLAYED_HEADER]: 'true' },
    });
  }
}

/** The request's Idempotency-Key, if it sent one; a malformed one is a 400. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw badRequest(
      'invalid_idempotency_key',
      `${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters.`,
    );
  }
  return key;
}

/** A JSON body re-serialised, so that a retry may differ in whitespace; any other body as sent. */
function canonical(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return body;
  }
}

/** The hash of the request's method, path and body. */
function fingerprintOf(c: Context<AppEnv>): () => Promise<string> {
  let hash: Promise<string> | undefined;
  return () => {
    hash ??= c.req.text().then((body) => sha256Hex(`${c.req.method} ${c.req.path}\n${canonical(body)}`));
    return hash;
  };
}

/**
 * Idempotent `/v1` POSTs: a retry with the same key and request gets the first response again
 * (`Idempotent-Replayed: true`) and runs nothing; another request with the key is a 422; a retry
 * while the first runs is a 409. Requests refused before they reach the database (auth, schema)
 * store nothing, like Stripe's.
 */
export const idempotency = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.method === 'POST' ? idempotencyKeyOf(c) : undefined;
  if (key === undefined) return next();
  const claim = c.get('claim');
  claim.arm({ db: c.get('db'), key, keyHash: c.get('keyHash'), fingerprint: fingerprintOf(c) });
  await next();
  if (c.error instanceof KeyInUse) {
    const answer = await claim.answerRetry();
    if (answer instanceof ApiError) throw answer;
    if (answer) c.res = answer;
    return;
  }
  // Off the response's path: until it lands, a retry gets the 409 of a request still running.
  if (claim.claimed) c.executionCtx.waitUntil((await claim.record(c.res))());
});

/** Deletes keys past their window (the cron's job; a live request also replaces its own). */
export async function forgetExpiredKeys(db: Db): Promise<void> {
  await db.delete(idempotencyKeys).where(lte(idempotencyKeys.createdAt, Date.now() - KEEP_MS));
}
