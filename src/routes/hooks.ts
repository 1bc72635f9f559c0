import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { sha256Hex } from '../auth/secrets';
import { logError } from '../core/log';
import type { AppEnv } from '../env';
import { bodyTooLarge, readLimited } from '../http/body-limit';
import { idempotencyKeyOf } from '../http/idempotency';
import { errorResponses, idempotencyKeySchema, router, traceHeaders } from '../http/openapi';
import { type ApiError, asApiError } from '../http/problem';
import { RATE_LIMIT_PERIOD_S, rateLimit } from '../http/rate-limit';
import { acceptCall, checkSignature, type Hook, recordRejection, webhookOf } from '../webhooks/ingest/accept';
import { ACCEPTED_TYPES } from '../webhooks/ingest/parse';
import { MAX_REMAINDER_BYTES } from '../webhooks/ingest/stored-body';
import { assertEventRoom, storageFull } from '../webhooks/log/event-storage';
import { webhookTokenShard } from '../webhooks/rules/token';

// The HTTP adapter of webhook ingest (src/webhooks/ingest/): the route and its description, the
// rate limit, the body read within its limit, and each refusal's status, which http/ decides.

/** The largest body a sender may post. */
export const MAX_EVENT_BYTES = 256 * 1024;
// Headers worth keeping with an event: none of them carries a credential.
const KEPT_HEADERS = ['content-type', 'user-agent', 'idempotency-key', 'x-request-id'];

/**
 * Ingest's refusals answered otherwise than on /v1: a content type it does not read is a sender's
 * malformed request, a 400 (the seed's status set has no 415).
 */
const INGEST_STATUSES = { unsupported_media_type: 400 } as const;

/** A problem response of the shared catalogue, described for this route. */
const described = <S extends 400 | 401 | 413 | 422 | 429>(status: S, description: string) =>
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
  description: `A JSON object, or a form (\`application/x-www-form-urlencoded\`: \`a[b]=1\` and \`a.b=1\` both fill \`{"a":{"b":"1"}}\`), of up to ${MAX_EVENT_BYTES / 1024} KiB (the event keeps its declared fields and ${MAX_REMAINDER_BYTES / 1024} KiB of the rest, with a \`body_trimmed\` warning when it is cut), in UTF-8 or in the Latin-1 charset its Content-Type declares (\`charset=iso-8859-1\`, \`windows-1252\`); bytes that are not UTF-8 and declare no charset are read as Windows-1252, with a warning. Optional fields that do not fit their type are left out and listed in the event's \`warnings\`; a refused call (400, 401, 413, 422) is kept in the event log as \`rejected\`. The answer is 204 once the event is stored; the webhook's flows run shortly after, from a queue. A repeated \`Idempotency-Key\` within 24 hours is answered 204 and stored once, if its body is the same; with another body it is a 422. A webhook with a secret needs \`X-Timestamp\` (unix seconds, within 5 minutes) and \`X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<raw body>">\`.`,
  request: {
    params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' } }) }),
    // Plain JSON Schema, not zod: the route attaches no body validator, so the raw bytes the
    // signature covers are read as sent.
    body: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object' as const, additionalProperties: true } },
        'application/x-www-form-urlencoded': {
          schema: { type: 'object' as const, additionalProperties: true },
        },
      },
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
    ...described(
      400,
      `A malformed request: no Content-Type or one other than ${ACCEPTED_TYPES} (\`unsupported_media_type\`), a body its Content-Type does not describe (\`malformed_json\`, \`malformed_form\`), not an object, nested too deep, a bad Idempotency-Key, or required fields: one \`errors\` entry each. Kept in the event log as \`rejected\``,
    ),
    ...described(
      401,
      'The webhook has a secret and the signature fails a check, named in `errors[0].code`: `missing_signature`, `malformed_signature`, `missing_timestamp`, `malformed_timestamp`, `stale_timestamp` or `digest_mismatch`. Kept as `rejected`, without the body',
    ),
    ...described(413, `Body over ${MAX_EVENT_BYTES / 1024} KiB. Kept as \`rejected\`, without the body`),
    ...described(
      422,
      'An `Idempotency-Key` this webhook received in the last 24 hours with another body (`idempotency_key_reused`): the first event stands. Kept as `rejected`, with the body',
    ),
    ...described(
      429,
      `Over this webhook's rate limit (\`rate_limited\`, retry after ${RATE_LIMIT_PERIOD_S} seconds), or the event storage is full (\`event_storage_full\`, \`Retry-After: 300\`): this webhook's share of it (25% of the account's quota by default) or the account's whole quota. Not a rate limit: it lasts until the cron purges events past the retention, the account deletes events or the operator raises the quota; a retry of an event already stored is still a 204. Nothing stored`,
    ),
    404: {
      description: 'Unknown or disabled webhook, or a URL rotated away whose grace period is over (no body)',
    },
    500: { description: 'Unexpected failure (no body); safe to retry with the same Idempotency-Key' },
  },
});

/** The headers kept with an event: none of them carries a credential. */
const keptHeaders = (c: Context<AppEnv>) =>
  Object.fromEntries(
    KEPT_HEADERS.flatMap((name) => {
      const header = c.req.header(name);
      return header === undefined ? [] : [[name, header]];
    }),
  );

/**
 * Checks and stores one call, or throws the error its sender gets. `seen.body` holds the body once
 * it is read whole and, for a webhook with a secret, signed: only then is it worth keeping.
 */
async function accept(c: Context<AppEnv>, hook: Hook, seen: { body?: Uint8Array }): Promise<void> {
  const body = await readLimited(c.req.raw, MAX_EVENT_BYTES);
  if (!body) throw bodyTooLarge(MAX_EVENT_BYTES);
  await checkSignature(
    hook,
    { timestamp: c.req.header('X-Timestamp'), signature: c.req.header('X-Signature') },
    body,
  );
  seen.body = body;
  const idempotencyKey = idempotencyKeyOf(c);
  await acceptCall(c.get('db'), c.env, hook, {
    body,
    contentType: c.req.header('Content-Type'),
    idempotencyKey,
    kept: keptHeaders(c),
  });
}

/** Keeps a refused call as a `rejected` event, with the problem its sender gets. */
function reject(c: Context<AppEnv>, hook: Hook, err: ApiError, body: Uint8Array | undefined) {
  const { status, code, detail, errors } = err.toProblem();
  const call = { contentType: c.req.header('Content-Type'), kept: keptHeaders(c), body };
  return recordRejection(
    c.get('db'),
    hook,
    { status, code, detail, ...(errors && { errors }), ...(err.params && { params: err.params }) },
    call,
    c.get('requestId'),
  );
}

/**
 * The route is in the OpenAPI document as declared above, but served without its zod validators:
 * a path parameter and headers are always strings, so `z.string()` and `z.string().optional()`
 * refuse nothing, and each would copy and parse them on every call.
 */
export const hooksRouter = router();
hooksRouter.openAPIRegistry.registerPath(ingest);
hooksRouter.post('/:token', async (c) => {
  try {
    const token = c.req.param('token');
    // The token names its shard; one the Worker does not have is an unknown token.
    const shard = webhookTokenShard(token);
    if (shard === undefined || !(await c.get('shard').serve(shard))) return c.body(null, 404);
    // Before the lookup, so a flood on one token costs D1 nothing (made-up tokens meet the client
    // limiter first); keyed by a hash, as the URL is a credential.
    await rateLimit(c.env, 'HOOK_RATE_LIMITER', () => sha256Hex(token));
    const db = c.get('db');
    const [[hook]] = await db.batch([webhookOf(db, token, c.req.header('Idempotency-Key'))]);
    if (!hook) return c.body(null, 404);
    // Outside the try below: a call refused for a full storage (the account's, or this webhook's
    // share) is not kept as a rejected event.
    // A retry whose key a live event holds goes on: it stores nothing (the insert meets the key),
    // so it is answered as anywhere else: 204 if its body is the same, 422 if not.
    const used = { account: hook.storedBytes, webhook: hook.webhookBytes };
    const full = storageFull(used, c.env);
    if (!hook.keyHeld) assertEventRoom(used, c.env);
    const seen: { body?: Uint8Array } = {};
    try {
      await accept(c, hook, seen);
    } catch (err) {
      const problem = asApiError(err, INGEST_STATUSES);
      // Nothing is stored while full, not even a rejection.
      if (problem && !full) await reject(c, hook, problem, seen.body);
      throw problem ?? err;
    }
    return c.body(null, 204);
  } catch (err) {
    const problem = asApiError(err, INGEST_STATUSES);
    if (problem) throw problem;
    // A sender gets no detail of an internal failure; the log has it under the request id.
    logError(err, c.get('requestId'));
    return c.body(null, 500);
  }
});
