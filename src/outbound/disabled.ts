import { and, eq, isNull, ne } from 'drizzle-orm';
import { isoOrNull } from '../contracts/common';
import { subscribes } from '../core/event-types';
import type { Db } from '../db/client';
import { webhookEndpoints } from '../db/schema';
import { insertDeliveries } from './deliveries';
import type { EndpointRow } from './endpoints';
import { type DeliveryMessage, enqueueDeliveries } from './messages';

/** A message id of the service's own events (not journal entries): the journal's `evt_` shape. */
export const newMessageId = (): string =>
  `evt_${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/**
 * Tells the account's other endpoints (those subscribed to `endpoint.disabled`) that `endpoint`
 * went off, and why: a 410, or 5 days failing without a break.
 */
export async function announceDisabled(
  db: Db,
  queue: Queue<DeliveryMessage>,
  endpoint: EndpointRow,
  reason: 'gone' | 'failing',
): Promise<void> {
  const e = webhookEndpoints;
  const others = await db
    .select({ id: e.id, eventTypes: e.eventTypes })
    .from(e)
    .where(
      and(
        eq(e.accountId, endpoint.accountId),
        ne(e.id, endpoint.id),
        eq(e.enabled, true),
        isNull(e.deletedAt),
      ),
    );
  const targets = others.filter((other) => subscribes(other.eventTypes, 'endpoint.disabled'));
  if (!targets.length) return;
  const now = Date.now();
  const messageId = newMessageId();
  const body = JSON.stringify({
    type: 'endpoint.disabled',
    timestamp: new Date(now).toISOString(),
    data: {
      id: endpoint.id,
      url: endpoint.url,
      disabled_reason: reason,
      failing_since: isoOrNull(endpoint.failingSince),
    },
  });
  const rows = targets.map((t) => ({
    accountId: endpoint.accountId,
    endpointId: t.id,
    messageId,
    type: 'endpoint.disabled',
    body,
  }));
  const inserted = await insertDeliveries(db, rows, now);
  await enqueueDeliveries(
    queue,
    db.shard,
    inserted.map((r) => r.id),
  );
}
