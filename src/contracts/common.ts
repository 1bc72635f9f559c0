import { z } from '@hono/zod-openapi';
import { DATE_TIME, dateTimeMessage, parseDateTime } from '../core/filters';
import { isoTime } from '../core/iso-time';
import { isReservedSegment, RESERVED_CODE, RESERVED_SEGMENTS, reservedMessage } from '../core/outside-keys';
import { E164, normalizePhone, PHONE_SHAPE } from '../core/phone';
import { expectedWords } from '../core/said';
import { BLANK, EMAIL, MAX_EMAIL, NOT_BLANK, wellFormed } from '../core/text';
import { MetaSchema } from './page';

export const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T17:30:00.000Z' });

export const iso = isoTime;

/**
 * `iso(ms)`, given `text`, the iso of `earlier`: the same text when they are the same time (a row
 * never updated has updated_at = created_at), one time written per row instead of two.
 */
export const isoAfter = (ms: number, earlier: number, text: string): string =>
  ms === earlier ? text : iso(ms);

/** A date-time a body writes, with any offset (`2026-12-01T10:00:00-03:00`), read as epoch ms. */
export const DateTimeIn = (example: string) =>
  z
    .string()
    .max(64)
    .transform((value, ctx) => {
      const ms = parseDateTime(value);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: dateTimeMessage(value, `Expected ${expectedWords('date_time')}.`),
          params: { code: 'invalid', params: { expected: 'date_time' } },
        });
        return z.NEVER;
      }
      return ms;
    })
    .openapi({ format: 'date-time', example, pattern: DATE_TIME.source });

export const Name = z
  .string()
  .trim()
  .min(1, BLANK)
  .max(255)
  .refine(...wellFormed)
  .openapi({ pattern: NOT_BLANK, description: 'Trimmed; must not be blank' });

/** Optional free text: trimmed; blank is stored as null. */
export const OptionalText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(...wellFormed)
    .transform((value) => value.trim() || null)
    .nullable()
    .optional()
    .openapi({ description: 'Trimmed; blank or null clears it' });

/** The record's id in the system it came from (see `external` in src/db/schema.ts). */
export const ExternalId = OptionalText(255).openapi({
  example: 'ERP-1042',
  description:
    "The record's id in the system it came from; unique in the account among this resource's records (a 409 names `external_id`). Trimmed; blank or null clears it",
});

/** `external_id` as every resource shows it. */
export const ExternalIdOut = z.string().nullable().openapi({ example: 'ERP-1042' });

export const Email = z
  .string()
  .trim()
  .max(MAX_EMAIL)
  .pipe(z.email({ pattern: EMAIL }))
  // `format: email` alone admits `ana@localhost`, which the API refuses: the pattern says what it takes.
  .openapi({ format: 'email', pattern: EMAIL.source });

export const Phone = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const phone = normalizePhone(value);
    if (phone === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `Expected ${expectedWords('phone')}.`,
        params: { code: 'invalid', params: { expected: 'phone' } },
      });
      return z.NEVER;
    }
    return phone;
  })
  .openapi({
    example: '+55 11 98765-4321',
    description: 'International (`+CC…`, `00CC…`) or Brazilian national form; returned in E.164',
    pattern: PHONE_SHAPE.source,
  });

/** A phone as the API returns it. */
export const PhoneOut = z.string().openapi({ example: '+5511987654321', pattern: E164.source });

export const MAX_CUSTOM_FIELDS = 100;

const customFieldMap = z
  .record(
    z.string().min(1, BLANK).max(100),
    z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]),
  )
  .refine(
    (fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS,
    `At most ${MAX_CUSTOM_FIELDS} custom fields.`,
  );

// OpenAPI 3.1's propertyNames, which zod-to-openapi passes through but its metadata type lacks.
const keyRules = { propertyNames: { minLength: 1, maxLength: 100, not: { enum: RESERVED_SEGMENTS } } };

export const CustomFields = z
  .preprocess((value, ctx) => {
    // zod drops a `__proto__` key from records without a word, and a key reaching the prototype
    // has no place in a record: refuse them at their path so nothing sent is lost.
    if (value === null || typeof value !== 'object') return value;
    for (const key of Object.keys(value).filter(isReservedSegment)) {
      ctx.issues.push({
        code: 'custom',
        message: reservedMessage(key),
        params: { code: RESERVED_CODE, params: { key } },
        input: value,
        path: [key],
      });
    }
    return value;
  }, customFieldMap)
  .openapi('CustomFields', {
    description: 'String keys to string, number, boolean or null',
    maxProperties: MAX_CUSTOM_FIELDS,
    ...keyRules,
  });

/** Why each read-only field of every resource cannot be written: what the API does instead. */
const serverSet = {
  id: 'The API assigns it.',
  created_at: 'The API sets it.',
  updated_at: 'The API sets it.',
  deleted_at: 'DELETE sets it; POST /{id}/restore clears it.',
};

/**
 * Turns the strict object's "unknown field" for a read-only field of the resource into a
 * `read_only` error that says what to write instead: a client that sends one expects it written,
 * and dropping it without a word would lose what it meant.
 */
function refuseReadOnly(readOnly: Record<string, string>) {
  return (_body: unknown, ctx: z.RefinementCtx) => {
    const named: string[] = [];
    // Backwards, so that removing an issue keeps the indexes still to visit.
    for (let i = ctx.issues.length - 1; i >= 0; i--) {
      const issue = ctx.issues[i];
      if (issue?.code !== 'unrecognized_keys' || (issue.path ?? []).length > 0) continue;
      named.push(...issue.keys.filter((key) => Object.hasOwn(readOnly, key)));
      const unknown = issue.keys.filter((key) => !Object.hasOwn(readOnly, key));
      if (unknown.length) ctx.issues[i] = { ...issue, keys: unknown };
      else ctx.issues.splice(i, 1);
    }
    for (const key of named) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `${key} is read-only. ${readOnly[key]}`,
        params: { code: 'read_only' },
      });
    }
  };
}

/**
 * The create and update bodies of a resource: exactly its writable fields (all optional on update).
 * Anything else is a 422: `read_only` for a field the resource shows but the API sets (`readOnly`
 * says what to write instead; `id` and the timestamps always), `unknown_field` otherwise.
 */
export function writeBodies<S extends z.ZodRawShape>(shape: S, readOnly: Record<string, string> = {}) {
  const refuse = refuseReadOnly({ ...serverSet, ...readOnly });
  // `when`: run even though the strict object already failed, to rewrite its issue.
  const always = { when: () => true };
  return {
    create: z.strictObject(shape).superRefine(refuse, always),
    update: z.strictObject(shape).partial().superRefine(refuse, always),
  };
}

/** On every resource with a trash. */
export const DeletedAt = Timestamp.nullable().openapi({
  description: 'When it went to the trash (`?deleted=true` lists it); null while live',
});

/** A time that may be unset (deleted_at, due_date, processed_at...), as the API writes it. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

// Python's `requests` writes a bool as `True`/`False` (str(True)): the one other spelling a client
// sends without meaning to. `1`, `yes`, `TRUE` or empty stay refused.
const FLAGS = ['true', 'false', 'True', 'False'] as const;

/** An optional query flag: `true` or `false` (or `True`/`False`), read as a boolean. */
export const queryFlag = (description?: string) =>
  z
    .enum(FLAGS)
    .transform((value) => value.toLowerCase() === 'true')
    .optional()
    .openapi({
      type: 'string',
      enum: [...FLAGS],
      // Generators that name enum members by upper-casing (openapi-generator) would give two `TRUE`s.
      'x-enum-varnames': ['TRUE', 'FALSE', 'PYTHON_TRUE', 'PYTHON_FALSE'],
      ...(description && { description }),
    });

/** The list parameter of every resource with a trash. */
export const trashQuery = {
  deleted: queryFlag(
    '`true`: the trash instead, rows deleted in the last 30 days (restorable), with the same filters and sorts',
  ),
};

// One instance per name, so every route that answers with the same envelope shares its component.
const envelopes = new Map<string, z.ZodType>();

function envelope<T extends z.ZodType>(name: string, make: () => T): T {
  const known = envelopes.get(name);
  if (known) return known as T;
  const made = make().openapi(name);
  envelopes.set(name, made);
  return made;
}

/** `{ data: <one> }`, named `<name>Response` in the document. */
export const one = <T extends z.ZodType>(schema: T, name: string) =>
  envelope(`${name}Response`, () => z.object({ data: schema }));

/** `{ data: [...], meta }`, named `<name>Page` in the document. */
export const list = <T extends z.ZodType>(schema: T, name: string) =>
  envelope(`${name}Page`, () => z.object({ data: z.array(schema), meta: MetaSchema }));

/**
 * `{ data: <one> }` as a write answers it, named `<name>WriteResponse`: the resource whole, or, to
 * a key without its resource's `:read` scope, `<name>Written`: only its `id` and the fields the
 * write changed (src/http/visible.ts).
 */
export const oneWritten = <T extends z.ZodObject<{ id: typeof Id }>>(schema: T, name: string) =>
  envelope(`${name}WriteResponse`, () =>
    z.object({
      data: z.union([
        schema,
        schema
          .partial()
          .required({ id: true })
          .openapi(`${name}Written`, {
            description: `What a write answers a key without the resource's \`:read\` scope: the ${name}'s \`id\` and the fields the write changed, nothing else.`,
          }),
      ]),
    }),
  );
