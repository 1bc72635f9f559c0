import { z } from '@hono/zod-openapi';
import { Id } from './common';
import { pageQuery } from './page';
import { FieldErrorSchema } from './problem';

export const importStatuses = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export const ImportQuery = z.strictObject({
  resource: z.enum(['companies', 'contacts', 'deals', 'tasks']).openapi({
    description: 'What the rows are; for a whole CRM import companies, contacts, deals, tasks in that order',
    example: 'companies',
  }),
  mode: z.enum(['create', 'upsert', 'update']).optional().openapi({
    description: '`upsert` (default): by `id` column or natural key; `update` needs an `id` column',
  }),
  mapping: z.string().max(20_000).optional().openapi({
    description: 'JSON object, CSV header → field (null: ignore the column); default: names and labels',
  }),
  dry_run: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: '`true`: how the first 100 rows would be written, writing nothing (200)' }),
});

export const importSorts = { created_at: 'createdAt' } as const;

/** `GET /v1/imports`: newest first, one page at a time. */
export const ImportListQuery = z.strictObject({ ...pageQuery(importSorts) });

export const Import = z
  .object({
    id: Id,
    status: z.enum(importStatuses),
    resource: z.string(),
    mode: z.string(),
    counts: z.object({
      rows: z.number().int(),
      created: z.number().int(),
      updated: z.number().int(),
      unchanged: z.number().int().openapi({
        description:
          'Rows of an update or upsert whose values changed nothing: not written to the journal, no new version',
      }),
      failed: z.number().int(),
    }),
    columns: z.array(z.object({ header: z.string(), field: z.string().nullable() })).openapi({
      description: 'Each header cell and the field it maps to (null: ignored)',
    }),
    ignored_columns: z.array(z.string()),
    error: z.string().nullable(),
    errors_url: z.string(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi('Import');

export const DryRun = z
  .object({
    resource: z.string(),
    mode: z.string(),
    columns: z.array(z.object({ header: z.string(), field: z.string().nullable() })),
    ignored_columns: z.array(z.string()),
    rows: z.array(
      z.object({
        line: z.number().int(),
        action: z.enum(['create', 'update', 'fail']),
        reason: z.string().optional(),
        errors: z.array(FieldErrorSchema).optional().openapi({
          description:
            "A failed row's reasons as data, to word in another language: each field error's `path` (the body field: `cnpj`, `company.cnpj`), `code` and `params`, as the batch's; a row the CSV broke has `path` empty and `row_too_long` (`max_kib`) or `unclosed_quote`. `reason` is their English words",
        }),
      }),
    ),
  })
  .openapi('ImportDryRun');
