import { and, eq, gt, or, Param } from 'drizzle-orm';
import { signatureFailure } from '../../auth/signatures';
import { DomainError } from '../../core/errors';
import { IDEMPOTENCY_WINDOW_MS } from '../../core/idempotency';
import { logError } from '../../core/log';
import type { Db } from '../../db/client';
import { isAccountMoving } from '../../db/errors';
import { inboundWebhooks } from '../../db/schema';
import { shapes } from '../../db/shapes';
import { requiredTargetErrors } from '../config/field-targets';
import { keyHolder, rejectEvent, releaseExpiredKey, storeEvent } from '../log/event-log';
import { type EventMessage, enqueueEvents } from '../log/event-messages';
import { heldIdempotencyKey, storedEventBytes, storedWebhookBytes } from '../log/event-storage';
import { holdEvent } from '../log/held-events';
import type { Rejection } from '../rules/config';
import { sameEvent } from '../rules/event-identity';
import { injected } from '../rules/faults';
import { readFields } from '../rules/fields';
import { keptBody, leadOf } from '../rules/lead-name';
import { charsetOf, textPrefix } from './charset';
import { parseObject } from './parse';
import { storedBody } from './stored-body';

// Webhook ingest without HTTP: which webhook a token opens, whether a call's signature holds, what
// of an accepted call is stored and queued, and what of a refused one is kept. Each refusal is a
// DomainError with its code; routes/hooks.ts, the HTTP adapter, reads the body and the headers
// and has http/ answer each code with its status.

/** How much of a refused body its rejected event keeps. */
const MAX_REJECTED_BYTES = 4 * 1024;

/** What ingest reads of a webhook: never its flows, name or tokens (a flow is the consumer's). */
const HOOK_COLUMNS = {
  id: inboundWebhooks.id,
  accountId: inboundWebhooks.accountId,
  mode: inboundWebhooks.mode,
  secret: inboundWebhooks.secret,
  fields: inboundWebhooks.fields,
};

export type Hook = Pick<typeof inboundWebhooks.$inferSelect, keyof typeof HOOK_COLUMNS>;

/** A call as ingest reads it: its raw body and the headers it carries, the credential-free ones kept. */
type Call = {
  body: Uint8Array;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  kept: Record<string, string>;
};

/** The bindings ingest uses: the queue, and the fault drill's switch. */
type IngestVars = { EVENTS: Queue<EventMessage>; FAULT_INJECTION?: string };

/**
 * The webhook a token opens: its current token, or the one a rotation replaced while its grace
 * lasts (an expired one is unknown: 404). Tokens are unique across accounts in both columns (two
 * unique indexes, read as a MULTI-INDEX OR), so a token opens one webhook, and only its own.
 */
const tokenMatches = (token: string, now: number) =>
  or(
    eq(inboundWebhooks.token, token),
    and(eq(inboundWebhooks.previousToken, token), gt(inboundWebhooks.previousTokenExpiresAt, now)),
  );

/**
 * The enabled webhook `token` opens (what ingest reads of it), with its own and its account's
 * stored bytes and whether a live event holds `key`: one statement, prebuilt per shape (see
 * `shapes`; the token's condition and the key's parameters hold every value of the call). Its
 * computed columns are named: a batch's rows come back as objects keyed by column name, and a
 * column named `0` would sort first.
 */
export function webhookOf(db: Db, token: string, key: string | undefined) {
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

/** A webhook with a secret takes only a call signed with it (`invalid_signature`, naming the check). */
export async function checkSignature(
  hook: Hook,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: Uint8Array,
): Promise<void> {
  if (hook.secret === null) return;
  const failed = await signatureFailure(hook.secret, headers.timestamp, headers.signature, body);
  if (failed) throw new DomainError('invalid_signature', failed.message, [failed]);
}

/**
 * Checks and stores one call whose signature held, and queues its event: `invalid_fields` and the
 * body's refusals (parseObject), or `idempotency_key_reused` for a key held by another body.
 */
export async function acceptCall(db: Db, env: IngestVars, hook: Hook, call: Call): Promise<void> {
  const key = call.idempotencyKey;
  const parsed = parseObject(call.contentType, call.body);
  const { text, value } = parsed;
  const { values, errors, warnings } = readFields(value, hook.fields);
  errors.push(...requiredTargetErrors(hook.fields, values));
  if (errors.length)
    throw new DomainError(
      'invalid_fields',
      'Some required fields are missing or invalid; see errors.',
      errors,
    );

  // What is stored (and what a retry's body is compared with): the declared fields and a bounded rest.
  const kept = storedBody(
    text,
    value,
    hook.fields.map((f) => f.key),
  );
  const now = Date.now();
  const event = {
    payload: kept.text,
    headers: call.kept,
    idempotencyKey: key,
    warnings: [...parsed.warnings, ...kept.warnings, ...warnings],
    lead: leadOf(hook.fields, value),
  };
  try {
    await storeCall(db, env, hook, event, now, value);
  } catch (err) {
    // The account is frozen by a move (src/moves/): the call is held outside the freeze and
    // stored as its event on the account's shard once the move has switched; the sender gets 204.
    if (!isAccountMoving(err)) throw err;
    await holdEvent(db, hook, event, now);
  }
}

/** Stores the event (or finds it stored under its key) and queues it. */
async function storeCall(
  db: Db,
  env: IngestVars,
  hook: Hook,
  event: Parameters<typeof storeEvent>[2],
  now: number,
  value: unknown,
): Promise<void> {
  const key = event.idempotencyKey;
  let stored: { id: number } | undefined;
  if (key) {
    const [, inserted, holder] = await db.batch([
      // An expired key is released first, so the window is exactly 24 hours.
      releaseExpiredKey(db, hook.id, key, now - IDEMPOTENCY_WINDOW_MS),
      storeEvent(db, hook, event, now),
      // The event that holds the key, unless its payload is this one as sent (this call's own
      // insert included): it is read only when a retry differs from the first call.
      keyHolder(db, hook.id, key, event.payload),
    ]);
    [stored] = inserted;
    const [first] = holder;
    if (!stored && first && !sameEvent(first, event.payload)) throw keyReused();
  } else [[stored]] = await db.batch([storeEvent(db, hook, event, now)]);
  if (stored && !injected(env, value, 'send')) await enqueueEvents(env.EVENTS, db.shard, [stored.id]);
}

/** A key this webhook received in the last 24 hours with another body: the first event stands. */
const keyReused = () =>
  new DomainError(
    'idempotency_key_reused',
    'This Idempotency-Key was used for a different request (another path or body) in the last 24 hours.',
  );

/**
 * Keeps a refused call in the event log as `rejected`, with the problem its sender got and the
 * start of its body (once read whole and, for a webhook with a secret, signed), and trims the
 * webhook's rejected events, all in one batch. A failure here is logged, never thrown: the sender
 * still gets its 4xx.
 */
export async function recordRejection(
  db: Db,
  hook: Hook,
  rejection: Omit<Rejection, 'body'>,
  call: Pick<Call, 'contentType' | 'kept'> & { body: Uint8Array | undefined },
  requestId: string,
): Promise<void> {
  const now = Date.now();
  const kept = call.body && textPrefix(call.body, charsetOf(call.contentType), MAX_REJECTED_BYTES);
  try {
    await db.batch(
      rejectEvent(
        db,
        hook,
        {
          headers: call.kept,
          rejection: { ...rejection, body: kept ?? null },
          lead: leadOf(hook.fields, keptBody(kept)),
        },
        now,
      ),
    );
  } catch (failure) {
    logError(failure, requestId);
  }
}
