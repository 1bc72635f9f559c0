import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { isoOrNull } from '../../contracts/common';
import { taskFields } from '../../contracts/tasks';
import { common, noReservedSegment, Template, withDefault } from '../../contracts/webhook-config';
import { render, templateKeys } from '../../core/templates';
import { BLANK } from '../../core/text';
import { type FieldValue, parseFieldDate } from '../../core/webhook-fields';
import { newRow } from '../../db/own';
import { inboundEventResults, tasks } from '../../db/schema';
import { newTaskOwner, taskSpec } from '../../model/tasks';
import type { ActionModule, ValidOf } from './action';

/** A named component: generators name an inline object after its place, and two places clashed. */
const TaskDue = z
  .strictObject({
    from: z
      .string()
      .min(1, BLANK)
      .max(200)
      .superRefine(noReservedSegment())
      .openapi({ description: '`received_at` or a date field key' }),
    days: withDefault(z.number().int().min(-36_500).max(36_500), 0),
    hours: withDefault(z.number().int().min(-876_000).max(876_000), 0),
  })
  .openapi('WebhookTaskDue', { description: 'When the task is due: `from` plus `days` and `hours`' });

const schema = z.strictObject({
  action: z.literal('create_task'),
  name: Template,
  category: Template,
  // Empty is no description, as the task's own contract stores it: kept as absent, so a form
  // (which cannot tell an empty box from none) reads the configuration back as it was.
  description: z
    .string()
    .max(10_000)
    .transform((text) => text || undefined)
    .optional(),
  due: TaskDue.optional(),
  ...common,
});

// The `/v1` write schema checks what the flow would write; its deal is the one the event wrote.
const TaskBody = z.strictObject(taskFields).omit({ deal_id: true });

type Valid = ValidOf<'create_task', z.infer<typeof TaskBody>>;

const HOUR_MS = 3_600_000;

const dateOf = (value: FieldValue | undefined) =>
  typeof value === 'string' ? parseFieldDate(value)?.ms : undefined;

/** Creates a task on the deal the flow created before it, due some time after a date of the event. */
export const createTask: ActionModule<'create_task', typeof schema, Valid, Valid> = {
  name: 'create_task',
  schema,
  once: false,
  check(action, { seen, declared, issue, undeclared }) {
    if (!seen.has('create_deal')) issue('A create_task needs a create_deal before it.', 'action');
    for (const key of templateKeys(action.name)) undeclared(key, 'name');
    for (const key of templateKeys(action.category)) undeclared(key, 'category');
    const from = action.due?.from;
    if (from !== undefined && from !== 'received_at' && declared.get(from)?.type !== 'date')
      issue('Expected received_at or a field of type date.', 'due', 'from');
  },
  needs: { action: 'create_deal', reason: 'no deal was created before it' },
  plan(action, { index, values, receivedAt, lookup, warn }) {
    const { due } = action;
    const from = due && (due.from === 'received_at' ? receivedAt : dateOf(values.get(due.from)));
    if (due && from === undefined) {
      warn({
        path: `flows.${index}.due.from`,
        code: 'no_due_date',
        message: `The event has no usable "${due.from}": the task was created without a due date.`,
      });
    }
    const body = {
      name: render(action.name, lookup),
      category: render(action.category, lookup),
      ...(action.description !== undefined && { description: action.description }),
      due_date:
        due && from !== undefined
          ? new Date(from + (due.days * 24 + due.hours) * HOUR_MS).toISOString()
          : null,
    };
    return { body };
  },
  record: 'task',
  body: TaskBody,
  essential: ['name', 'category'],
  statements(w, step) {
    const { db, accountId } = w;
    const owner = w.owner(step);
    w.push(
      ...(taskSpec.before?.(db, step.body, accountId) ?? []),
      db
        .insert(tasks)
        // Its deal is the one this event wrote before it, known only inside the batch: the
        // placeholder id is replaced by the statement that finds it.
        .values({
          ...newRow(taskSpec, { ...step.body, deal_id: 0 }, accountId, w.now),
          dealId: w.result('dealId'),
        }),
      // An update leaves last_insert_rowid() alone: the owner row below still finds the task.
      w.setResult({ taskIds: sql`json_insert(${inboundEventResults.taskIds}, '$[#]', last_insert_rowid())` }),
      ...(owner === undefined ? [] : [newTaskOwner(db, accountId, sql`last_insert_rowid()`, owner)]),
    );
  },
  preview(step, owner, out) {
    out.tasks.push({
      action: 'create',
      fields: { ...step.body, ...owner, due_date: isoOrNull(step.body.due_date ?? null) },
    });
  },
  panel: { name: 'required', category: 'required', description: 'optional', due: 'optional' },
  labels: { 'pt-BR': 'Criar tarefa', en: 'Create task' },
};
