import { z } from '@hono/zod-openapi';
import { Id, Name, queryFlag, Timestamp, writeBodies } from '../../contracts/common';
import { saidIssue } from '../../contracts/field-errors';
import { timeRange } from '../../contracts/filters';
import { pageQuery, type Sorts } from '../../contracts/page';
import { FieldErrorSchema, ProblemSchema } from '../../contracts/problem';
import { failureCodes } from '../../core/said';
import { eventStatuses, webhookModes } from '../../core/statuses';
import { actions, configIssues } from '../actions';
import { FieldMapping } from '../config/schema';
import { eventMarks, MAX_EVENT_MARKS } from '../rules/event-history';
import { MAX_SEARCH, MIN_SEARCH } from '../rules/event-search';
import { fieldTypes } from '../rules/fields';

type SchemasOf<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: T[K] extends { schema: infer S } ? S : never;
};

/** A step of a webhook's flow: one member per action of the registry (src/webhooks/actions/). */
export const Action = z
  .discriminatedUnion('action', actions.map((m) => m.schema) as unknown as SchemasOf<typeof actions>)
  .openapi('WebhookAction');
/** A step of a webhook's flow as stored. */
export type Action = z.output<typeof Action>;

/** How many fields and flow actions a webhook holds at most. */
export const MAX_FIELDS = 100;
export const MAX_FLOWS = 20;

const fields = {
  name: Name,
  enabled: z.boolean().optional().openapi({ description: 'Default true; a disabled URL answers 404' }),
  mode: z.enum(webhookModes).optional().openapi({
    description: '`test` validates and previews events but writes no records. Default `production`',
  }),
  secret: z.string().min(16).max(256).nullable().optional().openapi({
    writeOnly: true,
    description:
      'When set, calls must be signed: `X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<raw body>">`. null removes it',
  }),
  fields: z
    .array(FieldMapping)
    .max(MAX_FIELDS)
    .optional()
    .openapi({ description: 'Replaces the whole mapping' }),
  flows: z
    .array(Action)
    .max(MAX_FLOWS)
    .optional()
    .openapi({ description: 'Replaces all actions; run in order' }),
};

const bodies = writeBodies(fields, {
  url: 'POST /v1/inbound-webhooks/{id}/rotate-token gives the webhook a new one.',
  has_secret: 'Write secret: a string sets it, null removes it.',
  previous_url_expires_at: 'POST /v1/inbound-webhooks/{id}/rotate-token sets it (its grace_period).',
});

export const InboundWebhookCreate = bodies.create
  .superRefine((body, ctx) => {
    for (const issue of configIssues(body.fields ?? [], body.flows ?? [])) {
      ctx.addIssue(saidIssue(issue, issue.path));
    }
  })
  .openapi('InboundWebhookCreate');

export const InboundWebhookUpdate = bodies.update.openapi('InboundWebhookUpdate');

export const InboundWebhook = z
  .object({
    id: Id,
    name: z.string(),
    url: z.string().nullable().openapi({
      description:
        'Where senders POST: `{base_url}/hooks/{token}`. Secret: rotate it if it leaks. Its token is a write credential, so it is null unless the key holds `webhooks:update` (who could rotate it anyway); the create answer also shows it to a key with `webhooks:insert`',
      example: 'https://crm.example.com/hooks/whk_…',
    }),
    previous_url_expires_at: Timestamp.nullable().openapi({
      description:
        'After a rotation with a grace period: until when the URL it replaced still works (then it answers 404, as an unknown URL does); null when no old URL works',
    }),
    enabled: z.boolean(),
    mode: z.enum(webhookModes),
    has_secret: z.boolean().openapi({ description: 'Whether calls must be signed' }),
    fields: z.array(FieldMapping),
    flows: z.array(Action),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('InboundWebhook');

/**
 * The longest grace a rotation leaves the old URL, in seconds (7 days). There is no default to
 * name: a rotation without `grace_period` ends the old URL at once (a leaked URL's case); the
 * panel's own default, 24 hours, is its PANEL_GRACE_S.
 */
const MAX_GRACE_S = 7 * 24 * 3600;

/** The body of `POST /v1/inbound-webhooks/{id}/rotate-token`, all optional. */
export const RotateTokenBody = z
  .strictObject({
    grace_period: z.number().int().min(0).max(MAX_GRACE_S).optional().openapi({
      description:
        'Seconds the old URL keeps working, 0 to 604800 (7 days); default 0: it answers 404 at once (for a URL that leaked). 86400 (24 hours) gives a sender a day to move, as the panel does by default. Rotating again during a grace ends the older URL at once.',
      example: 3600,
    }),
  })
  .openapi('InboundWebhookRotateToken');

export const webhookSorts = { created_at: 'createdAt' } as const;

export const InboundWebhookQuery = z.strictObject({ ...pageQuery(webhookSorts) });

const Result = z
  .object({
    contact_id: Id.nullable(),
    company_id: Id.nullable(),
    deal_id: Id.nullable(),
    task_ids: z.array(Id),
  })
  .openapi('WebhookEventResult');

export const Rejection = ProblemSchema.pick({
  status: true,
  code: true,
  detail: true,
  errors: true,
  params: true,
})
  .extend({
    body: z.string().nullable().openapi({
      description:
        'The first 4 KiB of the refused body as text, or null when it was not kept (a failed signature, a body over the size limit)',
    }),
  })
  .openapi('WebhookEventRejection', {
    description:
      'The problem the sender was answered with (without its request id), and the start of its body',
  });
/** The problem a refused webhook call was answered with (without its request id), and the start of its body. */
export type Rejection = z.output<typeof Rejection>;

const EventMark = z
  .object({
    at: Timestamp,
    outcome: z.enum(eventMarks).openapi({
      description:
        'An attempt of the consumer (`processed`, `previewed`, `failed`, `retrying`: a transient failure, retried), `gave_up` (retries used up), `requeued` (handed to the queue again by the cron), `replayed`, `promoted` (a test event processed for real)',
    }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'The error of a failed attempt (its first 500 characters)' }),
  })
  .openapi('WebhookEventMark');

export const WebhookEvent = z
  .object({
    id: Id,
    webhook_id: Id,
    status: z.enum(eventStatuses).openapi({
      description:
        '`pending` until the queue consumer applies it; `test` events were only previewed; `rejected` events were refused with a 4xx and are never processed',
    }),
    attempts: z.number().int(),
    error: z.string().nullable().openapi({ description: 'Why the last attempt failed' }),
    error_code: z.enum(failureCodes).nullable().openapi({
      description:
        "`error`'s stable code: `mapping_changed` (the event no longer fits the fields, `error_params.errors` names each), `contact_unnamed` (a contact to create without name, email or phone), `record_unwritable` (a record D1 refused: `detail`), `retrying` (a transient failure, retried: `detail`), `gave_up` (retries used up: `attempts`, `last`); null without an error, and for an event failed before codes existed (its `error` is the English words only)",
    }),
    error_params: z.record(z.string(), z.unknown()).nullable().openapi({
      description: 'What `error_code` names, from which a client words `error` in its own language',
    }),
    received_at: Timestamp,
    processed_at: Timestamp.nullable(),
    payload: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        "The body as received: the JSON object, or the object a form body's keys make; null for a `rejected` event (the start of its body is in `rejection.body`)",
    }),
    warnings: z.array(FieldErrorSchema).openapi({
      description:
        'What was left out or not done, by `code`: `dropped` (a value left out), `reserved_key` (a key of the body named `__proto__`, `prototype` or `constructor`), `step_skipped` (an action that did not run), `no_due_date`, `owner_unavailable`, `decoded_as_windows_1252` (bytes that were not UTF-8), `unsafe_integer` (a whole number beyond ±9007199254740991, read rounded), `body_trimmed` (a body over 16 KiB, kept as its declared fields and 16 KiB of the rest: `path` names the first value left out)',
    }),
    rejection: Rejection.nullable().openapi({ description: 'For a `rejected` event: why' }),
    history: z.array(EventMark).openapi({
      description: `What happened to the event after it was stored, oldest first: its last ${MAX_EVENT_MARKS} marks`,
    }),
    result: Result.nullable().openapi({ description: 'The records a processed event wrote' }),
    preview: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'In test mode: what the flows would have written' }),
  })
  .openapi('WebhookEvent');

export const eventSorts = { received_at: 'receivedAt' } as const satisfies Sorts;

/** The filters of the event log, without its paging: the list and the bulk replay take them. */
export const eventFilters = {
  status: z.enum(eventStatuses).optional(),
  q: z
    .string()
    .trim()
    .min(MIN_SEARCH)
    .max(MAX_SEARCH)
    .optional()
    .openapi({
      description: `Finds a lead: events whose payload (or, for a \`rejected\` one, the kept start of its body) holds this text anywhere in its values, case and accents aside; every word of ${MIN_SEARCH} characters or more must be found. A phone number matches in any format ("(11) 91234-5678", "11912345678", "+55 11 91234 5678"). ${MIN_SEARCH} to ${MAX_SEARCH} characters.`,
      example: 'ana@example.com',
    }),
  has_warnings: queryFlag('`true`: only events with at least one warning; `false`: only those without'),
  ...timeRange('received_at'),
};

export const WebhookEventQuery = z.strictObject({
  ...pageQuery(eventSorts, '-received_at'),
  ...eventFilters,
});

export const WebhookEventFilter = z.strictObject(eventFilters);

/** The most events one `DELETE …/events` call deletes: one transaction of bounded size. */
export const MAX_EVENT_DELETE = 1000;

/** The statuses an account may delete: not `pending`, a lead still on its way. */
export const discardableStatuses = ['processed', 'failed', 'test', 'rejected'] as const;

/** `DELETE …/events`: the list's filters, a status that may be deleted, and a required upper bound in time. */
export const WebhookEventDeleteQuery = z.strictObject({
  ...eventFilters,
  status: z.enum(discardableStatuses).optional().openapi({
    description: 'Only events in this status; `pending` ones (still to be applied) are never deleted',
  }),
  received_at__lt: eventFilters.received_at__lt.unwrap().openapi({
    description:
      'Required: only events received before this instant (ISO 8601 date-time or YYYY-MM-DD), so an event that arrives while you decide is never deleted',
    example: '2026-11-28T12:00:00Z',
  }),
});

export const EventDeleteResult = z
  .object({
    deleted: z
      .number()
      .int()
      .openapi({ description: `Events deleted by this call (${MAX_EVENT_DELETE} at most)` }),
    remaining: z.number().int().openapi({
      description: 'Events that still match the filter and may be deleted: call again to delete them',
    }),
  })
  .openapi('WebhookEventDeleteResult');

/** The most failed events one bulk replay queues: a Queues sendBatch takes at most 100 messages. */
export const MAX_BULK_REPLAY = 100;

export const BulkReplay = z
  .object({
    replayed: z
      .number()
      .int()
      .openapi({ description: `Events queued again by this call (${MAX_BULK_REPLAY} at most)` }),
    remaining: z
      .number()
      .int()
      .openapi({ description: 'Failed events that still match the filter: call again to queue them' }),
    ids: z.array(Id).openapi({ description: 'The ids of the events queued again' }),
  })
  .openapi('WebhookEventBulkReplay');

export const SampleField = z
  .object({
    key: z.string().openapi({ example: 'lead.phone' }),
    example: z.union([z.string(), z.number(), z.boolean(), z.null()]),
    type: z.enum(fieldTypes).openapi({ description: 'A guess, to start the mapping from' }),
  })
  .openapi('WebhookSampleField');
