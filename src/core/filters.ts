import { z } from '@hono/zod-openapi';
import { gt, gte, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { NOT_BLANK, wellFormed } from './text';

const DAY_MS = 86_400_000;
const BEYOND_MS = /\.\d{3}\d*[1-9]/;
/** A positive integer id that fits in a JS number (and so in SQLite's INTEGER). */
export const POSITIVE_ID = /^[1-9]\d{0,15}$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// `[Tt]`, `[Zz]` rather than the `i` flag: the source doubles as the OpenAPI pattern, which has no flags.
export const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** A regex's source without its anchors, to build a larger pattern from. */
export const inner = (regex: RegExp): string => regex.source.replace(/^\^|\$$/g, '');

/** The shape of a date bound, for the OpenAPI document: a date, or a date-time with an offset. */
const BOUND_PATTERN = `^(?:${inner(DATE_ONLY)}|${inner(DATE_TIME)})$`;

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

/** Why `value` is no date-time: the missing offset when that is it, else `otherwise`. */
export const dateTimeMessage = (value: string, otherwise: string): string =>
  NO_OFFSET.test(value)
    ? `"${value}" has no offset, so it is no instant: add Z or ±hh:mm (${value}Z, ${value}-03:00).`
    : otherwise;

type Op = 'gte' | 'lte' | 'gt' | 'lt';
type Bound = { op: Op; ms: number };

/**
 * One comparison filter. A bare date covers the whole UTC day: `gte`/`lt` bound at its start,
 * `lte`/`gt` at its end, so `__gte=D&__lte=D` is exactly day D.
 */
function bound(op: Op) {
  return z
    .string()
    .max(64)
    .transform((value, ctx): Bound => {
      const day = parseDate(value);
      if (day !== undefined) return { op, ms: op === 'lte' || op === 'gt' ? day + DAY_MS - 1 : day };
      const ms = parseDateTime(value);
      // Stored times are whole ms: `>= 10.0005` means `>= 10.001`, and `< 10.0005` means `< 10.001`.
      const roundUp = (op === 'gte' || op === 'lt') && BEYOND_MS.test(value);
      if (ms !== undefined) return { op, ms: roundUp ? ms + 1 : ms };
      ctx.addIssue({
        code: 'custom',
        message: dateTimeMessage(value, 'Expected an ISO 8601 date-time or a YYYY-MM-DD date.'),
      });
      return z.NEVER;
    })
    .optional()
    .openapi({
      description: `ISO 8601 date-time (any offset) or YYYY-MM-DD (${op})`,
      pattern: BOUND_PATTERN,
    });
}

/** The four comparison filters of a timestamp field, e.g. `created_at__gte`. */
export function timeRange<const P extends string>(field: P) {
  return {
    [`${field}__gte`]: bound('gte'),
    [`${field}__lte`]: bound('lte'),
    [`${field}__gt`]: bound('gt'),
    [`${field}__lt`]: bound('lt'),
  } as Record<`${P}__${Op}`, ReturnType<typeof bound>>;
}

const compare = { gte, lte, gt, lt };

/**
 * The SQL of whichever of `field`'s four comparison filters the query has. A list walks the index of
 * its sort (`keyset`) and stops when the page is full. A range on any other column is only checked
 * along that walk (unary `+` keeps it off its own index): otherwise the planner may collect the
 * whole range and sort it, a cost that grows with the account.
 */
export function rangeConditions<P extends string>(
  column: AnySQLiteColumn,
  query: Partial<Record<`${P}__${Op}`, Bound | undefined>>,
  field: P,
  sortColumn: AnySQLiteColumn,
): SQL[] {
  const ops = ['gte', 'lte', 'gt', 'lt'] as const;
  const compared = column === sortColumn ? sql`${column}` : sql`+${column}`;
  return ops.flatMap((op) => {
    const bound = query[`${field}__${op}`];
    return bound ? [compare[op](compared, bound.ms)] : [];
  });
}

export const MAX_LIST_IDS = 100;

/** `owner_id=3,7`: at most 100 positive integer ids. */
export const idList = z
  .string()
  // 100 ids of 16 digits, their commas, and room for a space around each.
  .max(2_000)
  .transform((value, ctx) => {
    const parts = value.split(',');
    const ids = parts.map((p) => (POSITIVE_ID.test(p.trim()) ? Number(p.trim()) : Number.NaN));
    if (parts.length > MAX_LIST_IDS || ids.some((id) => !Number.isSafeInteger(id))) {
      ctx.addIssue({
        code: 'custom',
        message: `Expected up to ${MAX_LIST_IDS} comma-separated positive integer ids.`,
      });
      return z.NEVER;
    }
    return [...new Set(ids)];
  })
  .optional()
  .openapi({
    example: '3,7',
    description: `An id or a comma-separated list of ids (max ${MAX_LIST_IDS})`,
    // Each id is trimmed as `\s` trims; the pattern cannot say "at most 2^53-1", the API does.
    pattern: `^\\s*${inner(POSITIVE_ID)}\\s*(?:,\\s*${inner(POSITIVE_ID)}\\s*){0,${MAX_LIST_IDS - 1}}$`,
  });

/** A partial-match filter: taken as sent, spaces included. */
export const textFilter = z
  .string()
  .min(1)
  .max(255)
  .refine(...wellFormed)
  .optional();

/** An exact-match filter: trimmed like the stored values it is compared with. */
export const exactFilter = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine(...wellFormed)
  .optional()
  .openapi({ pattern: NOT_BLANK });

/** An email filter: trimmed like the stored emails are. */
export const emailFilter = z.string().trim().min(1).max(254).optional();

/**
 * `column IN (ids)` with the whole list bound as ONE JSON parameter: D1 allows 100 parameters per
 * statement, and a list may hold 100 ids beside the other filters.
 */
export const inIds = (column: AnySQLiteColumn, ids: number[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
