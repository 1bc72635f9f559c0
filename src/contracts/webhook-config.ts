import { z } from '@hono/zod-openapi';
import { MAX_DEPTH } from '../core/json-paths';
import { templateKeys } from '../core/templates';
import { NOT_BLANK } from '../core/text';
import { compileFormat, fieldTypes } from '../core/webhook-fields';
import type { Refs } from '../db/refs';
import { Id } from './common';

/**
 * A dot path into the sender's JSON: `nome`, `lead.phone`, `answers.0.text`. No deeper than ingest
 * lets a body nest, or it could never match.
 */
const Key = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'Expected a dot path such as `lead.phone`.')
  .refine(
    (key) => key.split('.').length <= MAX_DEPTH,
    `At most ${MAX_DEPTH} levels: ingest refuses bodies nested deeper.`,
  )
  .openapi({ example: 'telefone' });

// `__proto__` is refused as a custom field by /v1 too: an object would drop it without a word.
const CUSTOM_TARGET = /^(contact|deal)\.custom_fields\.(?!__proto__$)([A-Za-z0-9_-]{1,100})$/;

/** The record field a webhook field fills, and the field types that can fill it. */
const fixedTargets = {
  'contact.name': ['string'],
  'contact.email': ['email'],
  'contact.phone': ['phone'],
  'deal.name': ['string'],
  'deal.value': ['number'],
  'company.name': ['string'],
  'company.cnpj': ['string'],
} as const satisfies Record<string, readonly (typeof fieldTypes)[number][]>;

export type Target = keyof typeof fixedTargets | `${'contact' | 'deal'}.custom_fields.${string}`;

const Target = z
  .string()
  .max(200)
  .refine(
    (value) => Object.hasOwn(fixedTargets, value) || CUSTOM_TARGET.test(value),
    `Expected one of ${Object.keys(fixedTargets).join(', ')}, contact.custom_fields.<name> or deal.custom_fields.<name>.`,
  )
  .transform((value) => value as Target)
  .openapi({ example: 'contact.phone' });

/** A date format of a sender's: `DD/MM/YYYY`, `MM-DD-YYYY HH:mm`, read as UTC. */
const DateFormat = z
  .string()
  .min(1)
  .max(40)
  .superRefine((format, ctx) => {
    const compiled = compileFormat(format);
    if ('error' in compiled) ctx.addIssue({ code: 'custom', message: compiled.error });
  })
  .openapi({ example: 'DD/MM/YYYY' });

export const FieldMapping = z
  .strictObject({
    key: Key,
    type: z.enum(fieldTypes),
    required: withDefault(z.boolean(), false),
    target: Target.optional().openapi({ description: 'Omitted: validated and usable in templates only' }),
    formats: z.array(DateFormat).min(1).max(5).optional().openapi({
      description:
        'For a `date` field: more formats to accept after RFC 3339 and YYYY-MM-DD, tried in order. Tokens YYYY, MM, DD, HH, mm, ss; separators / - . : , T and space; read as UTC',
    }),
  })
  .openapi('WebhookField');

const Owner = z
  .union([z.strictObject({ user_id: Id }), z.strictObject({ round_robin: z.array(Id).min(1).max(100) })])
  .openapi('WebhookOwner', {
    description: 'A user of the account, or a fair rotation over several (per webhook and action)',
  });

const When = z
  .strictObject({
    field: Key,
    op: z.enum(['exists', 'equals', 'not_equals', 'contains']),
    value: z.union([z.string().max(1000), z.number(), z.boolean()]).optional(),
  })
  .refine((when) => when.op === 'exists' || when.value !== undefined, {
    message: 'equals, not_equals and contains need a value.',
    path: ['value'],
  })
  .openapi('WebhookCondition');

/**
 * An optional field the API fills in with `value`. Not zod's `.default()`: the document would carry
 * the `default` keyword, which openapi-typescript (by default) turns into a required property even
 * in a request body that may omit it (its issue #2489). The default is stated in the description,
 * as for `enabled` and `mode`.
 */
function withDefault<T extends z.ZodType>(schema: T, value: z.output<T>) {
  return schema
    .optional()
    .transform((given) => given ?? value)
    .openapi({ description: `Default ${JSON.stringify(value)}` });
}

/** A text with `{{key}}` placeholders. */
const Template = z.string().trim().min(1).max(500).openapi({ pattern: NOT_BLANK });

const common = { when: When.optional(), owner: Owner.optional() };

export const Action = z
  .discriminatedUnion('action', [
    z.strictObject({
      action: z.literal('upsert_contact'),
      match_on: withDefault(
        z
          .array(z.enum(['phone', 'email']))
          .min(1)
          .max(2),
        ['phone', 'email'],
      ),
      ...common,
    }),
    z.strictObject({ action: z.literal('upsert_company'), ...common }),
    z.strictObject({
      action: z.literal('create_deal'),
      name: Template.optional().openapi({ description: 'Default: the field mapped to `deal.name`' }),
      ...common,
    }),
    z.strictObject({
      action: z.literal('create_task'),
      name: Template,
      category: Template,
      description: z.string().max(10_000).optional(),
      due: z
        .strictObject({
          from: z.string().min(1).max(200).openapi({ description: '`received_at` or a date field key' }),
          days: withDefault(z.number().int().min(-36_500).max(36_500), 0),
          hours: withDefault(z.number().int().min(-876_000).max(876_000), 0),
        })
        .optional(),
      ...common,
    }),
  ])
  .openapi('WebhookAction');

export type FieldMapping = z.infer<typeof FieldMapping>;
export type Action = z.infer<typeof Action>;
export type Owner = z.infer<typeof Owner>;
export type When = z.infer<typeof When>;

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
