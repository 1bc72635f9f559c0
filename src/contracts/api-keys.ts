import { z } from '@hono/zod-openapi';
import { ALL_SCOPES, normalScopes } from '../core/scopes';
import { DateTimeIn, Id, Name, Timestamp, writeBodies } from './common';

export const ScopeSchema = z.enum(ALL_SCOPES).openapi('Scope', {
  description:
    '`<resource>:<operation>`; `*` stands for every resource or every operation (`*:read`, `tasks:*`)',
  example: 'companies:read',
});

const Scopes = z
  .array(ScopeSchema)
  .min(1)
  .max(ALL_SCOPES.length)
  .transform(normalScopes)
  .openapi({
    description:
      'What the key may do; leave it out for full access. The creating key must hold every one (wildcards expanded)',
    example: ['*:read'],
  });

const ExpiresAt = DateTimeIn('2027-01-31T23:59:59-03:00').openapi({
  description:
    'When the key stops working (any offset, in the future); null or absent: never, or when the creating key expires if it does',
});

const keyReadOnly = {
  key: 'The API generates it and shows it once, in this answer.',
  last_used_at: 'The API sets it.',
};

/** The body of `POST /v1/api-keys` and `POST /admin/accounts/{id}/api-keys`. */
export const ApiKeyCreate = writeBodies(
  {
    name: Name.optional().openapi({
      description: 'What the key is for, such as "Reporting (read-only)"; shown in lists, never required',
    }),
    scopes: Scopes.optional(),
    expires_at: ExpiresAt.nullable().optional(),
  },
  keyReadOnly,
).create.openapi('ApiKeyCreate');

export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreate>;

/** A key as listed: never its secret, which only its creation answer holds. */
export const ApiKeyInfo = z
  .object({
    id: Id,
    name: z.string().nullable().openapi({ description: 'null for keys made before keys had names' }),
    scopes: z.array(ScopeSchema).nullable().openapi({ description: 'null: full access' }),
    expires_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable().openapi({
      description: 'The minute of its latest request (to the minute); null: never used',
    }),
    created_at: Timestamp,
  })
  .openapi('ApiKey');

// A flat object, not `ApiKeyInfo.extend`: an extended registered schema becomes `allOf` with a
// `$ref`, which some client generators turn into a needless wrapper type.
export const NewApiKey = z
  .object({
    ...ApiKeyInfo.shape,
    key: z
      .string()
      .openapi({ description: 'The plaintext key: shown only in this answer', example: 'crm_…' }),
  })
  .openapi('NewApiKey');

/** What `GET /v1/me` tells the key that calls it. */
export const Me = z
  .object({
    account_id: Id,
    api_key: ApiKeyInfo,
  })
  .openapi('Me');
