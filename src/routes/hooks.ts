import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, gt, or, Param } from 'drizzle-orm';
import type { Context } from 'hono';
import { sha256Hex } from '../auth/secrets';
import { signatureFailure } from '../auth/signatures';
import { charsetOf, decodeText, formPairs, latinWarnings, textPrefix } from '../core/charset';
import type { FieldError } from '../core/errors';
import { sameEvent } from '../core/event-identity';
import { formObject } from '../core/form-body';
import { unsafeIntegerError, unsafeIntegers } from '../core/json-numbers';
import { depthOf, MAX_DEPTH } from '../core/json-paths';
import { logError } from '../core/log';
import { MAX_REMAINDER_BYTES, storedBody } from '../core/stored-body';
import { readFields } from '../core/webhook-fields';
import { looksLikeWebhookToken } from '../core/webhook-token';
import type { Db } from '../db/client';
import { inboundWebhooks } from '../db/schema';
import { shapes } from '../db/shapes';
import type { AppEnv } from '../env';
import { bodyTooLarge, readLimited } from '../http/body-limit';
import { idempotencyKeyOf } from '../http/idempotency';
import { IDEMPOTENCY_WINDOW_MS, keyReused } from '../http/idempotency-claim';
import { JSON_TYPE } from '../http/middleware';
import { errorResponses, idempotencyKeySchema, router, traceHeaders } from '../http/openapi';
import { ApiError, asApiError, badRequest } from '../http/problem';
import { RATE_LIMIT_PERIOD_S, rateLimit } from '../http/rate-limit';
import { enqueueEvents } from '../model/event-messages';
import {
  assertEventRoom,
  heldIdempotencyKey,
  storageFull,
  storedEventBytes,
  storedWebhookBytes,
} from '../model/event-storage';
import { requiredTargetErrors } from '../model/field-targets';
import { keyHolder, rejectEvent, releaseExpiredKey, storeEvent } from '../webhooks/event-log';
import { injected } from '../webhooks/faults';

/** The largest body a sender may post. */
export const MAX_EVENT_BYTES = 256 * 1024;
/** How much of a refused body its rejected event keeps. */
export const MAX_REJECTED_BYTES = 4 * 1024;
// Headers worth keeping with an event: none of them carries a credential.
const KEPT_HEADERS = ['content-type', 'user-agent', 'idempotency-key', 'x-request-id'];

const FORM_TYPE = /^application\/x-www-form-urlencoded(;.*)?$/i;
const ACCEPTED_TYPES = 'application/json (or a +json type) or application/x-www-form-urlencoded';

/**
 * The body as an object, with the text to store and a warning for bytes read as Windows-1252:
 * 400 for a content type ingest does not read (a sender's malformed request, as the seed's status
 * set has no 415) and for a body that its content type does not describe.
 */
function parseObject(
  contentType: string | undefined,
  body: Uint8Array,
): { text: string; value: object; warnings: FieldError[] } {
  const type = contentType ?? '';
  const isJson = JSON_TYPE.test(type);
  if (!isJson && !FORM_TYPE.test(type)) {
    throw badRequest(
      'unsupported_media_type',
      `${type ? 'This Content-Type is not read here' : 'The request has no Content-Type'}: send ${ACCEPTED_TYPES}.`,
    );
  }
  const charset = charsetOf(type);
  const warnings: FieldError[] = [];
  let value: object;
  let text = '';
  if (isJson) {
    const decoded = decodeText(body, charset);
    text = decoded.text;
    if (decoded.guessed) warnings.push(...latinWarnings('body'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('malformed_json', 'The Content-Type is JSON, but the body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest('body_not_object', 'The body must be a JSON object.');
    }
    // A lead is kept whatever its numbers, but one read rounded is said.
    warnings.push(...unsafeIntegers(text).map((found) => unsafeIntegerError(found, 'rounded')));
    value = parsed;
  } else {
    // `curl -d '{...}'` sends JSON labelled as a form; read as one, it would be a single odd key.
    if (/^\s*[[{]/.test(decodeText(body, 'windows-1252').text)) {
      throw badRequest(
        'malformed_form',
        'The body looks like JSON but the Content-Type is application/x-www-form-urlencoded (what curl -d sends by default): send it with Content-Type: application/json.',
      );
    }
    const { pairs, guessed } = formPairs(body, charset);
    warnings.push(...latinWarnings(guessed));
    const form = formObject(new URLSearchParams(pairs));
    if ('error' in form) throw badRequest('malformed_form', form.error);
    value = form.value;
  }
  // JSON.parse takes any depth (and a form's keys make any), but JSON.stringify does not.
  if (depthOf(value) > MAX_DEPTH) {
    throw badRequest(
      'body_too_deep',
      `The body nests objects and arrays more than ${MAX_DEPTH} levels deep.`,
    );
  }
  // A form is stored as the object it makes, so processing reads a form event like a JSON one.
  return { text: isJson ? text : JSON.stringify(value), value, warnings };
}

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

/** What ingest reads of a webhook: never its flows, name or tokens (a flow is the consumer's). */
const HOOK_COLUMNS = {
  id: inboundWebhooks.id,
  accountId: inboundWebhooks.accountId,
  mode: inboundWebhooks.mode,
  secret: inboundWebhooks.secret,
  fields: inboundWebhooks.fields,
};

type Hook = Pick<typeof inboundWebhooks.$inferSelect, keyof typeof HOOK_COLUMNS>;

/**
 * The webhook a token opens: its current token, or the one a rotation replaced while its grace
 * lasts (an expired one is unknown: 404). Tokens are unique across accounts in both columns (two
 * unique indexes, read as a MULTI-INDEX OR), so a token opens one webhook, and only its own.
 */
export const tokenMatches = (token: string, now: number) =>
  or(
    eq(inboundWebhooks.token, token),
    and(eq(inboundWebhooks.previousToken, token), gt(inboundWebhooks.previousTokenExpiresAt, now)),
  );

/**
 * The enabled webhook `token` opens (what ingest reads of it), with its own and its account's stored bytes and whether a live event
 * holds `key`: one statement, prebuilt per shape (see `shapes`; the token's condition and the
 * key's parameters hold every value of the call). Its computed columns are named: a batch's rows
 * come back as objects keyed by column name, and a column named `0` would sort first.
 */
function webhookOf(db: Db, token: string, key: string | undefined) {
  const now = Date.now();
  const where = and(tokenMatches(token, now), eq(inboundWebhooks.enabled, true));
  const held =
    key === undefined ? undefined : { key: new Param(key), since: new Param(now - IDEMPOTENCY_WINDOW_MS) };
  return shapes.statement(db, `webhook ${held ? 'key' : 'no key'}`, [where, held?.key, held?.since], () =>
    db
      .select({
        ...HOOK_COLUMNS,
        storedBytes: storedEventBytes().as('stored_bytes'),
        webhookBytes: storedWebhookBytes().as('webhook_bytes'),
        keyHeld: heldIdempotencyKey(held).as('key_held'),
      })
      .from(inboundWebhooks)
      .where(where),
  );
}

/** The headers kept with an event: none of them carries a credential. */
const keptHeaders = (c: Context<AppEnv>) =>
  Object.fromEntries(
    KEPT_HEADERS.flatMap((name) => {
      const header = c.req.header(name);
      return header === undefined ? [] : [[name, header]];
    }),
  );

/**
 * Checks and stores one call, or throws the ApiError its sender gets. `seen.body` holds the body
 * once it is read whole and, for a webhook with a secret, signed: only then is it worth keeping.
 */
async function accept(c: Context<AppEnv>, hook: Hook, seen: { body?: Uint8Array }): Promise<void> {
  const db = c.get('db');
  const body = await readLimited(c.req.raw, MAX_EVENT_BYTES);
  if (!body) throw bodyTooLarge(MAX_EVENT_BYTES);
  if (hook.secret !== null) {
    const failed = await signatureFailure(
      hook.secret,
      c.req.header('X-Timestamp'),
      c.req.header('X-Signature'),
      body,
    );
    if (failed) throw new ApiError(401, 'invalid_signature', failed.message, [failed]);
  }
  seen.body = body;
  const key = idempotencyKeyOf(c);
  const parsed = parseObject(c.req.header('Content-Type'), body);
  const { text, value } = parsed;
  const { values, errors, warnings } = readFields(value, hook.fields);
  errors.push(...requiredTargetErrors(hook.fields, values));
  if (errors.length)
    throw badRequest('invalid_fields', 'Some required fields are missing or invalid; see errors.', errors);

  // What is stored (and what a retry's body is compared with): the declared fields and a bounded rest.
  const kept = storedBody(
    text,
    value,
    hook.fields.map((f) => f.key),
  );
  const now = Date.now();
  const event = {
    payload: kept.text,
    headers: keptHeaders(c),
    idempotencyKey: key,
    warnings: [...parsed.warnings, ...kept.warnings, ...warnings],
  };
  let stored: { id: number } | undefined;
  if (key) {
    const [, inserted, holder] = await db.batch([
      // An expired key is released first, so the window is exactly 24 hours.
      releaseExpiredKey(db, hook.id, key, now - IDEMPOTENCY_WINDOW_MS),
      storeEvent(db, hook, event, now),
      // The event that holds the key, unless its payload is this one as sent (this call's own
      // insert included): it is read only when a retry differs from the first call.
      keyHolder(db, hook.id, key, kept.text),
    ]);
    [stored] = inserted;
    const [first] = holder;
    if (!stored && first && !sameEvent(first, kept.text)) throw keyReused();
  } else [[stored]] = await db.batch([storeEvent(db, hook, event, now)]);
  if (stored && !injected(c.env, value, 'send')) await enqueueEvents(c.env.EVENTS, [stored.id]);
}

/**
 * Keeps a refused call in the event log as `rejected`, with the problem its sender got and the
 * start of its body, and trims the webhook's rejected events (trimRejections), all in one batch.
 * A failure here is logged, never answered: the sender still gets its 4xx.
 */
async function recordRejection(
  c: Context<AppEnv>,
  hook: Hook,
  err: ApiError,
  body: Uint8Array | undefined,
): Promise<void> {
  const db = c.get('db');
  const now = Date.now();
  const kept = body && textPrefix(body, charsetOf(c.req.header('Content-Type')), MAX_REJECTED_BYTES);
  const { status, code, detail, errors } = err.toProblem();
  try {
    const rejection = {
      status,
      code,
      detail,
      ...(errors && { errors }),
      ...(err.params && { params: err.params }),
      body: kept ?? null,
    };
    await db.batch(rejectEvent(db, hook, { headers: keptHeaders(c), rejection }, now));
  } catch (failure) {
    logError(failure, c.get('requestId'));
  }
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
    if (!looksLikeWebhookToken(token)) return c.body(null, 404);
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
      const problem = asApiError(err);
      // Nothing is stored while full, not even a rejection.
      if (problem && !full) await recordRejection(c, hook, problem, seen.body);
      throw err;
    }
    return c.body(null, 204);
  } catch (err) {
    if (asApiError(err)) throw err;
    // A sender gets no detail of an internal failure; the log has it under the request id.
    logError(err, c.get('requestId'));
    return c.body(null, 500);
  }
});
