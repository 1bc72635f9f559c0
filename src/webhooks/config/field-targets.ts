import type { z } from '@hono/zod-openapi';
import { CompanyUpdate } from '../../contracts/companies';
import { ContactUpdate } from '../../contracts/contacts';
import { DealUpdate } from '../../contracts/deals';
import type { FieldError } from '../../core/errors';
import type { FieldMapping } from '../rules/config';
import type { FieldValue } from '../rules/fields';

const schemas = { contact: ContactUpdate, company: CompanyUpdate, deal: DealUpdate } as const;

/** The body of one mapped value, in the shape of its record's `/v1` update. */
function bodyOf(field: string, value: FieldValue): Record<string, unknown> {
  const custom = /^custom_fields\.(.+)$/s.exec(field)?.[1];
  return custom === undefined ? { [field]: value } : { custom_fields: { [custom]: value } };
}

/**
 * The update schema's answer for one mapped value. A field of the schema's own shape is parsed by
 * its own schema: the update is a strict object whose only refinement rewrites unknown keys, so on
 * a body of that one key its first issue is the field's (test/webhooks/field-targets.test.ts holds
 * the two to the same message). Any other name goes through the whole update, as a body would.
 */
function fitsTarget(schema: (typeof schemas)[keyof typeof schemas], field: string, value: FieldValue) {
  const body = bodyOf(field, value);
  const [name] = Object.keys(body);
  const shape: Record<string, z.ZodType> = schema.shape;
  const own = name !== undefined && Object.hasOwn(shape, name) ? shape[name] : undefined;
  return own ? own.safeParse(body[name as string]) : schema.safeParse(body);
}

/**
 * One `invalid_type` error per required field whose value fits its type but not the record field
 * it fills (a name over 255 characters, a deal value out of range): a sender is told at once, as
 * the flows could never write it, rather than answered 204 for a lead that then fails.
 */
export function requiredTargetErrors(
  fields: readonly FieldMapping[],
  values: ReadonlyMap<string, FieldValue>,
): FieldError[] {
  return fields.flatMap(({ key, required, target }): FieldError[] => {
    const value = values.get(key);
    if (!required || !target || value === undefined) return [];
    const [record = '', field = ''] = target.split(/\.(.*)/s);
    if (!Object.hasOwn(schemas, record)) return [];
    const parsed = fitsTarget(schemas[record as keyof typeof schemas], field, value);
    if (parsed.success) return [];
    const message = parsed.error.issues[0]?.message ?? 'Invalid.';
    return [{ path: key, code: 'invalid_type', message: `Does not fit ${target}: ${message}` }];
  });
}
