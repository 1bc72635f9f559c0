import { and, eq, getTableName, isNull, lte, notExists, or, type SQL, sql } from 'drizzle-orm';
import { IDEMPOTENCY_WINDOW_MS } from '../core/idempotency';
import type { Db } from '../db/client';
import type { BatchExtension } from '../db/meter';
import { apiKeys, idempotencyKeys, type StoredResponse } from '../db/schema';
import { accountOf, type KeyRef } from '../db/tenant';
import { ApiError } from './problem';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

// Far longer than any request runs: a claim this old with no answer and no write was abandoned
// (its isolate died), so a retry may run the request again.
const ABANDONED_MS = 60_000;
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * The 422 of a key used again, within its window, for another request. `/v1`'s: the API key is part
 * of the request, and a stored answer goes only to the key that made it (webhook ingest's is its own:
 * src/webhooks/ingest/accept.ts).
 */
const keyReusedOnV1 = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was used in the last 24 hours for a different request: another path or body, or another API key of this account (a stored answer is replayed only to the key that made it). Use a new Idempotency-Key.',
  );

const WRITE = /^\s*(insert|update|delete|replace)\b/i;
// The key's last-used minute (src/db/key-grant.ts) rides in a write's first batch: bookkeeping,
// not the request's own write, so it neither commits the claim nor needs its guard.
const BOOKKEEPING = /^\s*update\s+"api_keys"\s+set\s+"last_used_at"\s*=/i;

/** The 409 of a retry whose first request has not answered yet; refined by the middleware. */
export class KeyInUse extends ApiError {
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
  keyHash: KeyRef;
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
  /** When this request claimed the key: its token, telling its claim from a later one's. */
  #claimedAt?: number;
  /** What the batch under way adds: the claim itself, or a check that the claim is still ours. */
  #adding?: 'claim' | 'guard';
  claimed = false;
  committed = false;

  arm(armed: Armed): void {
    this.#armed = armed;
  }

  idle(): boolean {
    if (this.#armed) return false;
    // As `around` does for a batch it adds nothing to: a failure of it is the batch's own error.
    this.#adding = undefined;
    return true;
  }

  /** The account's row for the key; with `claimedAt`, only while it is this request's claim. */
  #row(claimedAt?: number): SQL | undefined {
    const armed = this.#armed;
    if (!armed) return undefined;
    const t = idempotencyKeys;
    return and(
      eq(t.accountId, accountOf(armed.keyHash)),
      eq(t.key, armed.key),
      claimedAt === undefined ? undefined : eq(t.createdAt, claimedAt),
    );
  }

  /**
   * The insert of the claim. As a guard (`unlessOurs`), it inserts only when this request's claim is
   * gone: if a later request has taken the key, that fails on the primary key and rolls back the
   * writes batched with it.
   */
  #insert(armed: Armed, hash: string, createdAt: number, unlessOurs?: SQL) {
    // Not async: a Drizzle query is a thenable, which an async function would run.
    const { db } = armed;
    // In the table's column order: Drizzle's insert-select lists every column in that order.
    const claim = db
      .select({
        accountId: apiKeys.accountId,
        key: sql`${armed.key}`.as('key'),
        requestHash: sql`${hash}`.as('request_hash'),
        createdAt: sql`${createdAt}`.as('created_at'),
        committed: sql`0`.as('committed'),
        status: sql`null`.as('status'),
        response: sql`null`.as('response'),
      })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.keyHash, armed.keyHash),
          isNull(apiKeys.revokedAt),
          unlessOurs && notExists(db.select({ _: sql`1` }).from(idempotencyKeys).where(unlessOurs)),
        ),
      );
    return db.insert(idempotencyKeys).select(claim);
  }

  async around(d1: D1DatabaseSession, queries: readonly string[]) {
    const armed = this.#armed;
    this.#adding = undefined;
    if (!armed) return { before: [], after: [] };
    const t = idempotencyKeys;
    const writes = queries.some((q) => WRITE.test(q) && !BOOKKEEPING.test(q));
    const prepare = (q: { toSQL(): { sql: string; params: unknown[] } }) => {
      const { sql: text, params } = q.toSQL();
      return d1.prepare(text).bind(...params);
    };
    const mark = (claimedAt: number) =>
      writes ? [prepare(armed.db.update(t).set({ committed: true }).where(this.#row(claimedAt)))] : [];
    if (this.#claimedAt === undefined) {
      const now = Date.now();
      this.#claimedAt = now;
      this.#adding = 'claim';
      const stale = or(
        lte(t.createdAt, now - IDEMPOTENCY_WINDOW_MS),
        and(isNull(t.status), eq(t.committed, false), lte(t.createdAt, now - ABANDONED_MS)),
      );
      const before = [
        armed.db.delete(t).where(and(this.#row(), stale)),
        this.#insert(armed, await armed.fingerprint(), now),
      ];
      return { before: before.map(prepare), after: mark(now) };
    }
    if (!this.claimed || !writes) return { before: [], after: [] };
    // A request stalled past ABANDONED_MS may have lost its claim to a retry: then it must not write.
    this.#adding = 'guard';
    const guard = this.#insert(armed, await armed.fingerprint(), this.#claimedAt, this.#row(this.#claimedAt));
    return { before: [prepare(guard)], after: mark(this.#claimedAt) };
  }

  settle(outcome: { before: D1Result[]; after: D1Result[] } | { error: unknown }): void {
    if ('error' in outcome) {
      if (this.#adding && isKeyTaken(outcome.error)) throw new KeyInUse();
      return;
    }
    if (this.#adding === 'claim') this.claimed = outcome.before[1]?.meta.changes === 1;
    if (outcome.after[0]?.meta.changes) this.committed = true;
  }

  /**
   * Stores the response for replays. After a 5xx, the database decides: if it has the request
   * committed (a write may have landed though its answer was lost), the 5xx is stored like any
   * answer; if not, the key is released so that a retry runs the request. The body is read before
   * this returns, while the response has not streamed out; the write is left running.
   */
  async record(res: Response): Promise<{ stored: Promise<unknown> }> {
    const armed = this.#armed;
    const claimedAt = this.#claimedAt;
    if (!armed || !this.claimed || claimedAt === undefined) return { stored: Promise.resolve() };
    const t = idempotencyKeys;
    const mine = this.#row(claimedAt);
    const headers = Object.fromEntries(
      REPLAYED_HEADERS.flatMap((name) => {
        const value = res.headers.get(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    const response: StoredResponse = { headers, body: await res.clone().text() };
    const store = (where: SQL | undefined) =>
      armed.db.update(t).set({ status: res.status, response }).where(where);
    if (res.status < 500) return { stored: Promise.resolve(store(mine)) };
    // Two statements, not a batch: this request's batches carry its claim's own statements.
    const written = and(mine, eq(t.committed, true));
    const unwritten = and(mine, eq(t.committed, false));
    return { stored: Promise.all([store(written), armed.db.delete(t).where(unwritten)]) };
  }

  /**
   * Lets the key go when this request claimed it and wrote nothing (it was refused): a retry may run
   * it. Left running, off the answer's path, as `record`'s write is.
   */
  release(): Promise<unknown> {
    const armed = this.#armed;
    if (!armed || !this.claimed || this.committed || this.#claimedAt === undefined) return Promise.resolve();
    const unwritten = and(this.#row(this.#claimedAt), eq(idempotencyKeys.committed, false));
    return Promise.resolve(armed.db.delete(idempotencyKeys).where(unwritten));
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
      .where(this.#row());
    if (!row) return undefined;
    if (row.requestHash !== (await armed.fingerprint())) return keyReusedOnV1();
    if (row.status === null || !row.response) return undefined;
    return new Response(row.response.body, {
      status: row.status,
      headers: { ...row.response.headers, [REPLAYED_HEADER]: 'true' },
    });
  }
}
