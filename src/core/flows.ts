import type { FieldError } from './errors';
import { render } from './templates';
import { normalizeText } from './text';
import type { Action, FieldMapping, Owner, Target, When } from './webhook-config';
import { type FieldValue, parseFieldDate } from './webhook-fields';

/** An event's validated field values, by key. */
export type Values = ReadonlyMap<string, FieldValue>;

type Body = Record<string, unknown>;

/** One action to run, with the body it writes in the shape of the `/v1` resource it writes. */
export type Step =
  | { action: 'upsert_contact'; index: number; owner?: Owner; body: Body; match?: Match }
  | { action: 'upsert_company'; index: number; owner?: Owner; body: Body }
  | { action: 'create_deal'; index: number; owner?: Owner; body: Body }
  | { action: 'create_task'; index: number; owner?: Owner; body: Body };

/** How an existing contact is found: its phone in E.164, or its email case-insensitively. */
export type Match = { by: 'phone' | 'email'; value: string };

/**
 * The steps to run, the actions that do not run, and a warning for each action that runs in part or
 * not at all for want of a value of the event (an action whose `when` does not hold is not one).
 */
export type Plan = {
  steps: Step[];
  skipped: { index: number; action: string; reason: string }[];
  warnings: FieldError[];
};

/** The warning of an action skipped for want of what it needs. */
export const skippedWarning = (index: number, action: string, reason: string): FieldError => ({
  path: `flows.${index}`,
  code: 'step_skipped',
  message: `${action} did not run: ${reason}.`,
});

const HOUR_MS = 3_600_000;

function holds(when: When, values: Values): boolean {
  const value = values.get(when.field);
  switch (when.op) {
    case 'exists':
      return value !== undefined && value !== '';
    case 'equals':
      return value === when.value;
    case 'not_equals':
      return value !== when.value;
    case 'contains':
      return value !== undefined && normalizeText(String(value)).includes(normalizeText(String(when.value)));
  }
}

/**
 * The values mapped to one record (`contact`, `deal`, `company`) as a `/v1` body: `contact.phone`
 * becomes `phone`, `deal.custom_fields.x` becomes `custom_fields.x`.
 */
function mapped(fields: readonly FieldMapping[], values: Values, record: string): Body {
  const body: Body = {};
  // Its keys come from the configuration: no prototype, whatever a key is named.
  const custom: Record<string, FieldValue> = Object.create(null);
  for (const { key, target } of fields) {
    const value = values.get(key);
    if (!target?.startsWith(`${record}.`) || value === undefined) continue;
    const field = target.slice(record.length + 1);
    if (field.startsWith('custom_fields.')) custom[field.slice('custom_fields.'.length)] = value;
    else body[field] = value;
  }
  if (Object.keys(custom).length) body.custom_fields = custom;
  return body;
}

const mappedValue = (fields: readonly FieldMapping[], values: Values, target: Target) => {
  const key = fields.find((f) => f.target === target)?.key;
  return key === undefined ? undefined : values.get(key);
};

/**
 * What an event's flows do, decided from its values alone: which actions run (their `when` holds),
 * and the body each writes. Pure, so test mode previews exactly what production would write.
 */
export function planFlows(
  config: { fields: readonly FieldMapping[]; flows: readonly Action[] },
  values: Values,
  receivedAt: number,
): Plan {
  const { fields } = config;
  const lookup = (key: string) =>
    key === 'received_at' ? new Date(receivedAt).toISOString() : values.get(key);
  const plan: Plan = { steps: [], skipped: [], warnings: [] };
  let deal = false;
  for (const [index, action] of config.flows.entries()) {
    const skip = (reason: string, warn = true) => {
      plan.skipped.push({ index, action: action.action, reason });
      if (warn) plan.warnings.push(skippedWarning(index, action.action, reason));
    };
    if (action.when && !holds(action.when, values)) {
      skip('its condition does not hold', false);
      continue;
    }
    const owner = action.owner;
    switch (action.action) {
      case 'upsert_contact': {
        const body = mapped(fields, values, 'contact');
        const by = action.match_on.find((key) => mappedValue(fields, values, `contact.${key}`) !== undefined);
        const value = by && mappedValue(fields, values, `contact.${by}`);
        const match = by && typeof value === 'string' ? { by, value: normalizeText(value) } : undefined;
        plan.steps.push({ action: action.action, index, owner, body, ...(match && { match }) });
        break;
      }
      case 'upsert_company':
        if (mappedValue(fields, values, 'company.cnpj') === undefined) skip('the event has no CNPJ');
        else
          plan.steps.push({ action: action.action, index, owner, body: mapped(fields, values, 'company') });
        break;
      case 'create_deal': {
        const body = mapped(fields, values, 'deal');
        if (action.name !== undefined) body.name = render(action.name, lookup);
        deal = true;
        plan.steps.push({ action: action.action, index, owner, body });
        break;
      }
      case 'create_task': {
        if (!deal) {
          skip('no deal was created before it');
          break;
        }
        const { due } = action;
        const from = due && (due.from === 'received_at' ? receivedAt : dateOf(values.get(due.from)));
        if (due && from === undefined) {
          plan.warnings.push({
            path: `flows.${index}.due.from`,
            code: 'no_due_date',
            message: `The event has no usable "${due.from}": the task was created without a due date.`,
          });
        }
        const body: Body = {
          name: render(action.name, lookup),
          category: render(action.category, lookup),
          ...(action.description !== undefined && { description: action.description }),
          due_date:
            due && from !== undefined
              ? new Date(from + (due.days * 24 + due.hours) * HOUR_MS).toISOString()
              : null,
        };
        plan.steps.push({ action: action.action, index, owner, body });
        break;
      }
    }
  }
  return plan;
}

const dateOf = (value: FieldValue | undefined) =>
  typeof value === 'string' ? parseFieldDate(value)?.ms : undefined;
