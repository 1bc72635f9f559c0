import { z } from '@hono/zod-openapi';
import { EVENT_TYPES, isEventPattern } from '../core/event-types';
import { MAX_URL } from '../core/outbound-url';
import { deliveryStatuses, endpointDisabledReasons } from '../core/statuses';
import { DateTimeIn, DeletedAt, Id, OptionalText, Timestamp, trashQuery, writeBodies } from './common';
import { pageQuery } from './page';

const MAX_PATTERNS = EVENT_TYPES.length + 10;
/** The longest grace a secret rotation leaves the old secret signing (7 days); default 24 hours. */
const MAX_GRACE_S = 7 * 24 * 3600;
export const DEFAULT_GRACE_S = 24 * 3600;

const EventPattern = z
  .string()
  .max(64)
  .refine(isEventPattern, {
    message: `Expected an event type (${EVENT_TYPES.join(', ')}), <record>.* or *.`,
  })
  .openapi({ example: 'company.*' });

const fields = {
  url: z.string().trim().max(MAX_URL).openapi({
    format: 'uri',
    example: 'https://hooks.example.com/crm',
    description:
      'https, a public host name (no IP address, credentials, localhost, .local or .internal); checked again before every send',
  }),
  description: OptionalText(500),
  event_types: z
    .array(EventPattern)
    .min(1)
    .max(MAX_PATTERNS)
    .transform((types) => [...new Set(types)])
    .openapi({ description: 'Exact types, `<record>.*` or `*`; duplicates are dropped' }),
  enabled: z.boolean().optional().openapi({ description: '`true` when created without it' }),
};

const readOnly = {
  secret: 'The API makes it; POST /v1/webhook-endpoints/{id}/rotate-secret replaces it.',
  disabled_reason: 'The service sets it when it turns the endpoint off; "enabled": true clears it.',
  failing_since: 'The service sets it.',
  previous_secret_expires_at: 'POST /v1/webhook-endpoints/{id}/rotate-secret sets it.',
};
const bodies = writeBodies(fields, readOnly);
export const WebhookEndpointCreate = bodies.create.openapi('WebhookEndpointCreate');
export const WebhookEndpointUpdate = bodies.update.openapi('WebhookEndpointUpdate');

export const WebhookEndpoint = z
  .object({
    id: Id,
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.enum(endpointDisabledReasons).nullable().openapi({
      description: '`gone`: it answered 410; `failing`: 5 days of failures without a success; null otherwise',
    }),
    failing_since: Timestamp.nullable().openapi({ description: 'Since when every attempt has failed' }),
    secret: z.string().optional().openapi({
      description:
        '`whsec_…`: only in the create and rotate-secret answers; keep it, it is never shown again',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
    previous_secret_expires_at: Timestamp.nullable().openapi({
      description: 'Until then the secret a rotation replaced signs too; null when none does',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('WebhookEndpoint');

export const endpointSorts = { created_at: 'createdAt' } as const;

export const WebhookEndpointQuery = z.strictObject({ ...trashQuery, ...pageQuery(endpointSorts) });

export const RotateSecretBody = z
  .strictObject({
    grace_period: z.number().int().min(0).max(MAX_GRACE_S).optional().openapi({
      description:
        'Seconds the old secret keeps signing beside the new one, 0 to 604800; default 86400 (24 hours). 0 for a secret that leaked.',
      example: 86400,
    }),
  })
  .openapi('WebhookEndpointRotateSecret');

export const DeliveryAttempt = z
  .object({
    at: Timestamp,
    status: z.number().int().nullable().openapi({ description: 'The HTTP status; null when no answer came' }),
    latency_ms: z.number().int(),
    response: z.string().openapi({ description: "The answer's first 2 KiB" }),
    error: z.string().nullable().openapi({ description: 'Why no answer came (timeout, refused URL…)' }),
  })
  .openapi('WebhookDeliveryAttempt');

export const WebhookDelivery = z
  .object({
    id: Id,
    endpoint_id: Id,
    message_id: z.string().openapi({ description: 'The `webhook-id` header: the same on every attempt' }),
    type: z.string(),
    status: z.enum(deliveryStatuses),
    next_attempt_at: Timestamp.nullable(),
    attempts: z.array(DeliveryAttempt),
    created_at: Timestamp,
  })
  .openapi('WebhookDelivery');

export const deliverySorts = { created_at: 'createdAt' } as const;

export const WebhookDeliveryQuery = z.strictObject({ ...pageQuery(deliverySorts) });

export const RecoverResult = z
  .object({ data: z.object({ resent: z.number().int() }) })
  .openapi('WebhookEndpointRecovered', { description: 'How many deliveries were queued again' });

export const TestOutcome = z
  .object({ data: WebhookDelivery })
  .openapi('WebhookEndpointTestOutcome', { description: 'The ping delivery and its one attempt' });

export const RecoverBody = z
  .strictObject({
    since: DateTimeIn('2026-11-28T00:00:00Z')
      .optional()
      .openapi({ description: 'Deliveries made since then; without it, every one still kept (30 days)' }),
  })
  .openapi('WebhookEndpointRecover');

/** What every outbound message's body is (Standard Webhooks' envelope). */
export const WebhookMessage = z
  .object({
    type: z.string().openapi({ example: 'contact.updated' }),
    timestamp: Timestamp,
    data: z.record(z.string(), z.unknown()).openapi({
      description:
        'The change journal entry (`id`, `type`, `occurred_at`, `record_type`, `record_id`, `version`, `actor`, `changed_fields`, `previous`, `data`): the record as GET returns it after the change. For `endpoint.disabled`: the endpoint; for `ping`: `{ endpoint_id }`.',
    }),
  })
  .openapi('WebhookMessage');
