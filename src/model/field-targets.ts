import { CompanyUpdate } from '../contracts/companies';
import { ContactUpdate } from '../contracts/contacts';
import { DealUpdate } from '../contracts/deals';
import type { FieldError } from '../core/errors';
import type { FieldMapping } from '../core/webhook-config';
import type { FieldValue } from '../core/webhook-fields';

const schemas = { contact: ContactUpdate, company: CompanyUpdate, deal: DealUpdate } as const;

/** The body of one mapped value, in the shape of its record's `/v1` update. */
function bodyOf(field: string, value: FieldValue): Record<string, unknown> {
  const custom = /^custom_fields\.(.+)$/s.exec(field)?.[1];
  return custom === undefined ? { [field]: value } : { custom_fields: { [custom]: value } };
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
    const parsed = schemas[record as keyof typeof schemas].safeParse(bodyOf(field, value));
    if (parsed.success) return [];
    const message = parsed.error.issues[0]?.message ?? 'Invalid.';
    return [{ path: key, code: 'invalid_type', message: `Does not fit ${target}: ${message}` }];
  });
}
