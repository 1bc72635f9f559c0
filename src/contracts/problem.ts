import { z } from '@hono/zod-openapi';
import type { FieldError } from '../core/errors';
import { expectationCodes, failureCodes, type Params, reasonCodes, saidCodes } from '../core/said';

const list = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');

// An event's failure codes are its `error_code`'s (WebhookEvent), not a field error's.
const fieldCodes = saidCodes.filter((c) => !(failureCodes as readonly string[]).includes(c));

export const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: 'cnpj' }),
    code: z.string().openapi({
      example: 'invalid',
      description: `Stable machine-readable code. Besides zod's (\`required\`, \`unknown_field\`, \`invalid_type\`, \`too_big\`, \`too_small\`, \`invalid_value\`, \`invalid\`), the inbound webhook's configuration issues, ingest errors and warnings and flow warnings: ${list(fieldCodes)}`,
    }),
    message: z.string().openapi({ description: 'The English words of `code` and `params`' }),
    params: (
      z.record(z.string(), z.unknown()).openapi({
        description: `What \`code\` names, to word it in another language: a \`key\`, a \`target\`, a \`type\`, a user's \`id\` or \`user_ids\`, an \`action\` and its \`index\` in the flows, … A value left out or refused names what was \`expected\` (${list(expectationCodes)}); a \`step_skipped\` names its \`reason\` (\`code\`: ${list(reasonCodes)}); a nested \`cause\` is another field error's code and params. Values come from the request: escape them before showing them. Absent on zod's codes in an answer to a request (a stored event's \`dropped\` cause has them) and on events stored before params existed`,
        example: { key: 'lead.cnpj', type: 'cnpj', expected: 'cnpj' },
      }) as unknown as z.ZodType<Params>
    ).optional(),
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
    params: (
      z.record(z.string(), z.unknown()).openapi({
        description:
          'What `detail` names, by `code`, for a client to word it in its own language: `body_too_large` (413) has `max`, the size limit in bytes',
      }) as unknown as z.ZodType<Params>
    ).optional(),
  })
  .openapi('Problem');

export type Problem = z.infer<typeof ProblemSchema>;
