import { rootMessage } from './errors';

/**
 * Logs an unexpected error: only its class and the root cause's message, because Drizzle's own
 * message carries the query's parameters, which may be customer data or secrets. Here, below
 * every layer that meets one (http, queue, auth), so none of them imports another for it.
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
