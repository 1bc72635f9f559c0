import { z } from '@hono/zod-openapi';
import {
  DateTimeIn,
  DeletedAt,
  ExternalId,
  ExternalIdOut,
  Id,
  Name,
  OptionalText,
  queryFlag,
  Timestamp,
  trashQuery,
  writeBodies,
} from './common';
import { exactFilter, externalIdFilter, idList, timeRange } from './filters';
import { pageQuery, type Sorts } from './page';
import { keyedBodies } from './relation-keys';

const DueDate = DateTimeIn('2026-12-01T10:00:00-03:00');

export const taskFields = {
  deal_id: Id.openapi({ description: 'A deal of the account; cannot change once set' }),
  name: Name.openapi({ description: 'The title' }),
  description: OptionalText(10_000),
  due_date: DueDate.nullable()
    .optional()
    .openapi({ description: 'Any offset; returned in UTC. null clears it' }),
  category: Name.openapi({
    description:
      'The category name; created for the account on first use, matched case-insensitively after that',
  }),
  owner_id: Id.nullable().optional().openapi({
    writeOnly: true,
    description: 'Replaces all owners with this user of the account; null removes them all',
  }),
  is_completed: z.boolean().optional().openapi({ description: '`true` completes, `false` reopens' }),
  external_id: ExternalId,
};

const readOnly = {
  owner_ids: 'Write owner_id: it replaces all owners with that user (null removes them).',
  completed_at: 'Write is_completed: true sets it, false clears it.',
};
const bodies = writeBodies(taskFields, readOnly);
// The fields alone (the model, the flows, a batch item's fields) and the routes' bodies, which add
// relations by natural key: a new task's deal by `deal_id` or by `deal: { external_id }`.
export const TaskCreate = bodies.create;
export const TaskUpdate = bodies.update;
const requests = keyedBodies(
  'task',
  {
    ...taskFields,
    deal_id: taskFields.deal_id.optional().openapi({
      description: 'A deal of the account; cannot change once set. A new task needs it or `deal`',
    }),
  },
  readOnly,
);
export const TaskCreateRequest = requests.create
  .superRefine(
    (body, ctx) => {
      if (body?.deal_id === undefined && body?.deal === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['deal_id'],
          message: 'This field is required (or name the deal by `deal: { external_id }`).',
          params: { code: 'required' },
        });
      }
    },
    // Run even when the object already failed, so every missing field is named at once.
    { when: () => true },
  )
  .openapi('TaskCreate');
export const TaskUpdateRequest = requests.update.openapi('TaskUpdate');

export const Task = z
  .object({
    id: Id,
    deal_id: Id,
    name: z.string(),
    description: z.string().nullable(),
    due_date: Timestamp.nullable(),
    category: z.string().openapi({ description: 'The category name, as first spelled in the account' }),
    owner_ids: z.array(Id).openapi({ readOnly: true, description: 'Ascending; `[]` when none' }),
    is_completed: z.boolean(),
    completed_at: Timestamp.nullable().openapi({ description: 'When last completed; null while open' }),
    external_id: ExternalIdOut,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: DeletedAt,
  })
  .openapi('Task');

/** Sortable fields and the row property each orders by; tasks without a due date come last. */
export const taskSorts = {
  due_date: 'dueDate',
  deal_id: 'dealId',
  updated_at: 'updatedAt',
  created_at: 'createdAt',
} as const satisfies Sorts;

export const TaskQuery = z.strictObject({
  ...trashQuery,
  ...pageQuery(taskSorts),
  deal_id: idList,
  category: exactFilter.openapi({ description: 'Category name, exact match, case-insensitive' }),
  owner_id: idList.openapi({ description: 'Tasks with ANY of these owners' }),
  ...timeRange('due_date'),
  is_completed: queryFlag(),
  external_id: externalIdFilter,
});

export const TaskCategory = z
  .object({
    id: Id,
    name: z.string(),
    task_count: z.number().int().openapi({ description: "The account's tasks in this category" }),
  })
  .openapi('TaskCategory');

const { limit, cursor } = pageQuery({ name: 'nameNorm' });

export const TaskCategoryQuery = z.strictObject({ limit, cursor });
