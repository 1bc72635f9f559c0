import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { isoOrNull } from '../../contracts/common';
import { taskFields } from '../../contracts/tasks';
import { reason, said } from '../../core/said';
import { BLANK } from '../../core/text';
import { dayStartIn } from '../../core/zones';
import { newRow } from '../../db/own';
import { inboundEventResults, tasks } from '../../db/schema';
import { newTaskOwner, taskSpec } from '../../model/tasks';
import { common, noReservedSegment, Template, withDefault } from '../config/schema';
import { type FieldValue, parseFieldDate } from '../rules/fields';
import { render, templateKeys } from '../rules/templates';
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
const DAY_MS = 24 * HOUR_MS;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

type Due = { days: number; hours: number };

/**
 * When a task is due, `due` after `from` (`received_at`'s instant, or a date field's canonical
 * text): after an instant, that many hours later; after a date with no time (`2026-11-24`), which
 * stands for that day in the account's zone, `days` later on the calendar, from the start of that
 * day there, plus `hours`, so the task lands on the day a person in the zone counts to.
 */
function dueAt(from: number | string, { days, hours }: Due, zone: string): string | undefined {
  if (typeof from === 'number') return new Date(from + (days * 24 + hours) * HOUR_MS).toISOString();
  if (!DATE_ONLY.test(from)) {
    const ms = parseFieldDate(from)?.ms;
    return ms === undefined ? undefined : dueAt(ms, { days, hours }, zone);
  }
  const day = new Date(Date.parse(`${from}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
  const start = dayStartIn(day, zone);
  return start === undefined ? undefined : new Date(start + hours * HOUR_MS).toISOString();
}

/** Where a due date counts from: `received_at`, or a date field's value as text. */
const fromOf = (key: string, value: FieldValue | undefined, receivedAt: number) =>
  key === 'received_at' ? receivedAt : typeof value === 'string' ? value : undefined;

/** Creates a task on the deal the flow created before it, due some time after a date of the event. */
export const createTask: ActionModule<'create_task', typeof schema, Valid, Valid> = {
  name: 'create_task',
  schema,
  once: false,
  check(action, { seen, declared, issue, undeclared }) {
    if (!seen.has('create_deal')) issue(said('task_needs_deal'), 'action');
    for (const key of templateKeys(action.name)) undeclared(key, 'name');
    for (const key of templateKeys(action.category)) undeclared(key, 'category');
    const from = action.due?.from;
    if (from !== undefined && from !== 'received_at' && declared.get(from)?.type !== 'date')
      issue(said('due_from_date', { key: from }), 'due', 'from');
  },
  needs: { action: 'create_deal', reason: reason('no_deal') },
  plan(action, { index, values, receivedAt, zone, lookup, warn }) {
    const { due } = action;
    const from = due && fromOf(due.from, values.get(due.from), receivedAt);
    const dueDate = due && from !== undefined ? dueAt(from, due, zone) : undefined;
    if (due && dueDate === undefined) {
      warn({ path: `flows.${index}.due.from`, ...said('no_due_date', { key: due.from }) });
    }
    const body = {
      name: render(action.name, lookup),
      category: render(action.category, lookup),
      ...(action.description !== undefined && { description: action.description }),
      due_date: dueDate ?? null,
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
          ...newRow(db, taskSpec, { ...step.body, deal_id: 0 }, accountId, w.now),
          dealId: w.result('dealId'),
        }),
      // An update leaves last_insert_rowid() alone: the owner row below still finds the task.
      w.setResult({ taskIds: sql`json_insert(${inboundEventResults.taskIds}, '$[#]', last_insert_rowid())` }),
      ...(owner === undefined ? [] : [newTaskOwner(db, accountId, sql`last_insert_rowid()`, owner)]),
    );
  },
  journal: (w) =>
    taskSpec.journal.after(
      w.db,
      and(
        eq(tasks.accountId, w.accountId),
        sql`${tasks.id} in (select value from json_each(${w.result('taskIds')}))`,
      ),
      w.actor,
      w.now,
    ),
  preview(step, owner, out) {
    out.tasks.push({
      action: 'create',
      fields: { ...step.body, ...owner, due_date: isoOrNull(step.body.due_date ?? null) },
    });
  },
  panel: { name: 'required', category: 'required', description: 'optional', due: 'optional' },
  labels: { 'pt-BR': 'Criar tarefa', en: 'Create task' },
};
