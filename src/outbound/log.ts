import type { z } from '@hono/zod-openapi';
import { and, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import { iso, isoOrNull } from '../contracts/common';
import type { WebhookDelivery } from '../contracts/webhook-endpoints';
import { conflict, notFound } from '../core/errors';
import { PING } from '../core/event-types';
import type { Db } from '../db/client';
import type { PagePlan } from '../db/keyset';
import { TRASH_MS } from '../db/live';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../db/schema';
import { accountOf, type KeyRef, ownRow, scoped } from '../db/tenant';
import { PURGE_BATCH } from '../db/trash';
import { type DeliveryRow, insertDeliveries, reopen, underWay } from './deliveries';
import { newMessageId } from './disabled';
import type { EndpointRow } from './endpoints';
import { type DeliveryMessage, enqueueDeliveries } from './messages';

type AttemptRow = typeof webhookAttempts.$inferSelect;
const d = webhookDeliveries;

/** Deliveries and attempts are kept this long (the cron purges them). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

/** A delivery as the API shows it, its attempts oldest first. */
export const presentDelivery = (
  row: DeliveryRow,
  attempts: AttemptRow[],
): z.infer<typeof WebhookDelivery> => ({
  id: row.id,
  endpoint_id: row.endpointId,
  message_id: row.messageId,
  type: row.type,
  status: row.status,
  next_attempt_at: isoOrNull(row.nextAttemptAt),
  attempts: attempts
    .filter((a) => a.deliveryId === row.id)
    .sort((a, b) => a.attempt - b.attempt)
    .map((a) => ({
      at: iso(a.at),
      status: a.status,
      latency_ms: a.latencyMs,
      response: a.response,
      error: a.error,
    })),
  created_at: iso(row.createdAt),
});

const ownEndpoint = (db: Db, keyHash: KeyRef, id: number) =>
  db
    .select()
    .from(webhookEndpoints)
    .where(ownRow(webhookEndpoints, keyHash, id));

/**
 * One page of the caller's endpoint's deliveries (`page`: db/keyset.ts's walks), with every
 * attempt, in one round trip. 404 when the endpoint is not theirs.
 */
export async function listDeliveries(db: Db, keyHash: KeyRef, id: number, page: PagePlan) {
  const mine = and(eq(d.accountId, accountOf(keyHash)), eq(d.endpointId, id), or(...page.walks));
  const ids = db
    .select({ id: d.id })
    .from(d)
    .where(mine)
    .orderBy(...page.orderBy())
    .limit(page.fetch);
  const [, endpoint, rows, attempts] = await scoped(
    db,
    keyHash,
    ownEndpoint(db, keyHash, id),
    db
      .select()
      .from(d)
      .where(mine)
      .orderBy(...page.orderBy())
      .limit(page.fetch),
    db
      .select()
      .from(webhookAttempts)
      .where(
        and(eq(webhookAttempts.accountId, accountOf(keyHash)), inArray(webhookAttempts.deliveryId, ids)),
      ),
  );
  const own = endpoint[0];
  if (!own) throw notFound();
  return { endpoint: own as EndpointRow, rows, attempts };
}

/** A ping delivery to the caller's endpoint, made now (the test route tries it at once). */
export async function newPing(db: Db, keyHash: KeyRef, id: number, now = Date.now()) {
  const messageId = newMessageId();
  const body = JSON.stringify({
    type: PING,
    timestamp: new Date(now).toISOString(),
    data: { endpoint_id: id },
  });
  const [, endpoint] = await scoped(db, keyHash, ownEndpoint(db, keyHash, id));
  const row = endpoint[0];
  if (!row) throw notFound();
  const [delivery] = await insertDeliveries(
    db,
    [{ accountId: row.accountId, endpointId: id, messageId, type: PING, body }],
    now,
    underWay(now),
  );
  if (!delivery) throw new Error('the ping was not stored');
  return { endpoint: row as EndpointRow, delivery };
}

/**
 * Sends the caller's failed deliveries of endpoint `id` again (one, or every one since a time): a
 * new round of tries, due now. 404 when the endpoint (or the delivery) is not theirs.
 */
export async function reopenDeliveries(
  db: Db,
  keyHash: KeyRef,
  id: number,
  which: { deliveryId: number } | { since: number },
  now = Date.now(),
): Promise<number[]> {
  const mine = and(eq(d.accountId, accountOf(keyHash)), eq(d.endpointId, id));
  const picked =
    'deliveryId' in which ? and(mine, eq(d.id, which.deliveryId)) : and(mine, gte(d.createdAt, which.since));
  const [, endpoint, reopened, found] = await scoped(
    db,
    keyHash,
    ownEndpoint(db, keyHash, id),
    reopen(
      db,
      and(
        picked,
        sql`exists (select 1 from ${webhookEndpoints} where ${ownRow(webhookEndpoints, keyHash, id)})`,
      ),
      // One delivery is sent again whatever its end; a recover takes the ones that did not arrive.
      'deliveryId' in which ? ['failed', 'aborted', 'succeeded'] : ['failed', 'aborted'],
      now,
    ),
    db.select({ id: d.id }).from(d).where(picked).limit(1),
  );
  if (!endpoint[0] || ('deliveryId' in which && !found[0])) throw notFound();
  if ('deliveryId' in which && !reopened.length)
    throw conflict('This delivery is still being tried; it cannot be resent now.');
  return reopened.map((r) => r.id);
}

/**
 * Resend (one delivery) or recover (every failed one since a time): reopens them and queues them
 * now. Returns how many were queued.
 */
export async function sendAgain(
  db: Db,
  keyHash: KeyRef,
  queue: Queue<DeliveryMessage>,
  id: number,
  which: { deliveryId: number } | { since: number },
): Promise<number> {
  const ids = await reopenDeliveries(db, keyHash, id, which);
  await enqueueDeliveries(queue, db.shard, ids);
  return ids.length;
}

/**
 * The cron's retention: deliveries made more than 30 days ago and their attempts, oldest first,
 * at most `limit` per run (one batch), whatever their state.
 */
export async function purgeOldDeliveries(db: Db, now: number, limit = 500): Promise<number> {
  const old = sql`(select ${d.id} from ${d} where ${d.createdAt} < ${now - DELIVERY_RETENTION_MS} order by ${d.createdAt} limit ${limit})`;
  const [, purged] = await db.batch([
    db.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, old)),
    db.delete(d).where(inArray(d.id, old)).returning({ id: d.id }),
  ]);
  return purged.length;
}

/**
 * The cron's purge of the endpoints trashed more than 30 days ago (as every resource's trash), with
 * their delivery log: at most PURGE_BATCH endpoints a run, oldest first, in one batch.
 */
export async function purgeTrashedEndpoints(db: Db, now: number): Promise<number> {
  const e = webhookEndpoints;
  const due = sql`(select ${e.accountId}, ${e.id} from ${e} where ${lt(e.deletedAt, now - TRASH_MS)} order by ${e.deletedAt} limit ${PURGE_BATCH})`;
  const theirs = sql`(${d.accountId}, ${d.endpointId}) in ${due}`;
  const a = webhookAttempts;
  const [, , purged] = await db.batch([
    db
      .delete(a)
      .where(
        sql`(${a.accountId}, ${a.deliveryId}) in (select ${d.accountId}, ${d.id} from ${d} where ${theirs})`,
      ),
    db.delete(d).where(theirs),
    db.delete(e).where(sql`(${e.accountId}, ${e.id}) in ${due}`).returning({ id: e.id }),
  ]);
  return purged.length;
}
