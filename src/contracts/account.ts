import { z } from '@hono/zod-openapi';
import { validZone } from '../core/zones';
import { Id, Timestamp } from './common';

const ZONE_EXAMPLE = 'America/Sao_Paulo';

/** An IANA zone name, as Intl spells it (`utc` -> `UTC`); anything else a 422 naming the field. */
const TimeZone = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const zone = validZone(value);
    if (zone) return zone;
    ctx.addIssue({
      code: 'custom',
      params: { code: 'unknown_time_zone' },
      message: `"${value.slice(0, 64)}" is not an IANA time zone: use a name such as America/Sao_Paulo, America/Manaus, Europe/Lisbon or UTC.`,
    });
    return z.NEVER;
  })
  .openapi({ description: 'An IANA time zone name', example: ZONE_EXAMPLE });

/** The account's settings (`GET/PUT /v1/account`). */
export const Account = z
  .object({
    id: Id,
    name: z.string(),
    time_zone: z.string().openapi({
      description:
        'The IANA zone a date with no time stands for a day in: a webhook `date` field sent as `2026-11-24` counts from the start of that day here (a task due 365 days after it lands on 2027-11-24 in this zone). `America/Sao_Paulo` unless changed',
      example: ZONE_EXAMPLE,
    }),
    created_at: Timestamp,
  })
  .openapi('AccountSettings');

export const AccountUpdate = z
  .strictObject({ time_zone: TimeZone.optional() })
  .openapi('AccountUpdate', { description: 'The settings to change; a field left out keeps its value' });
