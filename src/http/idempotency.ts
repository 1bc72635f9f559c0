import { lte } from 'drizzle-orm';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { sha256Hex } from '../auth/secrets';
import { IDEMPOTENCY_WINDOW_MS } from '../core/idempotency';
import { logError } from '../core/log';
import type { Db } from '../db/client';
import { idempotencyKeys } from '../db/schema';
import type { AppEnv } from '../env';
import { cachedBody } from './body-limit';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY, KeyInUse } from './idempotency-claim';
import { ApiError, badRequest } from './problem';
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

/**
 * The hash of the request: the API key that makes it (the SHA-256 of its secret), its method, path
 * and body. The key is part of the request, so a stored answer is replayed only to the key that
 * made it: another key of the account with the same Idempotency-Key gets the 422 of a different
 * request, never an answer it could not have read itself.
 */
function fingerprintOf(c: Context<AppEnv>): () => Promise<string> {
  let hash: Promise<string> | undefined;
  return () => {
    // Bytes decoded here rather than `text()`, which makes workerd warn about any body not typed as text.
    hash ??= c.req
      .arrayBuffer()
      .then((bytes) =>
        sha256Hex(
          `${c.get('apiKeyHash')}\n${c.req.method} ${c.req.path}\n${canonical(new TextDecoder().decode(bytes))}`,
        ),
      );
    return hash;
  };
}

/**
 * Idempotent `/v1` POSTs: a retry with the same key and request gets the first response again
 * (`Idempotent-Replayed: true`) and runs nothing; another request with the key (another path,
 * body or API key) is a 422; a retry
 * while the first runs is a 409. Requests refused before they reach the database (auth, schema)
 * store nothing, like Stripe's.
 */
export const idempotency = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.method === 'POST' ? idempotencyKeyOf(c) : undefined;
  if (key === undefined) return next();
  // The body is hashed, so it is held to the limit even on a route that takes none.
  await cachedBody(c, async () => {
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
    const { stored } = await claim.record(c.res);
    c.executionCtx.waitUntil(stored.catch((err: unknown) => logError(err, c.get('requestId'))));
  });
});

/** Deletes keys past their window (the cron's job; a live request also replaces its own). */
export async function forgetExpiredKeys(db: Db): Promise<void> {
  await db.delete(idempotencyKeys).where(lte(idempotencyKeys.createdAt, Date.now() - IDEMPOTENCY_WINDOW_MS));
}
