import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, lt } from 'drizzle-orm';
import { looksLikeWebhookToken, sha256Hex } from '../auth/secrets';
import { validSignature } from '../auth/signatures';
import { inboundEvents, inboundWebhooks } from '../db/schema';
import { depthOf, MAX_DEPTH } from '../domain/json-paths';
import { readFields } from '../domain/webhook-fields';
import { IDEMPOTENCY_WINDOW_MS, idempotencyKeyOf } from '../http/idempotency';
import { JSON_TYPE } from '../http/middleware';
import { errorResponses, idempotencyKeySchema, router, traceHeaders } from '../http/openapi';
import { ApiError, badRequest, logError } from '../http/problem';
import { RATE_LIMIT_PERIOD_S, rateLimit } from '../http/rate-limit';
import { injected } from '../queue/faults';
import { enqueueEvents } from '../queue/messages';

/** The largest body a sender may post. */
export const MAX_EVENT_BYTES = 256 * 1024;
// Headers worth keeping with an event: none of them carries a credential.
const KEPT_HEADERS = ['content-type', 'user-agent', 'idempotency-key', 'x-request-id'];

/** The body, or undefined once it is over `max` bytes (read no further than that). */
async function readLimited(req: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(req.headers.get('Content-Length') ?? 0) > max) return undefined;
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
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

/** The body as a JSON object, or the 400 that tells the sender what is wrong with it. */
function parseObject(contentType: string | undefined, body: Uint8Array): { text: string; value: object } {
  if (!JSON_TYPE.test(contentType ?? '')) {
    throw badRequest('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body);
    value = JSON.parse(text);
  } catch {
    throw badRequest('malformed_json', 'The body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('body_not_object', 'The body must be a JSON object.');
  }
  // JSON.parse takes any depth, but reading the event back (JSON.stringify) does not.
  if (depthOf(value) > MAX_DEPTH) {
    throw badRequest(
      'body_too_deep',
      `The body nests objects and arrays more than ${MAX_DEPTH} levels deep.`,
    );
  }
  return { text, value };
}

/** A problem response of the shared catalogue, described for this route. */
const described = <S extends 400 | 401 | 413 | 429>(status: S, description: string) =>
  ({ [status]: { ...errorResponses(status)[status], description } }) as Record<
    S,
    ReturnType<typeof errorResponses<S>>[S]
  >;

const ingest = createRoute({
  method: 'post',
  path: '/{token}',
  operationId: 'ingestWebhookEvent',
  tags: ['Webhook ingest'],
  // The URL is the credential: no security scheme applies.
  security: [],
  summary: 'Post an event to an inbound webhook (the URL is the credential; no API key)',
  description: `A JSON object of up to ${MAX_EVENT_BYTES / 1024} KiB. The answer is 204 once the event is stored; the webhook's flows run shortly after, from a queue. A repeated \`Idempotency-Key\` within 24 hours is answered 204 and stored once. A webhook with a secret needs \`X-Timestamp\` (unix seconds, within 5 minutes) and \`X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<raw body>">\`.`,
  request: {
    params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' } }) }),
    // Plain JSON Schema, not zod: the route attaches no body validator, so the raw bytes the
    // signature covers are read as sent.
    body: {
      required: true,
      content: { 'application/json': { schema: { type: 'object' as const, additionalProperties: true } } },
    },
    headers: z.object({
      'idempotency-key': z
        .string()
        .optional()
        .openapi({ ...idempotencyKeySchema, description: '1 to 255 printable ASCII characters' }),
      'x-timestamp': z.string().optional(),
      'x-signature': z.string().optional(),
    }),
  },
  responses: {
    204: {
      description: 'Stored (or a duplicate of an event stored in the last 24 hours)',
      headers: traceHeaders,
    },
    ...described(400, 'Not JSON, not an object, a bad Idempotency-Key, or fields: one `errors` entry each'),
    ...described(401, 'The webhook has a secret and X-Signature/X-Timestamp are missing, stale or wrong'),
    ...described(413, `Body over ${MAX_EVENT_BYTES / 1024} KiB`),
    ...described(
      429,
      `Over this webhook's rate limit (wrangler.toml); nothing stored. Retry after ${RATE_LIMIT_PERIOD_S} seconds`,
    ),
    404: { description: 'Unknown, rotated or disabled webhook (no body)' },
    500: { description: 'Unexpected failure (no body); safe to retry with the same Idempotency-Key' },
  },
});

export const hooksRouter = router().openapi(ingest, async (c) => {
  try {
    const { token } = c.req.valid('param');
    if (!looksLikeWebhookToken(token)) return c.body(null, 404);
    // Before the lookup, so a flood on one token costs D1 nothing (made-up tokens meet the client
    // limiter first); keyed by a hash, as the URL is a credential.
    await rateLimit(c.env, 'HOOK_RATE_LIMITER', await sha256Hex(token));
    const db = c.get('db');
    const [hook] = await db
      .select()
      .from(inboundWebhooks)
      .where(and(eq(inboundWebhooks.token, token), eq(inboundWebhooks.enabled, true)));
    if (!hook) return c.body(null, 404);

    const body = await readLimited(c.req.raw, MAX_EVENT_BYTES);
    if (!body) throw new ApiError(413, 'body_too_large', `The body is over ${MAX_EVENT_BYTES} bytes.`);
    if (
      hook.secret !== null &&
      !(await validSignature(hook.secret, c.req.header('X-Timestamp'), c.req.header('X-Signature'), body))
    ) {
      throw new ApiError(
        401,
        'invalid_signature',
        'X-Signature and X-Timestamp are missing, stale or wrong.',
      );
    }
    const key = idempotencyKeyOf(c);
    const { text, value } = parseObject(c.req.header('Content-Type'), body);
    const { errors } = readFields(value, hook.fields);
    if (errors.length)
      throw badRequest('invalid_fields', 'Some fields are missing or invalid; see errors.', errors);

    const now = Date.now();
    const headers = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => {
        const header = c.req.header(name);
        return header === undefined ? [] : [[name, header]];
      }),
    );
    const insert = db
      .insert(inboundEvents)
      .values({
        accountId: hook.accountId,
        webhookId: hook.id,
        mode: hook.mode,
        payload: text,
        headers,
        idempotencyKey: key,
        receivedAt: now,
        queuedAt: now,
      })
      // A live duplicate key: the event is already stored, so this call stores nothing.
      .onConflictDoNothing()
      .returning({ id: inboundEvents.id });
    const [stored] = key
      ? (
          await db.batch([
            // An expired key is released first, so the window is exactly 24 hours.
            db
              .update(inboundEvents)
              .set({ idempotencyKey: null })
              .where(
                and(
                  eq(inboundEvents.webhookId, hook.id),
                  eq(inboundEvents.idempotencyKey, key),
                  lt(inboundEvents.receivedAt, now - IDEMPOTENCY_WINDOW_MS),
                ),
              ),
            insert,
          ])
        )[1]
      : await insert;
    if (stored && !injected(c.env, value, 'send')) await enqueueEvents(c.env.EVENTS, [stored.id]);
    return c.body(null, 204);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // A sender gets no detail of an internal failure; the log has it under the request id.
    logError(err, c.get('requestId'));
    return c.body(null, 500);
  }
});
