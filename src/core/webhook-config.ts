import type { FieldError } from './errors';
import type { Refs } from './refs';
import { templateKeys } from './templates';
import { fieldTypes } from './webhook-fields';

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

export type Target = keyof typeof fixedTargets | `${'contact' | 'deal'}.custom_fields.${string}`;

/** The problem a refused webhook call was answered with (without its request id), and the start of its body. */
export type Rejection = {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[] | undefined;
  body: string | null;
};

type FieldType = (typeof fieldTypes)[number];

/**
 * A webhook field as stored (the output of the WebhookField contract, which is checked against
 * this type): how one key of the sender's body is read and which record field it fills.
 */
export type FieldMapping = {
  key: string;
  type: FieldType;
  required: boolean;
  target?: Target | undefined;
  formats?: string[] | undefined;
};

export type Owner = { user_id: number } | { round_robin: number[] };

export type When = {
  field: string;
  op: 'exists' | 'equals' | 'not_equals' | 'contains';
  value?: string | number | boolean | undefined;
};

type Common = { when?: When | undefined; owner?: Owner | undefined };

/** A step of a webhook's flow as stored (the output of the WebhookAction contract). */
export type Action = Common &
  (
    | { action: 'upsert_contact'; match_on: ('phone' | 'email')[] }
    | { action: 'upsert_company' }
    | { action: 'create_deal'; name?: string | undefined }
    | {
        action: 'create_task';
        name: string;
        category: string;
        description?: string | undefined;
        due?: { from: string; days: number; hours: number } | undefined;
      }
  );

export type Issue = { path: (string | number)[]; message: string };

/** The rules that tie fields and flows together, checked on every write of a configuration. */
export function configIssues(fields: FieldMapping[], flows: Action[]): Issue[] {
  const issues: Issue[] = [];
  const declared = new Map(fields.map((f) => [f.key, f]));
  const targets = new Map<string, number>();
  fields.forEach((field, i) => {
    if (fields.findIndex((f) => f.key === field.key) !== i) {
      issues.push({ path: ['fields', i, 'key'], message: `The key "${field.key}" is declared twice.` });
    }
    if (field.formats && field.type !== 'date') {
      issues.push({ path: ['fields', i, 'formats'], message: 'Only a field of type date takes formats.' });
    }
    if (!field.target) return;
    if (targets.has(field.target)) {
      issues.push({ path: ['fields', i, 'target'], message: `Another field already fills ${field.target}.` });
    }
    targets.set(field.target, i);
    // Own keys only: this also runs on a target the schema refused, such as `valueOf`.
    const allowed: readonly string[] = Object.hasOwn(fixedTargets, field.target)
      ? fixedTargets[field.target as keyof typeof fixedTargets]
      : fieldTypes;
    if (!allowed.includes(field.type)) {
      issues.push({
        path: ['fields', i, 'type'],
        message: `${field.target} takes a field of type ${allowed.join(' or ')}.`,
      });
    }
  });
  const mapped = (target: string) => targets.has(target);
  const undeclared = (path: Issue['path'], key: string) => {
    if (key !== 'received_at' && !declared.has(key))
      issues.push({ path, message: `"${key}" is not a declared field.` });
  };
  const seen = new Set<string>();
  flows.forEach((action, i) => {
    const at = (...rest: Issue['path']) => ['flows', i, ...rest];
    if (action.action !== 'create_task') {
      if (seen.has(action.action)) issues.push({ path: at('action'), message: `Only one ${action.action}.` });
      seen.add(action.action);
    }
    if (action.when) {
      const { field, op, value } = action.when;
      const type = declared.get(field)?.type;
      if (!type) issues.push({ path: at('when', 'field'), message: `"${field}" is not a declared field.` });
      // A value of another kind than the field's could never be equal to it.
      const kind = type === 'number' || type === 'boolean' ? type : 'string';
      if (type && value !== undefined && op !== 'exists' && op !== 'contains' && typeof value !== kind) {
        issues.push({
          path: at('when', 'value'),
          message: `"${field}" is a ${type}: compare it with a ${kind}.`,
        });
      }
    }
    switch (action.action) {
      case 'upsert_contact':
        action.match_on.forEach((key, j) => {
          if (!mapped(`contact.${key}`))
            issues.push({ path: at('match_on', j), message: `No field is mapped to contact.${key}.` });
        });
        break;
      case 'upsert_company':
        if (!mapped('company.cnpj'))
          issues.push({ path: at('action'), message: 'No field is mapped to company.cnpj.' });
        break;
      case 'create_deal':
        // The deal links the contact and the company the flow has found or made before it.
        for (const earlier of ['upsert_contact', 'upsert_company'] as const) {
          if (flows.slice(i + 1).some((a) => a.action === earlier))
            issues.push({ path: at('action'), message: `create_deal must come after ${earlier}.` });
        }
        if (action.name === undefined && !mapped('deal.name'))
          issues.push({ path: at('name'), message: 'Give a name template or map a field to deal.name.' });
        if (action.name) for (const key of templateKeys(action.name)) undeclared(at('name'), key);
        break;
      case 'create_task': {
        if (!seen.has('create_deal'))
          issues.push({ path: at('action'), message: 'A create_task needs a create_deal before it.' });
        for (const key of templateKeys(action.name)) undeclared(at('name'), key);
        for (const key of templateKeys(action.category)) undeclared(at('category'), key);
        const from = action.due?.from;
        if (from !== undefined && from !== 'received_at' && declared.get(from)?.type !== 'date') {
          issues.push({ path: at('due', 'from'), message: 'Expected received_at or a field of type date.' });
        }
        break;
      }
    }
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
