import type { FieldError } from '../../core/errors';
import { type Cause, reason as reasonOf, said } from '../../core/said';
import { normalizeText } from '../../core/text';
import type { Action, FieldMapping, Owner, Target, When } from './config';
import type { FieldValue } from './fields';

/** An event's validated field values, by key. */
export type Values = ReadonlyMap<string, FieldValue>;

export type Body = Record<string, unknown>;

/** One action to run, with the body it writes in the shape of the `/v1` resource it writes. */
export type Step = {
  action: Action['action'];
  index: number;
  owner?: Owner | undefined;
  body: Body;
  /** How an existing record is found (upsert_contact). */
  match?: Match;
};

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

/** Why an action does not run: a code and its params (src/core/said.ts), and its English words. */
export type Reason = Cause & { message: string };

/** The warning of an action skipped for want of what it needs. */
export const skippedWarning = (index: number, action: string, reason: Reason): FieldError => ({
  path: `flows.${index}`,
  ...said('step_skipped', { action, index, reason: { code: reason.code, params: reason.params ?? {} } }),
});

/** Whether a `when` holds for the event's values. */
export function holds(when: When, values: Values): boolean {
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
export function mapped(fields: readonly FieldMapping[], values: Values, record: string): Body {
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

export const mappedValue = (fields: readonly FieldMapping[], values: Values, target: Target) => {
  const key = fields.find((f) => f.target === target)?.key;
  return key === undefined ? undefined : values.get(key);
};

/** What an action's plan sees: the event's values, read the ways flows read them. */
export type PlanContext = {
  /** The action's position in the flows. */
  index: number;
  /** A template's value: a field's, or the time the event was received at `received_at`. */
  lookup: (key: string) => FieldValue | undefined;
  /** The values mapped to one record, as a `/v1` body (see mapped()). */
  mapped: (record: string) => Body;
  /** The value of the field mapped to `target`. */
  mappedValue: (target: Target) => FieldValue | undefined;
  values: Values;
  receivedAt: number;
  /** The account's IANA time zone: the day a date with no time stands for. */
  zone: string;
  /** Adds a warning about the action without skipping it. */
  warn: (warning: FieldError) => void;
};

/** The body one action writes (and how its record is found), or why it does not run. */
export type Planned = { body: Body; match?: Match | undefined } | { skip: Reason };

/** How one kind of action is planned: the action it needs run before it, and its body. */
export type PlanRules = {
  needs?: { action: Action['action']; reason: Reason } | undefined;
  plan: (action: Action, ctx: PlanContext) => Planned;
};

/**
 * What an event's flows do, decided from its values alone: which actions run (their `when` holds),
 * and the body each writes (its kind's `rules`, src/webhooks/actions/). Pure, so test mode
 * previews exactly what production would write.
 */
export function planFlows(
  config: { fields: readonly FieldMapping[]; flows: readonly Action[] },
  values: Values,
  when: { receivedAt: number; zone: string },
  rules: (action: Action) => PlanRules,
): Plan {
  const { receivedAt, zone } = when;
  const { fields } = config;
  const plan: Plan = { steps: [], skipped: [], warnings: [] };
  const ctx: Omit<PlanContext, 'index'> = {
    lookup: (key) => (key === 'received_at' ? new Date(receivedAt).toISOString() : values.get(key)),
    mapped: (record) => mapped(fields, values, record),
    mappedValue: (target) => mappedValue(fields, values, target),
    values,
    receivedAt,
    zone,
    warn: (warning) => plan.warnings.push(warning),
  };
  const ran = new Set<string>();
  for (const [index, action] of config.flows.entries()) {
    const skip = (reason: Reason, warn = true) => {
      plan.skipped.push({ index, action: action.action, reason: reason.message });
      if (warn) plan.warnings.push(skippedWarning(index, action.action, reason));
    };
    if (action.when && !holds(action.when, values)) {
      skip(reasonOf('condition_false'), false);
      continue;
    }
    const { needs, plan: planOne } = rules(action);
    if (needs && !ran.has(needs.action)) {
      skip(needs.reason);
      continue;
    }
    const planned = planOne(action, { ...ctx, index });
    if ('skip' in planned) {
      skip(planned.skip);
      continue;
    }
    const { body, match } = planned;
    plan.steps.push({ action: action.action, index, owner: action.owner, body, ...(match && { match }) });
    ran.add(action.action);
  }
  return plan;
}

/** The key of the webhook field whose value filled `record.path`, or the action's own path. */
export const sourceOf = (fields: readonly FieldMapping[], record: string, index: number, path: string) =>
  fields.find((f) => f.target === `${record}.${path}`)?.key ?? `flows.${index}.${path}`;
