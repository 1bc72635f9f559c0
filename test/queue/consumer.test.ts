import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { capturingLogs } from '../helpers';

describe('queue consumer', () => {
  it('retries messages it has no handler for, so they reach the dead-letter queue instead of vanishing', async () => {
    const batch = createMessageBatch<unknown>('crm-events', [
      { id: 'm1', timestamp: new Date(), attempts: 1, body: { type: 'unknown' } },
      { id: 'm2', timestamp: new Date(), attempts: 1, body: 'junk' },
    ]);
    const ctx = createExecutionContext();
    const { logged } = await capturingLogs(() => worker.queue(batch, env));
    expect(logged).toEqual([
      { level: 'warn', msg: 'unknown queue message', id: 'm1' },
      { level: 'warn', msg: 'unknown queue message', id: 'm2' },
    ]);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(['m1', 'm2']);
  });
});

describe('cron', () => {
  it('runs PRAGMA optimize against D1 and leaves the data readable', async () => {
    await env.DB.prepare('INSERT INTO accounts (name, created_at) VALUES (?, ?)').bind('Cron', 1).run();
    await worker.scheduled(createScheduledController({ cron: '*/15 * * * *' }), env);
    const row = await env.DB.prepare('SELECT name FROM accounts WHERE name = ?').bind('Cron').first();
    expect(row).toEqual({ name: 'Cron' });
  });
});
