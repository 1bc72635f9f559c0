import { z } from '@hono/zod-openapi';

/** The sortable fields of a resource: API field name -> the row property (and column) it orders by. */
export type Sorts = Readonly<Record<string, string>>;

export const MetaSchema = z
  .object({
    limit: z.number().int(),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page; null on the last' }),
  })
  .openapi('PageMeta');

// A cursor carries the sort value itself (a name may be 255 characters of any script), as
// base64url of the UTF-8 JSON; 4 KiB holds the longest one.
const MAX_CURSOR = 4096;

/** Query parameters every list shares: `limit`, `cursor` and `sort` over the resource's fields. */
export function pageQuery<const S extends Sorts>(sorts: S, defaultSort = '-created_at') {
  const fields = Object.keys(sorts) as (keyof S & string)[];
  const values = fields.flatMap((f) => [f, `-${f}`] as const) as [string, ...string[]];
  return {
    limit: z.coerce.number().int().min(1).max(100).default(25).openapi({ description: '1..100, default 25' }),
    cursor: z.string().max(MAX_CURSOR).optional().openapi({ description: 'Opaque, from `meta.next_cursor`' }),
    sort: z
      .enum(
        values as [
          (keyof S & string) | `-${keyof S & string}`,
          ...((keyof S & string) | `-${keyof S & string}`)[],
        ],
      )
      .optional()
      .openapi({
        description: `A field, or \`-field\` for descending; ties broken by id. Default \`${defaultSort}\``,
        // Names for generated enums (openapi-generator, NSwag, …), which otherwise say VALUE_1.
        'x-enum-varnames': values.map((v) =>
          (v.startsWith('-') ? `${v.slice(1)}_desc` : `${v}_asc`).toUpperCase(),
        ),
      }),
  };
}
