import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { accountsOnShard, call, type Json, newAccount } from '../helpers';
import { endpointWithBox, ping } from './support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 86_400_000;
const cron = () =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' }), env);
const count = async (sql: string, id: number) =>
  ((await env.DB.prepare(sql).bind(id).first<Json>())?.n ?? 0) as number;
const left = async (id: number) => ({
  endpoint: await count('SELECT count(*) AS n FROM webhook_endpoints WHERE id = ?', id),
  deliveries: await count('SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?', id),
  attempts: await count(
    'SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)',
    id,
  ),
});

describe('the cron purges trashed endpoints', () => {
  it('deletes an endpoint in the trash past 30 days with its delivery log, and keeps a restorable one', async () => {
    const { key } = await newAccount();
    const { endpoint: old } = await endpointWithBox(key, [{ status: 500 }]);
    const { endpoint: recent } = await endpointWithBox(key, [{ status: 500 }]);
    await ping(key, old.id);
    await ping(key, recent.id);
    for (const e of [old, recent]) {
      expect((await call(`/v1/webhook-endpoints/${e.id}`, { method: 'DELETE', key })).status).toBe(204);
    }
    const trashedAgo = (id: number, days: number) =>
      env.DB.prepare('UPDATE webhook_endpoints SET deleted_at = ? WHERE id = ?')
        .bind(Date.now() - days * DAY, id)
        .run();
    await trashedAgo(old.id, 31);
    await trashedAgo(recent.id, 29);
    expect(await left(old.id)).toEqual({ endpoint: 1, deliveries: 1, attempts: 1 });
    await cron();
    expect(await left(old.id)).toEqual({ endpoint: 0, deliveries: 0, attempts: 0 });
    expect(await left(recent.id)).toEqual({ endpoint: 1, deliveries: 1, attempts: 1 });
    const restored = await call(`/v1/webhook-endpoints/${recent.id}/restore`, { method: 'POST', key });
    expect(restored.status).toBe(200);
  });
});
