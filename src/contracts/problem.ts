import { z } from '@hono/zod-openapi';
import type { FieldError } from '../core/errors';

export const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: 'cnpj' }),
    code: z.string().openapi({ example: 'invalid' }),
    message: z.string(),
  })
  .openapi('FieldError') satisfies z.ZodType<FieldError>;

export const ProblemSchema = z
  .object({
    type: z.string().openapi({
      example: '/problems/validation_failed',
      description: '`/problems/<code>`: a page of this API that explains the code',
    }),
    title: z.string().openapi({ example: 'Unprocessable Content' }),
    status: z.number().int(),
    detail: z.string(),
    code: z
      .string()
      .openapi({ description: 'Stable machine-readable error code', example: 'validation_failed' }),
    request_id: z.string().optional(),
    errors: z.array(FieldErrorSchema).optional(),
    required_scope: z.string().optional().openapi({
      description: 'With `insufficient_scope` (403): the scope the operation needs',
      example: 'companies:read',
    }),
  })
  .openapi('Problem');

export type Problem = z.infer<typeof ProblemSchema>;
