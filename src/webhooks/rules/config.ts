import type { Refs } from '../../core/refs';
import { type Said, said } from '../../core/said';
import type { FieldMapping, Owner, Target, When } from '../config/schema';
import type { Action, Rejection } from '../contract/schemas';
import { fieldTypes } from './fields';

// The configuration's shapes have one definition, the zod contract (webhooks/config/schema.ts,
// webhooks/contract/schemas.ts): these are its output types, imported as types only, which the
// build erases, so this folder still imports no package and nothing above it at runtime.
export type { Action, FieldMapping, Owner, Rejection, Target, When };

/** The record field a webhook field fills, and the field types that can fill it. */
export const fixedTargets = {
  'contact.name': ['string'],
  'contact.email': ['email'],
  'contact.phone': ['phone'],
  'deal.name': ['string'],
  'deal.value': ['number'],
  'company.name': ['string'],
  'company.cnpj': ['cnpj', 'string'],
} as const satisfies Record<string, readonly (typeof fieldTypes)[number][]>;

/** The records whose custom fields a webhook field may fill (`contact.custom_fields.<name>`). */
export const customFieldRecords = ['contact', 'deal'] as const;

/** How a `when` compares its field: the contract, the flows and the panel take them from here. */
export const whenOps = ['exists', 'equals', 'not_equals', 'contains'] as const;

export type Issue = Said & { path: (string | number)[] };

/** What an action's own config checks see: the configuration around it and where to report. */
export type CheckContext = {
  flows: readonly Action[];
  /** The action's position in the flows. */
  index: number;
  /** The actions met before it (of those that may appear once). */
  seen: ReadonlySet<string>;
  declared: ReadonlyMap<string, FieldMapping>;
  /** Whether a field fills this target. */
  mapped: (target: string) => boolean;
  /** Reports a problem at a path inside the action (`issue(x, 'name')` is at `flows.<i>.name`). */
  issue: (problem: Said, ...rest: Issue['path']) => void;
  /** Reports a template key that names no declared field (nor `received_at`). */
  undeclared: (key: string, ...rest: Issue['path']) => void;
};

/** The checks of one kind of action: whether it may appear once only, and its own rules. */
export type ActionRules = { once: boolean; check: (action: Action, ctx: CheckContext) => void };

function fieldIssues(fields: FieldMapping[], issues: Issue[]): Map<string, number> {
  const targets = new Map<string, number>();
  fields.forEach((field, i) => {
    if (fields.findIndex((f) => f.key === field.key) !== i) {
      issues.push({ path: ['fields', i, 'key'], ...said('key_declared_twice', { key: field.key }) });
    }
    if (field.formats && field.type !== 'date') {
      issues.push({ path: ['fields', i, 'formats'], ...said('formats_need_date', { type: field.type }) });
    }
    if (field.locale && field.type !== 'number' && field.type !== 'boolean') {
      issues.push({ path: ['fields', i, 'locale'], ...said('locale_needs_number', { type: field.type }) });
    }
    if (!field.target) return;
    if (targets.has(field.target)) {
      issues.push({ path: ['fields', i, 'target'], ...said('target_taken', { target: field.target }) });
    }
    targets.set(field.target, i);
    // Own keys only: this also runs on a target the schema refused, such as `valueOf`.
    const allowed: readonly string[] = Object.hasOwn(fixedTargets, field.target)
      ? fixedTargets[field.target as keyof typeof fixedTargets]
      : fieldTypes;
    if (!allowed.includes(field.type)) {
      issues.push({
        path: ['fields', i, 'type'],
        ...said('target_type', { target: field.target, type: field.type, types: allowed }),
      });
    }
  });
  return targets;
}

function whenIssues(when: When, declared: ReadonlyMap<string, FieldMapping>, at: CheckContext['issue']) {
  const { field, op, value } = when;
  const type = declared.get(field)?.type;
  if (!type) at(said('undeclared_field', { key: field }), 'when', 'field');
  // A value of another kind than the field's could never be equal to it.
  const kind = type === 'number' || type === 'boolean' ? type : 'string';
  if (type && value !== undefined && op !== 'exists' && op !== 'contains' && typeof value !== kind) {
    at(said('when_type_mismatch', { key: field, type, kind }), 'when', 'value');
  }
}

/**
 * The rules that tie fields and flows together, checked on every write of a configuration: the
 * fields' own, then for each action its `when` and its kind's `rules` (src/webhooks/actions/).
 */
export function configIssues(
  fields: FieldMapping[],
  flows: Action[],
  rules: (action: Action) => ActionRules,
): Issue[] {
  const issues: Issue[] = [];
  const declared = new Map(fields.map((f) => [f.key, f]));
  const targets = fieldIssues(fields, issues);
  const seen = new Set<string>();
  flows.forEach((action, index) => {
    const issue = (problem: Said, ...rest: Issue['path']) =>
      issues.push({ path: ['flows', index, ...rest], ...problem });
    const { once, check } = rules(action);
    if (once) {
      if (seen.has(action.action)) issue(said('action_once', { action: action.action }), 'action');
      seen.add(action.action);
    }
    if (action.when) whenIssues(action.when, declared, issue);
    const undeclared = (key: string, ...rest: Issue['path']) => {
      if (key !== 'received_at' && !declared.has(key)) issue(said('undeclared_field', { key }), ...rest);
    };
    const mapped = (target: string) => targets.has(target);
    check(action, { flows, index, seen, declared, mapped, issue, undeclared });
  });
  return issues;
}

/** The users a configuration names, by the body path that names them, to check in the account. */
export function ownerRefs(flows: readonly { owner?: Owner | undefined }[]): Refs {
  const refs: Refs = {};
  flows.forEach(({ owner }, i) => {
    if (owner && 'user_id' in owner) refs[`flows.${i}.owner.user_id`] = ['user', owner.user_id];
    if (owner && 'round_robin' in owner) refs[`flows.${i}.owner.round_robin`] = ['user', owner.round_robin];
  });
  return refs;
}
