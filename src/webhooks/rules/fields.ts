import { canonicalCnpj, MASKED } from '../../core/cnpj';
import type { FieldError } from '../../core/errors';
import { valueAt } from '../../core/json-paths';
import { withoutReservedKeys } from '../../core/outside-keys';
import { normalizePhone } from '../../core/phone';
import { type Params, type Said, said } from '../../core/said';
import { parseEmail, wellFormed } from '../../core/text';

export const fieldTypes = ['string', 'number', 'boolean', 'date', 'phone', 'email', 'cnpj'] as const;

export type FieldType = (typeof fieldTypes)[number];

export type FieldValue = string | number | boolean;

/**
 * The conventions a `number` or `boolean` field may also be read in, besides the default ones:
 * `pt-BR` reads `89.900,00`, `R$ 120.000` and `1.234` (= 1234) as numbers, `sim`/`não`/`s`/`n` as
 * booleans.
 */
export const fieldLocales = ['pt-BR'] as const;
export type FieldLocale = (typeof fieldLocales)[number];

/** A declared webhook field: where it is in the body, what it must be, and other date formats. */
export type FieldSpec = {
  key: string;
  type: FieldType;
  required: boolean;
  formats?: readonly string[] | undefined;
  locale?: FieldLocale | undefined;
};

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const LOOSE_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

type Parts = { y: number; mo: number; d: number; h?: number; mi?: number; s?: number; ms?: number };

/**
 * The instant of calendar parts read as UTC, less `offsetMin`, or undefined when they name no real
 * date and time (Date.UTC rolls 02-30 over into March; comparing the parts back catches it).
 */
function instant({ y, mo, d, h, mi, s, ms }: Parts, offsetMin = 0): { ms: number; text: string } | undefined {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return undefined;
  const text = date.toISOString().slice(0, 10);
  if (h === undefined) return { ms: date.getTime(), text };
  if (h > 23 || (mi ?? 0) > 59 || (s ?? 0) > 59) return undefined;
  date.setUTCHours(h, mi ?? 0, s ?? 0, ms ?? 0);
  const at = date.getTime() - offsetMin * 60_000;
  return { ms: at, text: new Date(at).toISOString() };
}

const FORMAT_TOKENS = {
  YYYY: '(\\d{4})',
  MM: '(\\d{1,2})',
  DD: '(\\d{1,2})',
  HH: '(\\d{1,2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
};
type Token = keyof typeof FORMAT_TOKENS;
const FORMAT_SEPARATORS = '/-.: T,';

/**
 * A date format such as `DD/MM/YYYY` or `DD/MM/YYYY HH:mm`, compiled to a pattern and the token of
 * each of its groups, or the reason it is not one (an unknown token, a part missing or repeated).
 */
export function compileFormat(format: string): { pattern: RegExp; tokens: Token[] } | { error: Said } {
  const tokens: Token[] = [];
  let source = '';
  for (let i = 0; i < format.length; ) {
    const token = (Object.keys(FORMAT_TOKENS) as Token[]).find((t) => format.startsWith(t, i));
    if (token) {
      if (tokens.includes(token)) return { error: said('format_token_twice', { token }) };
      tokens.push(token);
      source += FORMAT_TOKENS[token];
      i += token.length;
    } else if (FORMAT_SEPARATORS.includes(format.charAt(i))) {
      const separator = format.charAt(i);
      source += /[-/.]/.test(separator) ? `\\${separator}` : separator;
      i += 1;
    } else {
      const unknown = /^[A-Za-z]+/.exec(format.slice(i))?.[0] ?? format.charAt(i);
      return { error: said('format_unknown_token', { token: unknown }) };
    }
  }
  for (const needed of ['YYYY', 'MM', 'DD'] as const) {
    if (!tokens.includes(needed)) return { error: said('format_part_missing', { part: needed }) };
  }
  if (tokens.includes('ss') && !tokens.includes('mm'))
    return { error: said('format_part_needs', { token: 'ss', needs: 'mm' }) };
  if (tokens.includes('mm') && !tokens.includes('HH'))
    return { error: said('format_part_needs', { token: 'mm', needs: 'HH' }) };
  return { pattern: new RegExp(`^${source}$`), tokens };
}

function byFormat(value: string, format: string): { ms: number; text: string } | undefined {
  const compiled = compileFormat(format);
  if ('error' in compiled) return undefined;
  const m = compiled.pattern.exec(value);
  if (!m) return undefined;
  const part = (token: Token) => {
    const i = compiled.tokens.indexOf(token);
    return i < 0 ? undefined : Number(m[i + 1]);
  };
  const h = part('HH');
  return instant({
    y: part('YYYY') ?? 0,
    mo: part('MM') ?? 0,
    d: part('DD') ?? 0,
    ...(h !== undefined && { h, mi: part('mm') ?? 0, s: part('ss') ?? 0 }),
  });
}

/**
 * A webhook date: an RFC 3339 date-time (any offset, any fraction of a second, `T` or a space),
 * `YYYY-MM-DD` whose month and day may lack the leading zero, or one of the field's `formats`
 * (read as UTC). Returned as the instant in epoch ms and as canonical text (a bare date
 * zero-padded, a date-time in UTC with milliseconds), or undefined when it is not a real calendar
 * date and time.
 */
export function parseFieldDate(
  value: string,
  formats: readonly string[] = [],
): { ms: number; text: string } | undefined {
  const t = RFC_3339.exec(value);
  if (t) {
    const n = (i: number) => Number(t[i]);
    const offset = t[8] ? 0 : (t[9] === '-' ? -1 : 1) * (n(10) * 60 + n(11));
    if (n(10) > 23 || n(11) > 59) return undefined;
    const ms = Number((t[7] ?? '0').padEnd(3, '0').slice(0, 3));
    return instant({ y: n(1), mo: n(2), d: n(3), h: n(4), mi: n(5), s: n(6), ms }, offset);
  }
  const m = LOOSE_DATE.exec(value);
  if (m) return instant({ y: Number(m[1]), mo: Number(m[2]), d: Number(m[3]) });
  for (const format of formats) {
    const date = byFormat(value, format);
    if (date) return date;
  }
  return undefined;
}

export const MAX_STRING = 10_000;
// One decimal separator, either one, and no thousands separator: `89900`, `899,00`, `899.5`.
const NUMERIC = /^[+-]?\d+(?:[.,](\d+))?$/;

// pt-BR: `.` groups thousands (in threes), `,` starts the decimals, an optional `R$` before.
const BRAZILIAN = /^([+-]?)\s*(?:R\$\s*)?([+-]?)(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$/i;

/** A value in its canonical form, or what it was expected to be (an expectation of src/core/said.ts). */
type Read = { value: FieldValue } | { expected: string; params?: Params };
const expect = (expected: string, params?: Params): Read => ({ expected, ...(params && { params }) });

/**
 * A number read from text, unless no record can hold it: an infinity, or a whole number beyond
 * ±(2^53 - 1), which would be stored rounded (an order id's 17 digits as other digits).
 */
function exact(value: number): Read {
  if (!Number.isFinite(value)) return expect('finite_number');
  if (Number.isInteger(value) && !Number.isSafeInteger(value))
    return expect('safe_integer', { max: Number.MAX_SAFE_INTEGER });
  return { value };
}

/** A number sent as text, by the default convention or (`pt-BR`) the Brazilian one. */
function readNumber(text: string, locale: FieldLocale | undefined): Read {
  if (locale === 'pt-BR') {
    const m = BRAZILIAN.exec(text);
    // One sign at most, before or after the R$.
    if (!m || (m[1] && m[2])) return expect('brazilian_number');
    return exact(Number(`${m[1] || m[2]}${(m[3] ?? '').replaceAll('.', '')}.${m[4] ?? '0'}`));
  }
  const m = NUMERIC.exec(text);
  if (!m) return expect('number_text');
  // `1.500` is 1500 in Brazil and 1.5 elsewhere: guessing would store a wrong value silently.
  if (m[1]?.length === 3) return expect('no_thousands');
  return exact(Number(text.replace(',', '.')));
}

// Compared after NFC, so a decomposed `não` (n, a, combining tilde, o) is the same word.
const BRAZILIAN_WORDS: Record<string, boolean> = { sim: true, s: true, não: false, nao: false, n: false };

function readBoolean(raw: unknown, locale: FieldLocale | undefined): Read {
  if (typeof raw === 'boolean') return { value: raw };
  const text =
    typeof raw === 'string' || typeof raw === 'number'
      ? String(raw).trim().normalize('NFC').toLowerCase()
      : '';
  if (text === 'true' || text === '1') return { value: true };
  if (text === 'false' || text === '0') return { value: false };
  if (locale === 'pt-BR' && Object.hasOwn(BRAZILIAN_WORDS, text))
    return { value: BRAZILIAN_WORDS[text] === true };
  return locale === 'pt-BR' ? expect('brazilian_boolean') : expect('boolean');
}

/** The field's value in its canonical form, or the reason it does not fit its type. */
function read(field: FieldSpec, raw: unknown): Read {
  switch (field.type) {
    case 'number': {
      // JSON.parse reads 1e400 as Infinity, which no record can store.
      if (typeof raw === 'number') return Number.isFinite(raw) ? { value: raw } : expect('finite_number');
      return readNumber(typeof raw === 'string' ? raw.trim() : '', field.locale);
    }
    case 'boolean':
      return readBoolean(raw, field.locale);
    case 'string': {
      // JSON.parse has already rounded a whole number past 2^53 (an order id, a card-sized code):
      // its text would be other digits than the sender's.
      if (typeof raw === 'number' && Number.isInteger(raw) && !Number.isSafeInteger(raw))
        return expect('big_integer_text');
      if (typeof raw === 'number' || typeof raw === 'boolean') return { value: String(raw) };
      if (typeof raw !== 'string') return expect('scalar');
      if (raw.length > MAX_STRING) return expect('max_characters', { max: MAX_STRING });
      return wellFormed[0](raw) ? { value: raw } : expect('unicode');
    }
    case 'phone': {
      const text = Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof text !== 'string') return expect('phone_text');
      const phone = normalizePhone(text);
      return phone ? { value: phone } : expect('phone');
    }
    case 'date': {
      if (typeof raw !== 'string') return expect('date_text');
      const date = parseFieldDate(raw, field.formats);
      return date ? { value: date.text } : expect('date', { formats: field.formats ?? [] });
    }
    case 'email': {
      if (typeof raw !== 'string') return expect('email_text');
      const value = parseEmail(raw);
      return value === undefined ? expect('email') : { value };
    }
    case 'cnpj': {
      // A number would have lost a CNPJ's leading zeros: only text is read as one.
      if (typeof raw !== 'string') return expect('cnpj_text');
      const value = canonicalCnpj(raw);
      return value === undefined ? expect('cnpj') : { value };
    }
  }
}

/** Absent for a sender: no key, null, or text that is empty or only spaces. */
const isBlank = (raw: unknown) =>
  raw === undefined || raw === null || (typeof raw === 'string' && !raw.trim());

/**
 * Reads every declared field from a sender's body: the canonical values by key; one error per
 * required field that is missing (absent, null or blank) or does not fit its type; and one warning
 * per optional field that does not fit, which is then left out as if absent. A reserved key
 * (`__proto__`, `prototype`, `constructor`) anywhere in the body is left out first, with a warning.
 */
export function readFields(
  sent: unknown,
  fields: readonly FieldSpec[],
): { values: Map<string, FieldValue>; errors: FieldError[]; warnings: FieldError[] } {
  const values = new Map<string, FieldValue>();
  const errors: FieldError[] = [];
  const { value: body, warnings } = withoutReservedKeys(sent);
  for (const field of fields) {
    const raw = valueAt(body, field.key);
    if (isBlank(raw)) {
      if (field.required) errors.push({ path: field.key, ...said('required', { key: field.key }) });
      continue;
    }
    const result = read(field, raw);
    if ('value' in result) values.set(field.key, result.value);
    else {
      const params = { key: field.key, type: field.type, expected: result.expected, ...result.params };
      if (field.required) errors.push({ path: field.key, ...said('invalid_type', params) });
      else warnings.push({ path: field.key, ...said('dropped', params) });
    }
  }
  return { values, errors, warnings };
}

/** The type a sample value most likely has, for offering it in a mapping. */
export function guessType(value: unknown): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value !== 'string') return 'string';
  if (parseFieldDate(value)) return 'date';
  if (parseEmail(value) !== undefined) return 'email';
  // Only a masked one: 14 bare digits may as well be a phone or an id.
  if (MASKED.test(value.trim()) && canonicalCnpj(value)) return 'cnpj';
  if (normalizePhone(value)) return 'phone';
  return 'string';
}

/**
 * For a sample value read as plain text (`guessType` gave `string`), the type and locale that read
 * it the Brazilian way, if it is written so: `89.900,00`, `R$ 120.000`, `1.234` are numbers; `sim`,
 * `não` are booleans (not `s` or `n`, too short to tell). Undefined otherwise.
 */
export function guessBrazilian(
  value: unknown,
): { type: 'number' | 'boolean'; locale: FieldLocale } | undefined {
  if (typeof value !== 'string' || guessType(value) !== 'string') return undefined;
  const text = value.trim().normalize('NFC').toLowerCase();
  if (['sim', 'não', 'nao'].includes(text)) return { type: 'boolean', locale: 'pt-BR' };
  const m = BRAZILIAN.exec(text);
  return m && !(m[1] && m[2]) && /[.,$]/.test(text) ? { type: 'number', locale: 'pt-BR' } : undefined;
}

// Day first, as Brazil writes a date: the formats a sample's text is tried against, longest first.
const DAY_FIRST_FORMATS = ['DD/MM/YYYY HH:mm:ss', 'DD/MM/YYYY HH:mm', 'DD/MM/YYYY'] as const;

/**
 * For a sample value read as plain text, the day-first date format that reads it (`25/12/2026` is
 * `DD/MM/YYYY`), so the field is offered as a date with its format. Undefined otherwise.
 */
export function guessDateFormat(value: unknown): string | undefined {
  if (typeof value !== 'string' || guessType(value) !== 'string') return undefined;
  return DAY_FIRST_FORMATS.find((format) => parseFieldDate(value.trim(), [format]) !== undefined);
}
