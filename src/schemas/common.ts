import { z } from '@hono/zod-openapi';
import { normalizePhone } from '../domain/phone';
import { wellFormed } from '../domain/text';
import { MetaSchema } from '../http/pagination';

export const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T17:30:00.000Z' });

export const iso = (ms: number): string => new Date(ms).toISOString();

export const Name = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine(...wellFormed);

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

export const Email = z.string().trim().max(254).pipe(z.email());

export const Phone = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const phone = normalizePhone(value);
    if (phone === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Expected a Brazilian or international (+CC) phone number.' });
      return z.NEVER;
    }
    return phone;
  })
  .openapi({ example: '+55 11 98765-4321', description: 'Returned in E.164' });

export const MAX_CUSTOM_FIELDS = 100;

const customFieldMap = z
  .record(z.string().min(1).max(100), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]))
  .refine(
    (fields) => Object.keys(fields).length <= MAX_CUSTOM_FIELDS,
    `At most ${MAX_CUSTOM_FIELDS} custom fields.`,
  );

export const CustomFields = z
  .preprocess((value, ctx) => {
    // zod drops a `__proto__` key from records without a word; refuse it so nothing sent is lost.
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.issues.push({
        code: 'custom',
        message: 'The key "__proto__" is reserved.',
        input: value,
        path: ['__proto__'],
      });
    }
    return value;
  }, customFieldMap)
  .openapi('CustomFields', {
    description: 'String keys to string, number, boolean or null',
    maxProperties: MAX_CUSTOM_FIELDS,
  });

const ReadOnly = z
  .unknown()
  .optional()
  .openapi({ readOnly: true, description: 'Read-only; ignored on write' });

/**
 * A write body: exactly the writable fields (anything unknown is a 422) plus the resource's
 * read-only fields, accepted and ignored so a client can PUT back what it GETs.
 */
export function writeBody<S extends z.ZodRawShape, K extends string = never>(
  shape: S,
  readOnly: readonly K[] = [],
) {
  const ignored = Object.fromEntries(readOnly.map((key) => [key, ReadOnly])) as Record<K, typeof ReadOnly>;
  return z.strictObject({ ...shape, ...ignored, id: ReadOnly, created_at: ReadOnly, updated_at: ReadOnly });
}

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
