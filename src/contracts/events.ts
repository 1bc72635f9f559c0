import { z } from '@hono/zod-openapi';
import { Id, Timestamp } from './common';
import { idList, timeRange } from './filters';
import { MetaSchema, pageQuery, type Sorts } from './page';

/** The kinds of record the change journal tells of (src/db/schema.ts `journalRecordTypes`). */
export const RECORD_TYPES = ['company', 'contact', 'deal', 'task', 'user'] as const;
export const CHANGES = [
  'created',
  'updated',
  'deleted',
  'restored',
  'completed',
  'reopened',
  'erased',
] as const;

/** The most `type` values one feed request may list. */
export const MAX_TYPE_FILTERS = 20;

const TYPE_FILTER = new RegExp(`^(${RECORD_TYPES.join('|')})\\.(\\*|${CHANGES.join('|')})$`);

export const Actor = z
  .union([
    z.object({ type: z.literal('api_key'), id: Id }),
    z.object({ type: z.literal('webhook'), id: Id, event_id: Id }),
    z.object({ type: z.literal('panel'), key_id: Id }),
    z.object({ type: z.literal('system') }),
  ])
  .openapi('ChangeActor', { description: 'Who made the change' });

export const ChangeEvent = z
  .object({
    id: z.string().openapi({
      example: 'evt_3f9a0c7be41d2a9c5e8b7f10',
      description: 'Unique; the same on every delivery',
    }),
    type: z.string().openapi({ example: 'company.updated', description: '`<record_type>.<change>`' }),
    occurred_at: Timestamp,
    record_type: z.enum(RECORD_TYPES),
    record_id: Id,
    version: z
      .int()
      .openapi({ description: "The record's version after this change: 1 on create, +1 per change" }),
    actor: Actor,
    changed_fields: z.array(z.string()).nullable().openapi({
      description:
        'On updates (and task.completed, task.reopened, a restore by a webhook flow): the fields that changed',
    }),
    previous: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: 'With `changed_fields`: their values before the change' }),
    data: z.record(z.string(), z.unknown()).nullable().openapi({
      description: 'The record exactly as `GET` returned it after the change; null for `contact.erased`',
    }),
  })
  .openapi('ChangeEvent');

const typeFilter = z
  .string()
  .max(1000)
  .transform((value, ctx) => {
    const types = [...new Set(value.split(',').map((t) => t.trim()))];
    const wrong = types.find((t) => !TYPE_FILTER.test(t));
    if (wrong !== undefined || types.length > MAX_TYPE_FILTERS) {
      ctx.addIssue({
        code: 'custom',
        message:
          wrong !== undefined
            ? `Expected event types such as company.updated or company.*, comma-separated; "${wrong.slice(0, 40)}" is not one.`
            : `At most ${MAX_TYPE_FILTERS} types.`,
      });
      return z.NEVER;
    }
    return types;
  })
  .optional()
  .openapi({
    description: 'Comma-separated types, each exact (`company.updated`) or a record wildcard (`company.*`)',
    example: 'company.*,deal.created',
  });

/** The one sort: by commit order (`seq`), named for the time it stands for. */
export const feedSorts = { occurred_at: 'seq' } as const satisfies Sorts;

const paging = pageQuery(feedSorts, '-occurred_at');

export const EventQuery = z.strictObject({
  ...paging,
  type: typeFilter,
  record_type: z.enum(RECORD_TYPES).optional(),
  record_id: idList.openapi({ description: 'Comma-separated record ids, at most 100' }),
  ...timeRange('occurred_at'),
});

export const HistoryQuery = z.strictObject(pageQuery(feedSorts, 'occurred_at'));

export const ChangeEventPage = z
  .object({ data: z.array(ChangeEvent), meta: MetaSchema })
  .openapi('ChangeEventPage');
