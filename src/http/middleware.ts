import type { MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { createMiddleware } from 'hono/factory';
import { createDb } from '../db/client';
import { D1Meter } from '../db/meter';
import type { AppEnv } from '../env';
import { limitedBody } from './body-limit';
import { BOOKMARK_HEADER, sessionFor } from './bookmark';
import { IdempotencyClaim } from './idempotency-claim';
import { ApiError, badRequest } from './problem';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's D1 session, and on every response: X-Request-Id (the client's when it sent a sane
 * one), Server-Timing, and X-D1-Bookmark once the session has one.
 */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  const given = c.req.header('X-Request-Id');
  const requestId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
  const meter = new D1Meter();
  const session = sessionFor(c.env.DB, c.req.method, c.req.header(BOOKMARK_HEADER));
  c.set('requestId', requestId);
  const claim = new IdempotencyClaim();
  c.set('claim', claim);
  c.set('db', createDb(session, meter, claim));
  await next();
  c.res.headers.set('X-Request-Id', requestId);
  c.res.headers.set('Server-Timing', meter.serverTiming(performance.now() - started));
  const bookmark = session.getBookmark();
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
});

// The same test @hono/zod-openapi applies after us, so a body this guard lets through is never
// refused again by the validator with a different error.
export const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * For routes that take a JSON body: 415 without a JSON content type, 413 over 1 MiB, 400 for
 * malformed JSON or a body that is not an object. The parsed body stays cached for the validator.
 */
export const jsonGuard: MiddlewareHandler<AppEnv> = every(
  createMiddleware<AppEnv>(async (c, next) => {
    if (!JSON_TYPE.test(c.req.header('Content-Type') ?? '')) {
      throw new ApiError(
        415,
        'unsupported_media_type',
        'Send the body as JSON with Content-Type: application/json.',
      );
    }
    await next();
  }),
  limitedBody,
  createMiddleware<AppEnv>(async (c, next) => {
    // Read as bytes (the body limit trips here, mid-stream): `json()` would turn bytes that are not
    // UTF-8, such as a Latin-1 "Jo\xe3o", into U+FFFD and store them without a word.
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
    // Parsed once: the validator after this guard reads it from Hono's cache.
    c.req.bodyCache.json = Promise.resolve(body);
    await next();
  }),
);
