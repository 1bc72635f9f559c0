import { createMiddleware } from 'hono/factory';
import { ApiError } from './problem';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The 413 of a body over `max` bytes, the same wherever a body is limited. */
export const bodyTooLarge = (max: number) =>
  new ApiError(413, 'body_too_large', `The body is over ${max} bytes.`);

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
 */
export async function readLimited(req: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(req.headers.get('Content-Length') ?? 0) > max) return undefined;
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
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
 * within the limit stands in for the request's, so the handler reads it as sent.
 */
export const limitedBody = createMiddleware(async (c, next) => {
  if (!c.req.raw.body) return next();
  const body = await readLimited(c.req.raw, MAX_BODY_BYTES);
  if (!body) throw bodyTooLarge(MAX_BODY_BYTES);
  c.req.raw = new Request(c.req.raw, { body });
  return next();
});
