import type { z } from '@hono/zod-openapi';
import { and, count } from 'drizzle-orm';
import { notFound } from '../../core/errors';
import type { Db } from '../../db/client';
import { inboundEvents, inboundWebhooks } from '../../db/schema';
import { type KeyRef, ownRow, scoped } from '../../db/tenant';
import { type EventDeleteResult, MAX_EVENT_DELETE, type WebhookEventDeleteQuery } from '../contract/schemas';
import { eventWhere } from './event-filter';
import { discardEvents } from './event-log';
import { statusIn } from './event-states';

/**
 * "Delete this webhook's events of this filter" (`DELETE …/events`, the panel's button): the
 * caller's webhook `id`'s events that `filter` keeps (the list's own filter, event-filter.ts) and
 * that may be deleted (not `pending`), oldest first, at most MAX_EVENT_DELETE per call, with their
 * result rows. One round trip, one transaction: the key check, the webhook's, the delete and the
 * count of the events still matching after it. not_found when the webhook is not theirs.
 */
export async function deleteMatching(
  db: Db,
  keyHash: KeyRef,
  id: number,
  filter: z.infer<typeof WebhookEventDeleteQuery>,
): Promise<z.infer<typeof EventDeleteResult>> {
  const where = eventWhere(keyHash, id, filter);
  const [, hooks, , deleted, left] = await scoped(
    db,
    keyHash,
    db
      .select({ id: inboundWebhooks.id })
      .from(inboundWebhooks)
      .where(ownRow(inboundWebhooks, keyHash, id)),
    ...discardEvents(db, where, MAX_EVENT_DELETE),
    db
      .select({ n: count() })
      .from(inboundEvents)
      .where(and(where, statusIn('discard'))),
  );
  if (!hooks.length) throw notFound();
  return { deleted: deleted.length, remaining: left[0]?.n ?? 0 };
}
