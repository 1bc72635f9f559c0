import type { Params } from './said';

/**
 * One broken rule of a body: its path (`cnpj`, `follower_ids.1`), a stable code, the params the
 * code names (src/core/said.ts) and a message.
 */
export type FieldError = { path: string; code: string; message: string; params?: Params | undefined };

/**
 * The failures the rules and the storage report, without any HTTP: src/http/problem.ts alone
 * decides which status each code is answered with.
 */
export type DomainCode =
  | 'unauthorized'
  | 'api_key_expired'
  | 'insufficient_scope'
  | 'not_found'
  | 'conflict'
  | 'validation_failed'
  | 'webhook_limit_reached'
  | 'webhook_endpoint_limit_reached'
  | 'event_storage_full'
  // Webhook ingest's refusals of a call (src/webhooks/ingest/).
  | 'unsupported_media_type'
  | 'malformed_json'
  | 'malformed_form'
  | 'body_not_object'
  | 'body_too_deep'
  | 'invalid_fields'
  | 'invalid_signature'
  | 'idempotency_key_reused'
  | 'shard_unavailable'
  // An account in the middle of a move between shards (src/moves/): its writes wait a few seconds.
  | 'account_moving'
  | 'move_in_progress'
  | 'import_running';

export class DomainError extends Error {
  constructor(
    readonly code: DomainCode,
    detail: string,
    readonly errors?: FieldError[],
    /** Members of the problem beyond the usual ones, such as `required_scope`. */
    readonly members?: Record<string, string>,
  ) {
    super(detail);
  }
}

export const unauthorized = (detail = 'A valid API key is required: Authorization: Bearer <key>.') =>
  new DomainError('unauthorized', detail);

export const keyExpired = (expiredAt: string) =>
  new DomainError(
    'api_key_expired',
    `This API key expired at ${expiredAt}; ask for a new one (POST /v1/api-keys or the admin API).`,
  );

/** 403: a valid key whose scopes do not include `scope` (src/core/scopes.ts). */
export const insufficientScope = (
  scope: string,
  detail = `This API key lacks the scope ${scope}, which this operation needs (GET /v1/me lists the key's scopes).`,
) => new DomainError('insufficient_scope', detail, undefined, { required_scope: scope });

export const notFound = (detail = 'No such resource.') => new DomainError('not_found', detail);

export const invalid = (errors: FieldError[]) =>
  new DomainError('validation_failed', 'The request body breaks one or more rules; see errors.', errors);

/** `params`: what the panel words a `taken` field with (the field, and who holds its value). */
export const conflict = (detail: string, path?: string, params?: Params) =>
  new DomainError(
    'conflict',
    detail,
    path ? [{ path, code: 'taken', message: detail, ...(params && { params }) }] : undefined,
  );

/**
 * The most inbound webhooks an account may have, disabled ones included. The trigger
 * `inbound_webhooks_cap` (drizzle/0011_event_storage.sql) enforces the same number inside the insert.
 */
export const MAX_WEBHOOKS = 50;

/** The account has as many webhooks as it may. */
export const webhookLimitReached = () =>
  new DomainError(
    'webhook_limit_reached',
    `This account already has ${MAX_WEBHOOKS} inbound webhooks, the most it may have (disabled ones count): reuse one, changing its configuration, instead of creating another.`,
  );

/**
 * Enough for every integration an account runs; a key that may create keys cannot fill D1. The
 * trigger `api_keys_cap` (drizzle/0017_api_keys_cap.sql) enforces the same number inside the insert.
 */
export const MAX_LIVE_KEYS = 100;

/** The account has as many live API keys as it may. */
export const keyLimitReached = () =>
  conflict(`An account holds at most ${MAX_LIVE_KEYS} live API keys; revoke one first.`);

/** The most live outbound endpoints an account may have: the trigger webhook_endpoints_cap's number. */
export const MAX_ENDPOINTS = 50;

export const endpointLimitReached = () =>
  new DomainError(
    'webhook_endpoint_limit_reached',
    `This account already has ${MAX_ENDPOINTS} webhook endpoints, the most it may have: delete one, or subscribe an existing one to more event types.`,
  );

/** The account's webhook events fill its storage quota: ingest stores nothing more for now. */
export const eventStorageFull = (detail: string) => new DomainError('event_storage_full', detail);

/** The innermost message of an error chain: D1's own, without Drizzle's query and parameters. */
export function rootMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}
