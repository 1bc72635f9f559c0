import { type Db, primaryDb } from '../db/client';
import type { KeyRef } from '../db/tenant';
import type { Bindings } from '../env';
import { claimDelivery, type DeliveryRow, failUnsent, type Recorded, recordAttempt } from './deliveries';
import { announceDisabled } from './disabled';
import { type EndpointRow, signingSecrets } from './endpoints';
import { newPing, presentDelivery } from './log';
import { enqueueDeliveries, enqueueRetry } from './messages';
import { outboundPolicy, retryScale } from './policy';
import { type AttemptOutcome, postMessage } from './send';

/** One attempt of a claimed delivery, written down. `retries`: false for a ping, which is tried once. */
export async function attempt(
  db: Db,
  env: Bindings,
  delivery: DeliveryRow,
  endpoint: EndpointRow,
  retries: boolean,
): Promise<{ outcome: AttemptOutcome; recorded: Recorded }> {
  const message = { id: delivery.messageId, body: delivery.body, secrets: signingSecrets(endpoint) };
  const outcome = await postMessage(endpoint.url, message, outboundPolicy(env));
  const recorded = await recordAttempt(db, delivery, outcome, { retries, retryScale: retryScale(env) });
  return { outcome, recorded };
}

/** What to queue after an attempt: the retry at its time, the versions it lets go, the disabled notice. */
async function after(db: Db, env: Bindings, endpoint: EndpointRow, id: number, recorded: Recorded) {
  const queue = env.OUTBOUND;
  if (recorded.nextAttemptAt !== null)
    await enqueueRetry(queue, db.shard, id, recorded.nextAttemptAt - Date.now());
  if (recorded.released.length) await enqueueDeliveries(queue, db.shard, recorded.released);
  if (recorded.disabled) await announceDisabled(db, queue, endpoint, recorded.disabled);
}

/** The queue's work for one message: claim the delivery, try it, and queue what follows. */
export async function deliverMessage(env: Bindings, shard: number, id: number): Promise<void> {
  const db = primaryDb(env, shard);
  const claim = await claimDelivery(db, id, Date.now());
  if (claim.kind === 'endpoint_off') {
    await enqueueDeliveries(env.OUTBOUND, shard, await failUnsent(db, claim.delivery, Date.now()));
    return;
  }
  if (claim.kind !== 'send') return;
  const { recorded } = await attempt(db, env, claim.delivery, claim.endpoint, true);
  await after(db, env, claim.endpoint, id, recorded);
}

/**
 * A ping's one attempt, made in the request that asked for it: the delivery as the API shows it,
 * with that attempt (no read back: both are known here).
 */
export async function pingNow(db: Db, env: Bindings, endpoint: EndpointRow, delivery: DeliveryRow) {
  const { outcome, recorded } = await attempt(db, env, delivery, endpoint, false);
  await after(db, env, endpoint, delivery.id, recorded);
  const row = { ...delivery, status: recorded.status, nextAttemptAt: recorded.nextAttemptAt };
  const logged = { ...outcome, accountId: delivery.accountId, deliveryId: delivery.id, attempt: 1 };
  return presentDelivery(row, [logged]);
}

/** `POST /v1/webhook-endpoints/{id}/test` and the panel's test: a ping to the caller's endpoint, tried now. */
export async function testEndpoint(db: Db, env: Bindings, keyHash: KeyRef, id: number) {
  const { endpoint, delivery } = await newPing(db, keyHash, id);
  return { endpoint, delivery: await pingNow(db, env, endpoint, delivery) };
}
