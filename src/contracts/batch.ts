import { z } from '@hono/zod-openapi';
import { Id } from './common';
import { ProblemSchema } from './problem';

/** The most items one batch takes (issue 40; docs/import-export.md states what D1 allows). */
export const MAX_BATCH_ITEMS = 100;

export const batchOps = ['create', 'update', 'upsert'] as const;

/**
 * One item of a batch. `data` is checked against the resource's create or update body (as the single
 * call checks it, with the same errors), plus relations by natural key; so here it is any object.
 */
const BatchItem = z.strictObject({
  op: z.enum(batchOps).openapi({
    description:
      '`create`; `update` (needs `id`); `upsert`: find the record by its natural key in `data` (or `id`), update what is sent, or create it',
  }),
  id: Id.optional().openapi({ description: 'The record to update; for `update`, or to pin an `upsert`' }),
  // Not a z.record: it drops a `__proto__` key without a word, where the resource's body names it.
  data: z
    .custom<Record<string, unknown>>(
      (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
      'Expected an object.',
    )
    .openapi({
      type: 'object',
      description:
        "The resource's writable fields, as its POST or PUT takes them, and relations by natural key where an id is taken: `company: { cnpj | external_id }`, `contact: { email | phone | external_id }`, `deal: { external_id }`, `owner: { email | external_id }`",
    }),
});

export const BatchBody = z
  .strictObject({
    items: z.array(BatchItem).min(1).max(MAX_BATCH_ITEMS),
    atomic: z.boolean().optional().openapi({
      description:
        '`true`: all or nothing; the first failing item is answered as the problem, with its `index`, and nothing is written. `false` (the default): every item is tried',
    }),
  })
  .openapi('BatchRequest');

export type BatchInput = z.infer<typeof BatchBody>;

/** A batch's answer for a resource schema: each item's record, or its problem, in request order. */
export const batchResult = <T extends z.ZodType>(schema: T, name: string) =>
  z
    .object({
      data: z.array(
        z.union([
          z.object({
            index: z.number().int(),
            status: z.number().int().openapi({ description: '201 created, 200 updated' }),
            data: schema,
          }),
          z.object({
            index: z.number().int(),
            status: z.number().int().openapi({ description: 'The status the single call would answer' }),
            error: ProblemSchema,
          }),
        ]),
      ),
    })
    .openapi(`${name}BatchResult`);
