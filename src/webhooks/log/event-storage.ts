import type { z } from '@hono/zod-openapi';
import { count, eq, type Param, type SQL, sql } from 'drizzle-orm';
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch';
import type { Usage } from '../../contracts/usage';
import { eventStorageFull, MAX_WEBHOOKS } from '../../core/errors';
import type { Db } from '../../db/client';
import {
  accountEventStorage,
  heldEvents,
  inboundEvents,
  inboundWebhooks,
  webhookEventStorage,
} from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';

// What one account's webhook events may take of the D1 that every account shares: a retention
// (events older than it are purged by the cron), a quota (over it, ingest answers 429) and each
// webhook's share of it (over it, that webhook's ingest answers 429 and the others go on). The
// usage itself is kept by triggers on inbound_events (drizzle/0020_webhook_event_storage.sql), so
// every insert, rewrite (consumer, erasure) and delete counts, in the statement that makes it, the
// event's search index entries included. The writes themselves (the cron's purge and the account's
// delete included) are webhooks/log/event-log.ts's.

/** The `[vars]` of wrangler.toml this module reads; unset or invalid: the defaults. */
export type StorageVars = {
  EVENT_RETENTION_DAYS?: string;
  EVENT_STORAGE_QUOTA_MIB?: string;
  EVENT_STORAGE_WEBHOOK_PERCENT?: string;
};

export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_QUOTA_MIB = 256;
/** A webhook's share of its account's quota, in percent: 4 flooded URLs to fill an account. */
export const DEFAULT_WEBHOOK_PERCENT = 25;
const MIB = 1024 * 1024;

/**
 * A positive whole number from `vars`, at most `max`. Own properties only: a key planted on
 * Object.prototype must never become configuration.
 */
function setting(vars: StorageVars, name: keyof StorageVars, fallback: number, max: number): number {
  const raw = Object.hasOwn(vars, name) ? vars[name] : undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  return /^[1-9]\d{0,8}$/.test(text) ? Math.min(Number(text), max) : fallback;
}

/** Days an event is kept (at least 1, so a live ingest Idempotency-Key is never purged). */
export const retentionDays = (vars: StorageVars) =>
  setting(vars, 'EVENT_RETENTION_DAYS', DEFAULT_RETENTION_DAYS, 3650);

/** Bytes of events an account may keep. */
export const quotaBytes = (vars: StorageVars) =>
  setting(vars, 'EVENT_STORAGE_QUOTA_MIB', DEFAULT_QUOTA_MIB, 1024 * 1024) * MIB;

/** Bytes of events one webhook may keep, within its account's quota. */
export const webhookQuotaBytes = (vars: StorageVars) =>
  Math.floor(
    (quotaBytes(vars) * setting(vars, 'EVENT_STORAGE_WEBHOOK_PERCENT', DEFAULT_WEBHOOK_PERCENT, 100)) / 100,
  );

/**
 * The bytes the webhook's account's events take up, as a column of a select from inbound_webhooks,
 * so ingest reads it with its webhook lookup. Calls held during a move's freeze count too (their
 * JSON's bytes; held_events is empty but for a moving account, so this is one index probe): the
 * drain stores each as an event, so a flood in the freeze would otherwise pass the quota. Every
 * name is qualified: Drizzle leaves a one-table select's columns bare, which inside this subquery
 * would name the usage table's own account_id and read any account's usage.
 */
export const storedEventBytes = () => {
  const account = sql`${inboundWebhooks}.${sql.identifier(inboundWebhooks.accountId.name)}`;
  return sql<number>`coalesce((select s.bytes from ${accountEventStorage} s where s.account_id = ${account}), 0) + coalesce((select sum(length(cast(h.call as blob))) from ${heldEvents} h where h.account_id = ${account}), 0)`.mapWith(
    Number,
  );
};

/** The bytes the looked-up webhook's own events take up, as a column of the same select. */
export const storedWebhookBytes = () =>
  sql<number>`coalesce((select s.bytes from ${webhookEventStorage} s where s.webhook_id = ${inboundWebhooks}.${sql.identifier(inboundWebhooks.id.name)}), 0)`.mapWith(
    Number,
  );

/**
 * Whether a live event of the looked-up webhook already holds the call's Idempotency-Key, as a
 * column of the same select: a retry of an event stored before the account filled up is answered
 * as everywhere else (204, already stored), not 429. Same qualification as storedEventBytes. The
 * key and the start of its window come as parameters the caller keeps (the lookup's shape finds
 * them by identity: Drizzle copies a selected field's SQL, not its chunks).
 */
export const heldIdempotencyKey = (held: { key: Param; since: Param } | undefined) =>
  held === undefined
    ? sql<boolean>`0`.mapWith(Boolean)
    : sql<boolean>`exists (select 1 from ${inboundEvents} k where k.webhook_id = ${inboundWebhooks}.${sql.identifier(inboundWebhooks.id.name)} and k.idempotency_key = ${held.key} and k.received_at >= ${held.since})`.mapWith(
        Boolean,
      );

/** What a webhook's and its account's events take up, as ingest reads them. */
export type StoredBytes = { account: number; webhook: number };

/** Whether the account's events fill its quota, or the webhook's fill its share of it. */
export const storageFull = (used: StoredBytes, vars: StorageVars) =>
  used.account >= quotaBytes(vars) || used.webhook >= webhookQuotaBytes(vars);

/**
 * 429 `event_storage_full` once the account's events fill its quota, or this webhook's fill its
 * share (the other webhooks go on). Checked before the call is read, so a full account costs D1
 * no write; concurrent calls may pass it together, so a quota can be overshot by at most one
 * stored body per call in flight. Space frees as the cron purges events past the retention, as
 * the account deletes events (`DELETE …/events`, the panel), or when the operator raises the quota.
 */
export function assertEventRoom(used: StoredBytes, vars: StorageVars): void {
  if (!storageFull(used, vars)) return;
  const whose =
    used.account >= quotaBytes(vars)
      ? 'the webhook events of this account fill its storage quota'
      : "this webhook's events fill its share of the account's event storage (the account's other webhooks still store theirs)";
  throw eventStorageFull(
    `This call was not stored: ${whose}. This is not a rate limit: space frees up as the cron (every 5 minutes) deletes events older than the ${retentionDays(vars)}-day retention, when the account deletes events of this webhook, or when the service's operator raises the quota (EVENT_STORAGE_QUOTA_MIB). Keep the event and retry it with the same Idempotency-Key after Retry-After. A retry of an event already stored is answered 204.`,
  );
}

/** The account's event storage, for /v1 and the panel: one statement, no row before its first event. */
export const eventStorageQuery = (db: Db, accountId: SQL<number> | number) =>
  db
    .select({ bytes: accountEventStorage.bytes, events: accountEventStorage.events })
    .from(accountEventStorage)
    .where(eq(accountEventStorage.accountId, accountId));

export type EventStorage = z.infer<typeof Usage>['event_storage'];

export function presentEventStorage(
  rows: { bytes: number; events: number }[],
  vars: StorageVars,
): EventStorage {
  const used = Math.max(0, rows[0]?.bytes ?? 0);
  const quota = quotaBytes(vars);
  return {
    used_bytes: used,
    quota_bytes: quota,
    webhook_quota_bytes: webhookQuotaBytes(vars),
    events: Math.max(0, rows[0]?.events ?? 0),
    retention_days: retentionDays(vars),
    full: used >= quota,
  };
}

/** The account's usage of its limits, in one round trip (`GET /v1/usage`). */
export async function accountUsage<M extends BatchItem<'sqlite'>>(
  db: Db,
  keyHash: KeyRef,
  vars: StorageVars,
  /** One more count of the account's, in the same round trip (the change journal's). */
  more: (account: SQL<number>) => M,
): Promise<{ usage: Omit<z.infer<typeof Usage>, 'change_journal'>; more: BatchResponse<[M]>[0] }> {
  const account = accountOf(keyHash);
  const [, storage, hooks, extra] = await scoped(
    db,
    keyHash,
    eventStorageQuery(db, account),
    db.select({ n: count() }).from(inboundWebhooks).where(eq(inboundWebhooks.accountId, account)),
    more(account),
  );
  return {
    usage: {
      inbound_webhooks: { count: hooks[0]?.n ?? 0, limit: MAX_WEBHOOKS },
      event_storage: presentEventStorage(storage, vars),
    },
    more: extra,
  };
}
