import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Problem } from '../contracts/problem';
import { type DomainCode, DomainError, type FieldError } from '../core/errors';
import type { Params } from '../core/said';
import { accountMoving, isAccountMoving, MOVING_RETRY_AFTER_SECONDS } from '../db/errors';

export const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

type Entry = { status: ContentfulStatusCode; about: string };

/**
 * Every `code` a problem may carry: the status it is answered with and what it means, for people.
 * The one source of the codes: an ApiError takes only these (a code missing here is a type error),
 * a DomainError's status is read here, and `/problems/<code>`, each problem's `type`, is rendered
 * from `about` (src/http/problem-pages.ts).
 */
export const problems = {
  malformed_json: {
    status: 400,
    about:
      'The Content-Type says JSON, but the body is not valid JSON, or not UTF-8. Send one JSON object encoded as UTF-8.',
  },
  body_not_object: {
    status: 400,
    about:
      'The body is valid JSON but not an object (an array, a string, a number or null). Send a JSON object, {...}.',
  },
  body_too_deep: {
    status: 400,
    about: 'Webhook ingest: the body nests objects and arrays more than 32 levels deep.',
  },
  malformed_form: {
    status: 400,
    about:
      'Webhook ingest: a form body (application/x-www-form-urlencoded) that makes no object, or JSON sent as a form, which is what curl -d does by default: send JSON with Content-Type: application/json.',
  },
  unsupported_media_type: {
    status: 415,
    about:
      'The request has no Content-Type, or one that is not read there. /v1 bodies are JSON (application/json), a 415; webhook ingest takes JSON or a form (application/x-www-form-urlencoded) and answers this as a 400.',
  },
  invalid_query: {
    status: 400,
    about:
      'A query parameter is unknown, given twice, has no name, or its value does not fit; errors names each. A list goes in one parameter (owner_id=3,7); a flag is true or false; a + in a date-time offset must be sent as %2B, as a query string reads + as a space.',
  },
  invalid_cursor: {
    status: 400,
    about:
      'The cursor is not one this API issued, or was issued for another sort or other filters than the request has. Send a cursor with the query of the page it came from (its Link header holds it), or leave cursor out to start from the first page.',
  },
  invalid_bookmark: {
    status: 400,
    about:
      'X-D1-Bookmark is not a bookmark this API issued. Send back the last one an answer carried, or none (an empty header is none).',
  },
  invalid_idempotency_key: {
    status: 400,
    about: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
  },
  body_unreadable: {
    status: 400,
    about: 'The body broke off before its end (the connection was lost). Send the request again.',
  },
  invalid_fields: {
    status: 400,
    about:
      'Webhook ingest: required fields of the webhook are missing or do not fit their type; errors names each, path being the field. Fix the event and send it again.',
  },
  bad_request: {
    status: 400,
    about: 'A malformed request, refused before any route read it.',
  },
  unauthorized: {
    status: 401,
    about:
      'No valid API key (or admin token): send Authorization: Bearer <key>. A revoked key, or one of another deployment, is no valid key.',
  },
  api_key_expired: {
    status: 401,
    about: 'The API key passed its expires_at. Ask for a new one (POST /v1/api-keys, or the operator).',
  },
  invalid_signature: {
    status: 401,
    about:
      'Webhook ingest: the webhook has a secret and the call fails a signature check, named in errors[0].code: missing_signature, malformed_signature, missing_timestamp, malformed_timestamp, stale_timestamp or digest_mismatch.',
  },
  insufficient_scope: {
    status: 403,
    about:
      "The API key lacks the scope the operation needs, named in required_scope (GET /v1/me lists the key's scopes), or asks to grant a scope it does not hold.",
  },
  origin_not_allowed: {
    status: 403,
    about:
      "MCP (POST /mcp): the request carries the Origin of a page on another site. Only this service's own origin may call it from a browser; assistants' clients that are not browsers send no Origin (docs/mcp.md).",
  },
  host_not_allowed: {
    status: 403,
    about:
      'MCP (POST /mcp): the request names another host than the one PUBLIC_BASE_URL sets. Connect to the server URL under that host (docs/mcp.md).',
  },
  not_found: {
    status: 404,
    about:
      "No such route, or no such id in the account: another account's ids and rows in the trash are not found either. Under /hooks an unknown URL is a 404 with no body.",
  },
  method_not_allowed: {
    status: 405,
    about: 'The path exists but not with this method; Allow lists the methods it takes.',
  },
  conflict: {
    status: 409,
    about:
      'The write meets a row that is already there (a user with this email, trashed ones included) or one in the trash it needs (restoring a task whose deal is in the trash).',
  },
  idempotency_key_in_use: {
    status: 409,
    about:
      'A request with this Idempotency-Key is still running. Retry after it ends: you then get its answer.',
  },
  webhook_limit_reached: {
    status: 409,
    about: 'The account has as many inbound webhooks as it may (disabled ones count). Delete one first.',
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    about:
      'The account has as many webhook endpoints as it may (50 live ones). Delete one, or subscribe an existing one to more event types.',
  },
  body_too_large: {
    status: 413,
    about: 'The body is over the limit: 1 MiB on /v1, 256 KiB at webhook ingest.',
  },
  validation_failed: {
    status: 422,
    about:
      'A well-formed body breaks one or more rules; errors names each field (path) with a code (required, unknown_field, read_only, not_found, ...) and a message.',
  },
  idempotency_key_reused: {
    status: 422,
    about:
      'This Idempotency-Key was used in the last 24 hours for another request (another path or body). Send each request with its own key.',
  },
  rate_limited: {
    status: 429,
    about:
      'Over a rate limit (RateLimit-Policy names them). Wait Retry-After seconds; pace requests to stay under the policy.',
  },
  event_storage_full: {
    status: 429,
    about:
      "Webhook ingest: the account's event storage is at its quota. Not a rate limit: retry every Retry-After seconds (300) until old events are purged or the quota is raised.",
  },
  shard_unavailable: {
    status: 503,
    about:
      "The database holding this account cannot serve it now: its schema is behind this deployment's (a migration not applied yet) or it did not answer. Nothing was read or written; retry after Retry-After seconds (docs/scaling.md).",
  },
  account_moving: {
    status: 503,
    about:
      'The account is being moved to another database and its data is frozen for a few seconds while the copy is checked. Nothing was written; reads still work. Retry after Retry-After seconds (docs/scaling.md).',
  },
  move_in_progress: {
    status: 409,
    about:
      'Admin API: the account is already being moved; GET /admin/moves/{id} shows that move. One move of an account at a time.',
  },
  import_running: {
    status: 409,
    about:
      'Admin API: the account has a CSV import queued or running, whose chunks could not follow it to another database. Move it once GET /v1/imports shows the import ended.',
  },
  internal_error: {
    status: 500,
    about:
      'Something went wrong on our side; it is logged under the request_id. Safe to retry with the same Idempotency-Key.',
  },
} as const satisfies Record<string, Entry>;

export type ProblemCode = keyof typeof problems;

/** Every expected failure is thrown as an ApiError and rendered once, by the app's error handler. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ProblemCode,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    readonly members?: Record<string, string>,
    /** What `detail` names (`body_too_large`'s `max`): the panel words a stored refusal from it. */
    readonly params?: Params,
  ) {
    super(detail);
  }

  toProblem(requestId?: string): Problem {
    return {
      type: `/problems/${this.code}`,
      title: titles[this.status] ?? 'Error',
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(requestId ? { request_id: requestId } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.members,
      ...(this.params && { params: this.params }),
    };
  }
}

export const badRequest = (code: ProblemCode, detail: string, errors?: FieldError[]) =>
  new ApiError(400, code, detail, errors);

/**
 * Headers a domain failure is answered with: RFC 6750's challenge for the key's failures (which
 * scope is missing, or that the key is no good), and when to retry a full event storage (it frees
 * up as the cron purges events past their retention, every 5 minutes: a sender that retries sooner
 * only meets the 429 again).
 */
function headersOf(err: DomainError): Record<string, string> | undefined {
  switch (err.code) {
    case 'unauthorized':
      return { 'WWW-Authenticate': 'Bearer' };
    case 'api_key_expired':
      return { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
    case 'insufficient_scope':
      return {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${err.members?.required_scope}"`,
      };
    case 'event_storage_full':
      return { 'Retry-After': '300' };
    case 'shard_unavailable':
      return { 'Retry-After': '30' };
    case 'account_moving':
      return { 'Retry-After': String(MOVING_RETRY_AFTER_SECONDS) };
    default:
      return undefined;
  }
}

/**
 * The problem an expected failure is answered with; undefined for an unexpected one. `statuses`
 * answers some domain codes otherwise than the table does, on one surface (webhook ingest).
 */
export function asApiError(
  err: unknown,
  statuses: Partial<Record<DomainCode, ContentfulStatusCode>> = {},
): ApiError | undefined {
  if (err instanceof ApiError) return err;
  // A freeze trigger refused the write, whichever statement it was (src/moves/).
  if (!(err instanceof DomainError) && isAccountMoving(err)) return asApiError(accountMoving(), statuses);
  if (err instanceof DomainError) {
    return new ApiError(
      statuses[err.code] ?? problems[err.code].status,
      err.code,
      err.message,
      err.errors,
      headersOf(err),
      err.members,
    );
  }
  return undefined;
}
