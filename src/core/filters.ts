const DAY_MS = 86_400_000;
const BEYOND_MS = /\.\d{3}\d*[1-9]/;
/** A positive integer id that fits in a JS number (and so in SQLite's INTEGER). */
export const POSITIVE_ID = /^[1-9]\d{0,15}$/;
// Months 01-12, days 01-31, hours 00-23, offsets up to ±23:59: what the parsers below take (they
// also refuse a day a month lacks), so the patterns in the document refuse no less than the API.
const MONTH = '(0[1-9]|1[0-2])';
const DAY = '(0[1-9]|[12]\\d|3[01])';
const DATE_ONLY = new RegExp(`^(\\d{4})-${MONTH}-${DAY}$`);
// `[Tt]`, `[Zz]` rather than the `i` flag: the source doubles as the OpenAPI pattern, which has no flags.
export const DATE_TIME = new RegExp(
  `^(\\d{4})-${MONTH}-${DAY}[Tt]([01]\\d|2[0-3]):([0-5]\\d)(?::([0-5]\\d)(?:\\.(\\d{1,9}))?)?([Zz]|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)$`,
);

/** A regex's source without its anchors, to build a larger pattern from. */
export const inner = (regex: RegExp): string => regex.source.replace(/^\^|\$$/g, '');

/** The shape of a date bound, for the OpenAPI document: a date, or a date-time with an offset. */
export const BOUND_PATTERN = `^(?:${inner(DATE_ONLY)}|${inner(DATE_TIME)})$`;

/** Epoch ms of the start of a `YYYY-MM-DD` UTC day, or undefined when it is no real date. */
export function parseDate(value: string): number | undefined {
  const m = DATE_ONLY.exec(value);
  if (!m) return undefined;
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return date.toISOString().slice(0, 10) === value ? date.getTime() : undefined;
}

// The instants the API's own format (`YYYY-MM-DDTHH:mm:ss.sssZ`) can write.
const FIRST_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Epoch ms of an ISO 8601 date-time with any offset, rounded down to the millisecond; undefined
 * when it is no real time or falls, once in UTC, outside years 0000-9999.
 */
export function parseDateTime(value: string): number | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00'] = m;
  if (parseDate(`${y}-${mo}-${d}`) === undefined || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return undefined;
  }
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, '$1'));
  return ms >= FIRST_MS && ms <= LAST_MS ? ms : undefined;
}

// A date-time that would parse with an offset: the usual slip, which the message names.
const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/i;

// A `+03:00` sent unencoded in a query arrives as ` 03:00`: a URL's query reads `+` as a space.
const SPACED_OFFSET = / (?=\d{2}:?\d{2}$)/;

/**
 * Why `value` is no date-time: a `+` that became a space or the missing offset when that is it,
 * else `otherwise`.
 */
export function dateTimeMessage(value: string, otherwise: string): string {
  if (SPACED_OFFSET.test(value) && parseDateTime(value.replace(SPACED_OFFSET, '+')) !== undefined) {
    return `"${value}" has a space where its offset's + should be: in a query string + means a space, so encode the + as %2B (${value.replace(SPACED_OFFSET, '%2B')}).`;
  }
  return NO_OFFSET.test(value)
    ? `"${value}" has no offset, so it is no instant: add Z or ±hh:mm (${value}Z, ${value}-03:00).`
    : otherwise;
}

export type Op = 'gte' | 'lte' | 'gt' | 'lt';
export type Bound = { op: Op; ms: number };

/**
 * One comparison filter's bound, or undefined when `value` is neither a date nor a date-time. A bare
 * date covers the whole UTC day: `gte`/`lt` bound at its start, `lte`/`gt` at its end, so
 * `__gte=D&__lte=D` is exactly day D.
 */
export function parseBound(op: Op, value: string): Bound | undefined {
  const day = parseDate(value);
  if (day !== undefined) return { op, ms: op === 'lte' || op === 'gt' ? day + DAY_MS - 1 : day };
  const ms = parseDateTime(value);
  if (ms === undefined) return undefined;
  // Stored times are whole ms: `>= 10.0005` means `>= 10.001`, and `< 10.0005` means `< 10.001`.
  const roundUp = (op === 'gte' || op === 'lt') && BEYOND_MS.test(value);
  return { op, ms: roundUp ? ms + 1 : ms };
}

export const MAX_LIST_IDS = 100;
