import type { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { iso, isoAfter, isoOrNull } from '../contracts/common';
import type {
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
} from '../contracts/webhook-endpoints';
import { notFound } from '../core/errors';
import type { OutboundPolicy } from '../core/outbound-url';
import type { Db } from '../db/client';
import { type Columns, createOwn, updateOwn, type WriteSpec } from '../db/own';
import { webhookEndpoints } from '../db/schema';
import { type KeyRef, ownRow, scoped } from '../db/tenant';
import type { TrashSpec } from '../db/trash';
import { bumped } from '../db/updated';
import { assertOutboundUrl } from './policy';
import { newSigningSecret } from './signing';

/** The create body and the secret the route made for it, which it shows once (a read back never selects it). */
export type Create = z.infer<typeof WebhookEndpointCreate> & { secret: string };
type Update = z.infer<typeof WebhookEndpointUpdate>;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The secrets that sign a message now: the current one, and the one a rotation replaced while its grace lasts. */
export const signingSecrets = (row: EndpointRow, now = Date.now()): string[] =>
  row.previousSecret !== null && (row.previousSecretExpiresAt ?? 0) > now
    ? [row.secret, row.previousSecret]
    : [row.secret];

/** The endpoint as the API shows it: a secret only when given (the create and rotate answers). */
export const presentEndpoint = (
  row: Omit<EndpointRow, 'secret' | 'previousSecret'> & Partial<EndpointRow>,
  secret?: string,
): z.infer<typeof WebhookEndpoint> => {
  const created = iso(row.createdAt);
  const graceEnd =
    row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > Date.now()
      ? row.previousSecretExpiresAt
      : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: isoOrNull(row.failingSince),
    ...(secret !== undefined && { secret }),
    previous_secret_expires_at: isoOrNull(graceEnd),
    created_at: created,
    updated_at: isoAfter(row.updatedAt, row.createdAt, created),
    deleted_at: isoOrNull(row.deletedAt),
  };
};

function columns(body: Update): Columns<typeof webhookEndpoints> {
  return {
    ...(body.url !== undefined && { url: body.url }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.event_types !== undefined && { eventTypes: body.event_types }),
    // Turning it on again, by hand, forgets why the service had turned it off and its failing streak.
    ...(body.enabled !== undefined && { enabled: body.enabled, disabledReason: null, failingSince: null }),
  };
}

export const endpointSpec: WriteSpec<typeof webhookEndpoints, Create, Update> = {
  table: webhookEndpoints,
  unread: ['accountId', 'secret', 'previousSecret'],
  create: (body) => ({ secret: body.secret, ...columns(body) }),
  update: (body) => columns(body),
};

/**
 * Creates the caller's endpoint (`POST /v1/webhook-endpoints` and the panel): its URL checked by
 * `policy`, a new signing secret, which the answer shows once.
 */
export async function createEndpoint(
  db: Db,
  keyHash: KeyRef,
  body: z.infer<typeof WebhookEndpointCreate>,
  policy: OutboundPolicy,
): Promise<{ row: EndpointRow; secret: string }> {
  assertOutboundUrl(body.url, policy);
  const secret = newSigningSecret();
  const row = await createOwn(db, keyHash, endpointSpec, { ...body, secret });
  return { row: row as EndpointRow, secret };
}

/** Updates the caller's endpoint `id` with what `body` sets, a new URL checked by `policy`. */
export async function updateEndpoint(
  db: Db,
  keyHash: KeyRef,
  id: number,
  body: Update,
  policy: OutboundPolicy,
) {
  if (body.url !== undefined) assertOutboundUrl(body.url, policy);
  return updateOwn(db, keyHash, endpointSpec, id, body);
}

export const endpointTrash: TrashSpec<typeof webhookEndpoints> = { table: webhookEndpoints };

/**
 * A new secret for the caller's endpoint `id`; the old one keeps signing beside it for `graceS`
 * seconds (0: never again). Only the secret just replaced gets a grace: rotating twice in a grace
 * ends the older one at once, as a leak is the usual reason to rotate twice.
 */
export async function rotateSecret(
  db: Db,
  keyHash: KeyRef,
  id: number,
  graceS: number,
  now = Date.now(),
): Promise<EndpointRow> {
  const [, rows] = await scoped(
    db,
    keyHash,
    db
      .update(webhookEndpoints)
      .set({
        secret: newSigningSecret(),
        // An UPDATE's right-hand side reads the row as it was: this keeps the secret being replaced.
        previousSecret: graceS > 0 ? sql`${webhookEndpoints.secret}` : null,
        previousSecretExpiresAt: graceS > 0 ? now + graceS * 1000 : null,
        updatedAt: bumped(webhookEndpoints.updatedAt),
      })
      .where(ownRow(webhookEndpoints, keyHash, id))
      .returning(),
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}
