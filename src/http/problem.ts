import { z } from '@hono/zod-openapi';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: 'cnpj' }),
    code: z.string().openapi({ example: 'invalid' }),
    message: z.string(),
  })
  .openapi('FieldError');

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: '/problems/validation_failed' }),
    title: z.string().openapi({ example: 'Unprocessable Content' }),
    status: z.number().int(),
    detail: z.string(),
    code: z
      .string()
      .openapi({ description: 'Stable machine-readable error code', example: 'validation_failed' }),
    request_id: z.string().optional(),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .openapi('Problem');

export type FieldError = z.infer<typeof FieldErrorSchema>;
export type Problem = z.infer<typeof ProblemSchema>;

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
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
    };
  }
}

export const badRequest = (code: string, detail: string, errors?: FieldError[]) =>
  new ApiError(400, code, detail, errors);

export const notFound = (detail = 'No such resource.') => new ApiError(404, 'not_found', detail);

export const unauthorized = (detail = 'A valid API key is required: Authorization: Bearer <key>.') =>
  new ApiError(401, 'unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer' });

export const invalid = (errors: FieldError[]) =>
  new ApiError(422, 'validation_failed', 'The request body breaks one or more rules; see errors.', errors);

export const conflict = (detail: string, path?: string) =>
  new ApiError(409, 'conflict', detail, path ? [{ path, code: 'taken', message: detail }] : undefined);

/**
 * Logs an unexpected error: only its class and the root cause's message, because Drizzle's own
 * message carries the query's parameters, which may be customer data or secrets.
 */
export function logError(err: unknown, requestId: string | undefined): void {
  console.error(
    JSON.stringify({
      level: 'error',
      request_id: requestId,
      error: err instanceof Error ? err.name : typeof err,
      cause: rootMessage(err),
    }),
  );
}

/** The innermost message of an error chain: D1's own, without Drizzle's query and parameters. */
export function rootMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}
