import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Problem } from '../contracts/problem';
import { type DomainCode, DomainError, type FieldError } from '../core/errors';

const titles: Record<number, string> = {
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
};

/** Every expected failure is thrown as an ApiError and rendered once, by the app's error handler. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    readonly members?: Record<string, string>,
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
    };
  }
}

export const badRequest = (code: string, detail: string, errors?: FieldError[]) =>
  new ApiError(400, code, detail, errors);

/** The one place a domain failure gets its HTTP status. */
const statuses: Record<DomainCode, ContentfulStatusCode> = {
  unauthorized: 401,
  api_key_expired: 401,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  validation_failed: 422,
  webhook_limit_reached: 409,
  event_storage_full: 429,
};

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
    default:
      return undefined;
  }
}

/** The problem an expected failure is answered with; undefined for an unexpected one. */
export function asApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) {
    return new ApiError(statuses[err.code], err.code, err.message, err.errors, headersOf(err), err.members);
  }
  return undefined;
}
