import { z } from '@hono/zod-openapi';
import {
  BOUND_PATTERN,
  type Bound,
  dateTimeMessage,
  inner,
  MAX_LIST_IDS,
  type Op,
  POSITIVE_ID,
  parseBound,
} from '../core/filters';
import { BLANK, NOT_BLANK, wellFormed } from '../core/text';

/** One comparison filter of a timestamp: a date or a date-time, parsed into its bound. */
function bound(op: Op) {
  return z
    .string()
    .max(64)
    .transform((value, ctx): Bound => {
      const parsed = parseBound(op, value);
      if (parsed) return parsed;
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
  .min(1, BLANK)
  .max(255)
  .refine(...wellFormed)
  .optional();

/** An exact-match filter: trimmed like the stored values it is compared with. */
export const exactFilter = z
  .string()
  .trim()
  .min(1, BLANK)
  .max(255)
  .refine(...wellFormed)
  .optional()
  .openapi({ pattern: NOT_BLANK });

/** `external_id=`: exact and case-sensitive, trimmed as the stored ids are. */
export const externalIdFilter = exactFilter.openapi({ description: 'Exact match (case-sensitive)' });

/** An email filter: trimmed like the stored emails are. */
export const emailFilter = z.string().trim().min(1, BLANK).max(254).optional();
