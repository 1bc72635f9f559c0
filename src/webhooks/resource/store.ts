import type { z } from '@hono/zod-openapi';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { iso } from '../../contracts/common';
import { conflict, invalid, notFound } from '../../core/errors';
import { allows } from '../../core/scopes';
import type { Db } from '../../db/client';
import type { Columns, WriteSpec } from '../../db/own';
import { inboundWebhooks, webhookRotations } from '../../db/schema';
import { type KeyRef, ownRow, scoped } from '../../db/tenant';
import { bumped } from '../../db/updated';
import { configIssues } from '../actions';
import type { InboundWebhook, InboundWebhookCreate, InboundWebhookUpdate } from '../contract/schemas';
import { replayFailed } from '../log/event-log';
import { type EventMessage, enqueueEvents } from '../log/event-messages';
import { type EventRow, eventQuery, ownEvent } from '../log/event-reads';
import { ownerRefs } from '../rules/config';
import { newWebhookToken } from '../rules/token';

type Create = z.infer<typeof InboundWebhookCreate>;
type Update = z.infer<typeof InboundWebhookUpdate>;
export type WebhookRow = typeof inboundWebhooks.$inferSelect;

/**
 * Whether a key sees a webhook's ingest URL. Its token is a write credential (a production webhook
 * without a secret turns any POST into records), so only a key that could rotate it anyway
 * (`webhooks:update`) sees it, and the key that just created the webhook (`webhooks:insert`, the
 * create answer). `held` is undefined until the key's lookup is read: nothing is shown then.
 */
export const seesWebhookUrl = (held: readonly string[] | null | undefined, creating = false): boolean =>
  held !== undefined && (allows(held, 'webhooks:update') || (creating && allows(held, 'webhooks:insert')));

/** The path of the webhook's ingest URL, whose token is the credential a sender posts with. */
export const hookPath = (row: Pick<WebhookRow, 'token'>) => `/hooks/${row.token}`;

/** When the URL a rotation replaced stops working, while it still works; else null. */
export const graceEnd = (
  row: Pick<WebhookRow, 'previousToken' | 'previousTokenExpiresAt'>,
  now = Date.now(),
): string | null =>
  row.previousToken !== null && row.previousTokenExpiresAt !== null && row.previousTokenExpiresAt > now
    ? iso(row.previousTokenExpiresAt)
    : null;

/**
 * The webhook as the API shows it. Its URL is absolute, and only the caller knows the origin the
 * request came in on, so `urlOf` turns the webhook's path into that URL; null when the caller may
 * not see it (`seesWebhookUrl`).
 */
export const presentWebhook = (
  row: WebhookRow,
  urlOf: ((path: string) => string) | null,
): z.infer<typeof InboundWebhook> => ({
  id: row.id,
  name: row.name,
  url: urlOf ? urlOf(hookPath(row)) : null,
  previous_url_expires_at: graceEnd(row),
  enabled: row.enabled,
  mode: row.mode,
  has_secret: row.secret !== null,
  fields: row.fields,
  flows: row.flows,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

/** The fields a body sent, as columns: serves create (after its defaults) and update. */
function columns(body: Update): Columns<typeof inboundWebhooks> {
  return {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    ...(body.mode !== undefined && { mode: body.mode }),
    ...(body.secret !== undefined && { secret: body.secret }),
    ...(body.fields !== undefined && { fields: body.fields }),
    ...(body.flows !== undefined && { flows: body.flows }),
  };
}

export const webhookSpec: WriteSpec<typeof inboundWebhooks, Create, Update> = {
  table: inboundWebhooks,
  // A new webhook gets its secret URL, and no fields or flows unless the body sends them.
  create: (body, _accountId, shard) => ({
    token: newWebhookToken(shard),
    fields: [],
    flows: [],
    ...columns(body),
  }),
  update: (body) => columns(body),
  refs: (body) => ownerRefs(body.flows ?? []),
  // Round-robin turns are counted per action position: new flows start their rotations afresh. A
  // new webhook (its id still SQL) has none.
  children: (db, body, accountId, id) =>
    body.flows === undefined || typeof id !== 'number'
      ? []
      : [
          db
            .delete(webhookRotations)
            .where(and(eq(webhookRotations.accountId, accountId), eq(webhookRotations.webhookId, id))),
        ],
  // A PUT may send the fields or the flows alone: the pair they make with the stored half must hold.
  validate: (body, current) => {
    const issues = configIssues(body.fields ?? current.fields, body.flows ?? current.flows);
    if (issues.length) {
      throw invalid(issues.map(({ path, ...said }) => ({ path: path.join('.'), ...said })));
    }
  },
};

/** The caller's webhook `id` (a disabled one's too), as one query of a batch. */
export const webhookQuery = (db: Db, keyHash: KeyRef, id: number) =>
  db
    .select()
    .from(inboundWebhooks)
    .where(ownRow(inboundWebhooks, keyHash, id));

/**
 * Sets columns of the caller's webhook `id` in one round trip (the key check in the same batch;
 * the update is scoped by the key's account), returning the row, or 404.
 */
export async function setOwnWebhook(
  db: Db,
  keyHash: KeyRef,
  id: number,
  values: {
    [K in 'enabled' | 'token' | 'mode' | 'secret' | 'previousToken' | 'previousTokenExpiresAt']?:
      | WebhookRow[K]
      | SQL;
  },
): Promise<WebhookRow> {
  const [, rows] = await scoped(
    db,
    keyHash,
    db
      .update(inboundWebhooks)
      .set({ ...values, updatedAt: bumped(inboundWebhooks.updatedAt) })
      .where(ownRow(inboundWebhooks, keyHash, id))
      .returning(),
  );
  const row = rows[0];
  if (!row) throw notFound();
  return row;
}

/**
 * Gives the caller's webhook `id` a new URL. The old one keeps working for `graceS` seconds (0: it
 * answers 404 at once), as Stripe does when rolling a secret, so the sender can move without
 * losing events. Only the URL just replaced gets a grace: rotating again during one ends the older
 * URL at once (a leak is the usual reason to rotate twice).
 */
export const rotateOwnWebhook = (db: Db, keyHash: KeyRef, id: number, graceS: number, now = Date.now()) =>
  setOwnWebhook(db, keyHash, id, {
    token: newWebhookToken(db.shard),
    // An UPDATE's right-hand side reads the row as it was: this keeps the token being replaced.
    previousToken: graceS > 0 ? sql`${inboundWebhooks.token}` : null,
    previousTokenExpiresAt: graceS > 0 ? now + graceS * 1000 : null,
  });

/** Queues the caller's failed event again: 404 when it is not theirs, 409 when it has not failed. */
export async function replayEvent(
  db: Db,
  keyHash: KeyRef,
  queue: Queue<EventMessage>,
  id: number,
  eventId: number,
): Promise<EventRow> {
  const theEvent = ownEvent(keyHash, id, eventId);
  // One batch: the update only takes a failed event; the read after it tells 404 from 409.
  const [, replayed, found] = await scoped(
    db,
    keyHash,
    replayFailed(db, theEvent, Date.now()),
    eventQuery(db, theEvent),
  );
  const row = found[0];
  if (!row) throw notFound();
  if (!replayed.length) throw conflict(`Only a failed event can be replayed; this one is ${row.status}.`);
  // If the hand-over fails the event stays pending, and the cron queues it again.
  await enqueueEvents(queue, db.shard, [row.id]);
  return row;
}
