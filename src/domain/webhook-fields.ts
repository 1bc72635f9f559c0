import type { FieldError } from '../http/problem';
import { Email } from '../schemas/common';
import { valueAt } from './json-paths';
import { normalizePhone } from './phone';
import { wellFormed } from './text';

export const fieldTypes = ['string', 'number', 'boolean', 'date', 'phone', 'email'] as const;

export type FieldType = (typeof fieldTypes)[number];

export type FieldValue = string | number | boolean;

/** A declared webhook field: where it is in the body and what it must be. */
export type FieldSpec = { key: string; type: FieldType; required: boolean };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LOOSE_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

/**
 * A webhook date: exactly `YYYY-MM-DDTHH:mm:ss.sssZ`, or `YYYY-MM-DD` whose month and day may lack
 * the leading zero. Returned as the instant in epoch ms and as text (a bare date zero-padded), or
 * undefined when it is not a real calendar date and time.
 */
export function parseFieldDate(value: string): { ms: number; text: string } | undefined {
  if (DATE_TIME.test(value)) {
    const ms = Date.parse(value);
    // Date.parse rolls 02-30 over into March; the round trip catches it.
    return Number.isNaN(ms) || new Date(ms).toISOString() !== value ? undefined : { ms, text: value };
  }
  const m = LOOSE_DATE.exec(value);
  if (!m) return undefined;
  const text = `${m[1]}-${m[2]?.padStart(2, '0')}-${m[3]?.padStart(2, '0')}`;
  const date = new Date(0);
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return date.toISOString().slice(0, 10) === text ? { ms: date.getTime(), text } : undefined;
}

const MAX_STRING = 10_000;

/** The field's value in its canonical form, or the reason it does not fit its type. */
function read(type: FieldType, raw: unknown): { value: FieldValue } | { error: string } {
  const expect = (what: string) => ({ error: `Expected ${what}.` });
  switch (type) {
    case 'number':
      // JSON.parse reads 1e400 as Infinity, which no record can store.
      return typeof raw === 'number' && Number.isFinite(raw)
        ? { value: raw }
        : expect('a finite JSON number');
    case 'boolean':
      return typeof raw === 'boolean' ? { value: raw } : expect('a JSON boolean');
    case 'string':
      if (typeof raw !== 'string') return expect('a JSON string');
      if (raw.length > MAX_STRING) return expect(`at most ${MAX_STRING} characters`);
      return wellFormed[0](raw) ? { value: raw } : expect('well-formed Unicode text');
  }
  if (typeof raw !== 'string') return expect(`a ${type} as a JSON string`);
  if (type === 'date') {
    const date = parseFieldDate(raw);
    return date ? { value: date.text } : expect('a real date as YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss.sssZ');
  }
  if (type === 'phone') {
    const phone = normalizePhone(raw);
    return phone ? { value: phone } : expect('a Brazilian or international (+CC) phone number');
  }
  const email = Email.safeParse(raw);
  return email.success ? { value: email.data } : expect('a valid email address');
}

/**
 * Reads every declared field from a sender's body: the canonical values by key, and one error per
 * field that is missing though required (absent or null) or does not fit its type.
 */
export function readFields(
  body: unknown,
  fields: readonly FieldSpec[],
): { values: Map<string, FieldValue>; errors: FieldError[] } {
  const values = new Map<string, FieldValue>();
  const errors: FieldError[] = [];
  for (const field of fields) {
    const raw = valueAt(body, field.key);
    if (raw === undefined || raw === null) {
      if (field.required)
        errors.push({ path: field.key, code: 'required', message: 'This field is required.' });
      continue;
    }
    const result = read(field.type, raw);
    if ('error' in result) errors.push({ path: field.key, code: 'invalid_type', message: result.error });
    else values.set(field.key, result.value);
  }
  return { values, errors };
}

/** The type a sample value most likely has, for offering it in a mapping. */
export function guessType(value: unknown): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value !== 'string') return 'string';
  if (parseFieldDate(value)) return 'date';
  if (Email.safeParse(value).success) return 'email';
  if (normalizePhone(value)) return 'phone';
  return 'string';
}
