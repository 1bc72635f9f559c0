import { z } from '@hono/zod-openapi';

/** What the account uses of the limits it shares the service under (`GET /v1/usage`). */
export const Usage = z
  .object({
    inbound_webhooks: z.object({
      count: z.int().openapi({ description: 'Webhooks of the account, disabled ones included' }),
      limit: z
        .int()
        .openapi({ description: 'The most it may have; one more is a 409 `webhook_limit_reached`' }),
    }),
    event_storage: z.object({
      used_bytes: z.int().openapi({
        description:
          "What its webhook events take up: payloads, refused bodies, headers, warnings, previews and errors, plus 256 bytes per event and 16 per byte of the event's search index (at most 1,200 indexed bytes per event: the first 100 characters of each value)",
      }),
      quota_bytes: z.int().openapi({ description: 'The most it may keep' }),
      webhook_quota_bytes: z.int().openapi({
        description:
          'The most one webhook may keep, within the quota (25% of it by default): past it, that webhook answers 429 `event_storage_full` and the others go on',
      }),
      events: z.int().openapi({ description: 'Events kept, rejected ones included' }),
      retention_days: z.int().openapi({ description: 'Events older than this are deleted by the cron' }),
      full: z.boolean().openapi({
        description:
          'true: ingest answers 429 `event_storage_full` and stores nothing (a retry of an event already stored excepted) until the cron purges events past the retention, the account deletes events (`DELETE /v1/inbound-webhooks/{id}/events`) or the operator raises the quota',
      }),
    }),
    change_journal: z.object({
      entries: z.int().openapi({ description: 'Change journal entries kept (GET /v1/events)' }),
      retention_days: z.int().openapi({ description: 'Entries older than this are deleted by the cron' }),
    }),
  })
  .openapi('Usage');

export const UsageQuery = z.strictObject({});
