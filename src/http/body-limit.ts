import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './problem';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The 413 of a body over `max` bytes, the same wherever a body is limited. */
export const bodyTooLarge = (max: number) =>
  new ApiError(413, 'body_too_large', `The body is over ${max} bytes.`, undefined, undefined, undefined, {
    max,
  });

/**
 * The 400 of a body whose stream broke off before its end (the client went away, a chunked body
 * cut short): the sender's failure, never a 500 logged as ours.
 */
export const bodyUnreadable = () =>
  new ApiError(400, 'body_unreadable', 'The body broke off before its end; send the request again.');

/**
 * The one body reader with a limit: the body's bytes, or undefined once it is over `max` bytes,
 * whether its Content-Length says so or its stream does (read no further than that); the 400 of
 * bodyUnreadable if the stream fails on the way. Webhook ingest calls it for the raw bytes its
 * signature covers; limitedBody for every other body.
 *
 * A body that states its length within the limit is read in one go: a request from the network
 * carries exactly the bytes its Content-Length frames (workerd's HTTP server ends the body there),
 * so the read cannot run past the limit, and one native read costs a fraction of the chunk loop.
 * A request made in JavaScript (a test, a service binding) may carry a stream longer than its
 * header says: it is still refused once read. A body without a length is read chunk by chunk, and
 * no further than the limit.
 */
export async function readLimited(req: Request, max: number): Promise<Uint8Array | undefined> {
  const length = req.headers.get('Content-Length');
  if (length !== null && Number(length) > max) return undefined;
  if (!req.body) return new Uint8Array();
  if (length !== null) {
    const bytes: ArrayBuffer = await req.arrayBuffer().catch(() => Promise.reject(bodyUnreadable()));
    return bytes.byteLength > max ? undefined : new Uint8Array(bytes);
  }
  return readChunks(req.body, max);
}

async function readChunks(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  const next = () => reader.read().catch(() => Promise.reject(bodyUnreadable()));
  for (let read = await next(); !read.done; read = await next()) {
    size += read.value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(read.value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * 413 for a body over 1 MiB, whether its Content-Length says so or its stream does. The body read
 * within the limit stands in for the request's, so the handler reads it as sent (a form's parser
 * needs the request itself: the panel's).
 */
export const limitedBodyOf = (max: number) =>
  createMiddleware(async (c, next) => {
    if (!c.req.raw.body) return next();
    const body = await readLimited(c.req.raw, max);
    if (!body) throw bodyTooLarge(max);
    c.req.raw = new Request(c.req.raw, { body });
    return next();
  });

export const limitedBody = limitedBodyOf(MAX_BODY_BYTES);

/**
 * limitedBody for a body read as bytes or JSON (the `/v1` routes, idempotency's fingerprint): the
 * bytes go into Hono's body cache, where `c.req.arrayBuffer()` and `c.req.json()` find them, rather
 * than into a new request read a second time. Read once, however many links ask.
 */
export async function cachedBody(c: Context, next: Next): Promise<void> {
  const { bodyCache } = c.req;
  if (c.req.raw.body && !bodyCache.arrayBuffer) {
    const body = await readLimited(c.req.raw, MAX_BODY_BYTES);
    if (!body) throw bodyTooLarge(MAX_BODY_BYTES);
    // The whole of its buffer (a fresh read, or the loop's exact-size copy), as a promise: Hono
    // keeps promises in its cache, though its type names the values.
    bodyCache.arrayBuffer = Promise.resolve(body.buffer) as unknown as ArrayBuffer;
  }
  await next();
}
