import { z } from '@hono/zod-openapi';
import { Id } from '../../contracts/common';
import { saidIssue } from '../../contracts/field-errors';
import { MAX_DEPTH } from '../../core/json-paths';
import { reservedSegmentOf } from '../../core/outside-keys';
import { said } from '../../core/said';
import { BLANK, NOT_BLANK } from '../../core/text';
import { customFieldRecords, fixedTargets, whenOps } from '../rules/config';
import { compileFormat, fieldLocales, fieldTypes } from '../rules/fields';
import { templateKeys } from '../rules/templates';

/** Refuses a dot path (or each `{{path}}` of a template) with a reserved segment such as `__proto__`. */
export const noReservedSegment =
  (paths: (value: string) => string[] = (value) => [value]) =>
  (value: string, ctx: z.RefinementCtx) => {
    const segment = paths(value)
      .map(reservedSegmentOf)
      .find((s) => s !== undefined);
    if (segment) ctx.addIssue(saidIssue(said('reserved_key', { key: segment })));
  };

const DOT_PATH = /^[^.\s]+(\.[^.\s]+)*$/;

/**
 * A dot path into the sender's JSON: `nome`, `lead.phone`, `answers.0.text`. No deeper than ingest
 * lets a body nest, or it could never match.
 */
const Key = z
  .string()
  .min(1, BLANK)
  .max(200)
  .superRefine((key, ctx) => {
    if (!DOT_PATH.test(key)) ctx.addIssue(saidIssue(said('not_dot_path', { key })));
    else if (key.split('.').length > MAX_DEPTH) ctx.addIssue(saidIssue(said('too_deep', { max: MAX_DEPTH })));
  })
  .superRefine(noReservedSegment())
  .openapi({ example: 'telefone', pattern: DOT_PATH.source });

const CUSTOM_RECORDS = customFieldRecords.join('|');
const CUSTOM_TARGET = new RegExp(`^(${CUSTOM_RECORDS})\\.custom_fields\\.([A-Za-z0-9_-]{1,100})$`);

/**
 * The record field a webhook field fills: a fixed target, or a custom field of a record that has
 * them. The output of TargetSchema below (which checks it), so the rules can name it.
 */
export type Target =
  | keyof typeof fixedTargets
  | `${(typeof customFieldRecords)[number]}.custom_fields.${string}`;

const TARGETS = [...Object.keys(fixedTargets), ...customFieldRecords.map((r) => `${r}.custom_fields.<name>`)];

const TargetSchema = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    // A custom field named `__proto__` is refused by /v1 too: an object would drop it without a word.
    if (reservedSegmentOf(value)) noReservedSegment()(value, ctx);
    else if (!Object.hasOwn(fixedTargets, value) && !CUSTOM_TARGET.test(value))
      ctx.addIssue(saidIssue(said('unknown_target', { target: value, targets: TARGETS })));
  })
  .transform((value) => value as Target)
  .openapi({
    example: 'contact.phone',
    // The custom field's name without CUSTOM_TARGET's lookahead, which some tools cannot run
    // (fast-check's stringMatching): `not` refuses the `__proto__` names instead.
    pattern: `^(?:${Object.keys(fixedTargets)
      .map((target) => target.replaceAll('.', '\\.'))
      .join('|')}|(?:${CUSTOM_RECORDS})\\.custom_fields\\.[A-Za-z0-9_-]{1,100})$`,
    not: { enum: customFieldRecords.map((r) => `${r}.custom_fields.__proto__`) },
  });

/** A date format of a sender's: `DD/MM/YYYY`, `MM-DD-YYYY HH:mm`, read as UTC. */
const DateFormat = z
  .string()
  .min(1, BLANK)
  .max(40)
  .superRefine((format, ctx) => {
    const compiled = compileFormat(format);
    if ('error' in compiled) ctx.addIssue(saidIssue(compiled.error));
  })
  // Tokens and separators, as the API reads them; that YYYY, MM and DD are each there once (and HH
  // before mm before ss) is the API's to check: a pattern without lookaheads cannot say it.
  .openapi({ example: 'DD/MM/YYYY', pattern: '^(?:YYYY|MM|DD|HH|mm|ss|[-/.: T,])+$' });

/** The most users one round robin takes turns between. */
export const MAX_ROUND_ROBIN = 100;
/** What `upsert_contact` may match on. */
export const MATCH_KEYS = ['phone', 'email'] as const;

export const FieldMapping = z
  .strictObject({
    key: Key,
    type: z.enum(fieldTypes),
    required: withDefault(z.boolean(), false),
    target: TargetSchema.optional().openapi({
      description: 'Omitted: validated and usable in templates only',
    }),
    formats: z.array(DateFormat).min(1).max(5).optional().openapi({
      description:
        'For a `date` field: more formats to accept after RFC 3339 and YYYY-MM-DD, tried in order. Tokens YYYY, MM, DD, HH, mm, ss; separators / - . : , T and space; read as UTC',
    }),
    locale: z.enum(fieldLocales).optional().openapi({
      description:
        'For a `number` or `boolean` field: also read text written the way of this locale. `pt-BR`: `.` groups thousands and `,` starts the decimals (`89.900,00`, `R$ 120.000`; `1.234` is 1234, `1.5` is refused), and `sim`, `não`, `s`, `n` are booleans. JSON numbers and true/false/1/0 are read as always',
    }),
  })
  .openapi('WebhookField');
/** A webhook field as stored: how one key of the sender's body is read and which record field it fills. */
export type FieldMapping = z.output<typeof FieldMapping>;

export const Owner = z
  .union([
    z.strictObject({ user_id: Id }),
    z.strictObject({ round_robin: z.array(Id).min(1).max(MAX_ROUND_ROBIN) }),
  ])
  .openapi('WebhookOwner', {
    description: 'A user of the account, or a fair rotation over several (per webhook and action)',
  });
export type Owner = z.output<typeof Owner>;

export const When = z
  .strictObject({
    field: Key,
    op: z.enum(whenOps),
    value: z.union([z.string().max(1000), z.number(), z.boolean()]).optional(),
  })
  .superRefine((when, ctx) => {
    if (when.op !== 'exists' && when.value === undefined)
      ctx.addIssue(saidIssue(said('when_value_needed', { op: when.op }), ['value']));
  })
  .openapi('WebhookCondition');
export type When = z.output<typeof When>;

/**
 * An optional field the API fills in with `value`. Not zod's `.default()`: the document would carry
 * the `default` keyword, which openapi-typescript (by default) turns into a required property even
 * in a request body that may omit it (its issue #2489). The default is stated in the description,
 * as for `enabled` and `mode`.
 */
export function withDefault<T extends z.ZodType>(schema: T, value: z.output<T>) {
  return schema
    .optional()
    .transform((given) => given ?? value)
    .openapi({ description: `Default ${JSON.stringify(value)}` });
}

/** A text with `{{key}}` placeholders. */
export const Template = z
  .string()
  .trim()
  .min(1, BLANK)
  .max(500)
  .superRefine(noReservedSegment(templateKeys))
  .openapi({ pattern: NOT_BLANK });

/** The options every action takes: a condition, and who owns the records it creates. */
export const common = { when: When.optional(), owner: Owner.optional() };
