import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  type QueueResult,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { homeShardOfId } from '../../src/db/shards';
import worker from '../../src/index';
import { call, d1Of, d1OfRow, type Json, json, list, newAccount, newWebhook } from '../helpers';

// Shared by the queue consumer, flows and cron tests of inbound webhooks.

/**
 * POSTs `body` to the webhook and returns the id of the event it stored. Add `__fault: 'send'` to
 * keep the event off the real queue, so only the test's own deliveries process it.
 */
export async function ingest(hook: { id: number; path: string }, body: Json): Promise<number> {
  const res = await call(hook.path, { method: 'POST', body });
  expect(res.status, await res.clone().text()).toBe(204);
  const row = await d1OfRow('inbound_webhooks', hook.id)
    .prepare('SELECT max(id) AS id FROM inbound_events WHERE webhook_id = ?')
    .bind(hook.id)
    .first<{ id: number }>();
  if (!row?.id) throw new Error('no event stored');
  return row.id;
}

export type Delivery = QueueResult & {
  /** Each retried message and the delay it asked for (getQueueResult does not report the delay). */
  retries: { msgId: string; delaySeconds: number | undefined }[];
};

/** Runs the queue handler on one batch of messages for these events; returns what it acked and retried. */
export async function deliver(
  events: (number | { id: number; attempts?: number; msg?: string })[],
  queue = 'crm-events',
): Promise<Delivery> {
  const batch = createMessageBatch(
    queue,
    events.map((e, i) => {
      const { id, attempts = 1, msg = `m${i}` } = typeof e === 'number' ? { id: e } : e;
      // Each message names its event's shard, as the Worker's own sends do (src/core/message-shard.ts).
      const body = { event_id: id, shard: homeShardOfId('inbound_events', id) };
      return { id: msg, timestamp: new Date(), attempts, body };
    }),
  );
  const retries: Delivery['retries'] = [];
  for (const message of batch.messages) {
    // Records the options, then retries the test runtime's message as the handler asked.
    const retry = message.retry.bind(message);
    Object.defineProperty(message, 'retry', {
      value: (options?: QueueRetryOptions) => {
        retries.push({ msgId: message.id, delaySeconds: options?.delaySeconds });
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages.map((m) => m.msgId)).toEqual(retries.map((m) => m.msgId));
  return { ...result, retries };
}

/** The webhook's events through the API (newest first), with optional query parameters. */
export async function eventLog(key: string, hookId: number, query = ''): Promise<Json[]> {
  return (await list(key, `/v1/inbound-webhooks/${hookId}/events${query ? `?${query}` : ''}`)).data;
}

/** One event as GET /v1/inbound-webhooks/{id}/events shows it. */
export async function eventOf(key: string, hookId: number, eventId: number): Promise<Json> {
  const found = (await eventLog(key, hookId, 'limit=100')).find((e) => e.id === eventId);
  if (!found) throw new Error(`event ${eventId} not in the log of webhook ${hookId}`);
  return found;
}

/** A resource of the account through the API. */
export async function get(key: string, path: string): Promise<Json> {
  const res = await call(path, { key });
  expect(res.status, `GET ${path}`).toBe(200);
  return (await json(res)).data;
}

/** How many rows of `table` the account has, read straight from D1. */
export async function countRows(table: string, accountId: number): Promise<number> {
  const row = await d1Of(accountId)
    .prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The account's record counts, to show what an event did or did not write. */
export async function recordCounts(accountId: number): Promise<Record<string, number>> {
  const tables = ['contacts', 'companies', 'deals', 'tasks', 'task_owners', 'task_categories'];
  const counts = await Promise.all(tables.map((t) => countRows(t, accountId)));
  return Object.fromEntries(tables.map((t, i) => [t, counts[i] ?? 0]));
}

export const NO_RECORDS = {
  contacts: 0,
  companies: 0,
  deals: 0,
  tasks: 0,
  task_owners: 0,
  task_categories: 0,
};

/**
 * Posts `body` to the webhook (kept off the real queue), delivers its message once, and returns the
 * event as the log shows it.
 */
export async function runEvent(key: string, hook: { id: number; path: string }, body: Json): Promise<Json> {
  const id = await ingest(hook, { ...body, __fault: 'send' });
  await deliver([id]);
  return eventOf(key, hook.id, id);
}

/** A new account with a lead webhook: the contact by phone, a deal per event. */
export async function leadHook() {
  const account = await newAccount();
  const hook = await newWebhook(account.key, {
    fields: [
      { key: 'nome', type: 'string', target: 'contact.name' },
      { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
    ],
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: 'Lead {{nome}}' },
    ],
  });
  return { ...account, hook };
}
