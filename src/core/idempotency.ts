/** How long an Idempotency-Key is remembered, on /v1 (src/http/) and by webhook ingest. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
