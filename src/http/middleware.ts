import type { Context, MiddlewareHandler, Next } from 'hono';
import { invalid } from '../core/errors';
import { unsafeIntegerError, unsafeIntegers } from '../core/json-numbers';
import { JSON_TYPE } from '../core/media-types';
import { createDb } from '../db/client';
import { D1Meter } from '../db/meter';
import { forwardedShard, RequestShard } from '../db/shards';
import type { AppEnv } from '../env';
import { cachedBody } from './body-limit';
import { BOOKMARK_HEADER, lazySession } from './bookmark';
import { IdempotencyClaim } from './idempotency-claim';
import { ApiError, badRequest } from './problem';
import { secure } from './security';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The client's X-Request-Id when it sent a sane one, else a new one. */
export const requestIdOf = (given: string | null | undefined): string =>
  given && REQUEST_ID.test(given) ? given : crypto.randomUUID();

/** Sets a response's request id, Server-Timing and, once its session has one, X-D1-Bookmark. */
export function trace(headers: Headers, requestId: string, timing: string, bookmark: string | null): void {
  headers.set('X-Request-Id', requestId);
  headers.set('Server-Timing', timing);
  if (bookmark) headers.set(BOOKMARK_HEADER, bookmark);
}

/**
 * The meter of the request a request was made for in-process (an MCP tool's `/v1` call): its D1
 * round trips are counted in the `Server-Timing` of the request the client sent. Keyed by the
 * in-process request object, so it lives as long as that request and reaches no other.
 */
const inProcess = new WeakMap<Request, D1Meter>();

/** Counts `inner`'s D1 round trips in `meter`: `inner` is made in-process for the request `meter` times. */
export const countIn = (inner: Request, meter: D1Meter): void => void inProcess.set(inner, meter);

/**
 * The first link of every request's chain: its request id, its database client (whose D1 session
 * starts on the first statement, so a request that never reaches D1 starts none) and, on the
 * response, `trace` and the security headers. One middleware where there were two (the security
 * headers were their own), so every request takes one link less.
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const requestId = requestIdOf(c.req.header('X-Request-Id'));
  const meter = inProcess.get(c.req.raw) ?? new D1Meter();
  c.set('meter', meter);
  const shard = new RequestShard(c.env, forwardedShard(c.req.raw));
  const session = lazySession(() => shard.database(), c.req.method, c.req.header(BOOKMARK_HEADER));
  c.set('requestId', requestId);
  c.set('shard', shard);
  const claim = new IdempotencyClaim();
  c.set('claim', claim);
  c.set(
    'db',
    createDb(session, meter, claim, () => shard.n),
  );
  await next();
  const headers = c.res.headers;
  const timing = meter.serverTiming(performance.now() - started);
  trace(headers, requestId, timing, session.getBookmark());
  secure(headers);
};

/**
 * The body of a JSON route, read as bytes (the body limit trips here, mid-stream): `json()` would
 * turn bytes that are not UTF-8, such as a Latin-1 "Jo\xe3o", into U+FFFD and store them without
 * a word. Parsed once: the validator after the guard reads it from Hono's cache.
 */
async function parsedBody(c: Context<AppEnv>, next: Next): Promise<void> {
  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badRequest('malformed_json', 'The body is not valid UTF-8: send JSON encoded as UTF-8.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) throw badRequest('malformed_json', 'The body is not valid JSON.');
    throw err;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('body_not_object', 'The body must be a JSON object.');
  }
  // Refused rather than stored rounded without a word.
  const unsafe = unsafeIntegers(text);
  if (unsafe.length) throw invalid(unsafe.map((found) => unsafeIntegerError(found, 'refused')));
  c.req.bodyCache.json = Promise.resolve(body);
  await next();
}

/**
 * For routes that take a JSON body: 415 without a JSON content type, 413 over 1 MiB, 400 for
 * malformed JSON or a body that is not an object, 422 for a whole number JSON.parse rounds, in
 * that order. One link of the chain (the three
 * steps call each other), where Hono's `every` composed three.
 */
export const jsonGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!JSON_TYPE.test(c.req.header('Content-Type') ?? '')) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json.',
    );
  }
  await cachedBody(c, () => parsedBody(c, next));
};
