import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { homeShardOfId } from '../../src/db/shards';
import worker from '../../src/index';
import { requeueStranded, STRANDED_AFTER_MS } from '../../src/queue/consumer';
import { capturingLogs, d1OfRow, type Json } from '../helpers';
import { deliver, eventOf, get, ingest, leadHook } from './webhook-support';

const MINUTE = 60_000;

/** The shard an event is on: its id's range (src/db/shards.ts). */
const shardOfEvent = (id: number) => homeShardOfId('inbound_events', id);

/** Moves the event's arrival and last hand-over to the queue `ms` into the past. */
async function backdate(id: number, ms: number): Promise<void> {
  await d1OfRow('inbound_events', id)
    .prepare(
      'UPDATE inbound_events SET received_at = received_at - ?1, queued_at = queued_at - ?1 WHERE id = ?2',
    )
    .bind(ms, id)
    .run();
}

async function queuedAt(id: number): Promise<number> {
  const row = await d1OfRow('inbound_events', id)
    .prepare('SELECT queued_at FROM inbound_events WHERE id = ?')
    .bind(id)
    .first<{
      queued_at: number;
    }>();
  if (!row) throw new Error(`no event ${id}`);
  return row.queued_at;
}

const cron = (scheduledTime = Date.now()) =>
  worker.scheduled(createScheduledController({ scheduledTime, cron: '*/5 * * * *' }), env);

describe('cron: stranded events', () => {
  it('re-queues an event still pending minutes after its queue send was lost, and the real queue delivers it', async () => {
    const { key, hook } = await leadHook();
    // "__fault": "send": stored and answered 204, but never handed to the queue.
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', __fault: 'send' });
    await backdate(id, 10 * MINUTE);
    const before = Date.now();
    await cron(before);
    expect(await queuedAt(id)).toBeGreaterThanOrEqual(before);

    let event: Json = await eventOf(key, hook.id, id);
    for (const deadline = Date.now() + 30_000; event.status === 'pending' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      event = await eventOf(key, hook.id, id);
    }
    expect(event).toMatchObject({ status: 'processed', attempts: 1, error: null });
    expect(await get(key, `/v1/contacts/${event.result.contact_id}`)).toMatchObject({
      name: 'Ana',
      phone: '+5511987654321',
    });
    expect(await get(key, `/v1/deals/${event.result.deal_id}`)).toMatchObject({ name: 'Lead Ana' });
  }, 60_000);

  it('leaves alone events pending for less than the window and events that are done', async () => {
    const { key, hook } = await leadHook();
    const recent = await ingest(hook, { telefone: '11911111111', nome: 'Recente', __fault: 'send' });
    await backdate(recent, 4 * MINUTE);
    const processed = await ingest(hook, { telefone: '11922222222', nome: 'Feito', __fault: 'send' });
    const failed = await ingest(hook, { telefone: '11933333333', __fault: 'send' });
    await deliver([processed, failed]);
    await d1OfRow('inbound_events', failed)
      .prepare("UPDATE inbound_events SET status = 'failed', error = 'boom' WHERE id = ?")
      .bind(failed)
      .run();
    await backdate(processed, 10 * MINUTE);
    await backdate(failed, 10 * MINUTE);
    const ids = [recent, processed, failed];
    const before = await Promise.all(ids.map(queuedAt));
    const log = await Promise.all(ids.map((id) => eventOf(key, hook.id, id)));
    expect(log.map((e) => e.status)).toEqual(['pending', 'processed', 'failed']);

    await cron();
    expect(await Promise.all(ids.map(queuedAt))).toEqual(before);
    expect(await Promise.all(ids.map((id) => eventOf(key, hook.id, id)))).toEqual(log);
  });

  it('counts the window from the last hand-over: exactly five minutes is not yet stranded', async () => {
    const { hook } = await leadHook();
    const id = await ingest(hook, { telefone: '11944444444', nome: 'Limite', __fault: 'send' });
    const handedOver = await queuedAt(id);
    await requeueStranded(env, shardOfEvent(id), handedOver + STRANDED_AFTER_MS);
    expect(await queuedAt(id)).toBe(handedOver);
    const later = handedOver + STRANDED_AFTER_MS + 1;
    await requeueStranded(env, shardOfEvent(id), later);
    expect(await queuedAt(id)).toBe(later);
  });

  it("takes the drill's STRANDED_AFTER_MS only with fault injection on, and five minutes when it is unset or invalid", async () => {
    const { hook } = await leadHook();
    const id = await ingest(hook, { telefone: '11966666666', nome: 'Janela', __fault: 'send' });
    const handedOver = await queuedAt(id);
    const second = handedOver + 1001;
    await requeueStranded(env, shardOfEvent(id), second);
    await requeueStranded(
      { ...env, STRANDED_AFTER_MS: '1000', FAULT_INJECTION: undefined },
      shardOfEvent(id),
      second,
    );
    for (const invalid of ['', '0', '-1000', '1.5', 'soon']) {
      await requeueStranded({ ...env, STRANDED_AFTER_MS: invalid }, shardOfEvent(id), second);
    }
    await requeueStranded({ ...env, STRANDED_AFTER_MS: '1000' }, shardOfEvent(id), handedOver + 1000);
    expect(await queuedAt(id)).toBe(handedOver);
    await requeueStranded({ ...env, STRANDED_AFTER_MS: '1000' }, shardOfEvent(id), second);
    expect(await queuedAt(id)).toBe(second);
  });

  it('does not re-queue an event whose retry is scheduled, until five minutes after the retry was due', async () => {
    const { key, hook } = await leadHook();
    const id = await ingest(hook, { telefone: '11955555555', nome: 'Retry', __fault: 'send' });
    await d1OfRow('inbound_events', id)
      .prepare(`UPDATE inbound_events SET payload = json_set(payload, '$.__fault', 'consumer') WHERE id = ?`)
      .bind(id)
      .run();
    const { value: result, logged } = await capturingLogs(() => deliver([id]));
    expect(logged).toEqual([
      expect.objectContaining({ request_id: `event:${id}`, cause: 'Injected transient fault' }),
    ]);
    expect(result.retries).toEqual([{ msgId: 'm0', delaySeconds: 10 }]);
    const due = await queuedAt(id);
    const event = await eventOf(key, hook.id, id);
    expect(event).toMatchObject({ status: 'pending', attempts: 1 });
    expect(due).toBeGreaterThanOrEqual(Date.parse(event.received_at) + 10_000);
    // The queue's own redelivery of what the cron sends below would succeed (not part of this test).
    await d1OfRow('inbound_events', id)
      .prepare(`UPDATE inbound_events SET payload = json_remove(payload, '$.__fault') WHERE id = ?`)
      .bind(id)
      .run();
    // Five minutes after the failure the retry is still the queue's business.
    await requeueStranded(env, shardOfEvent(id), due - 10_000 + STRANDED_AFTER_MS);
    expect(await queuedAt(id)).toBe(due);
    // Five minutes after it was due, it counts as lost and goes to the queue again.
    await requeueStranded(env, shardOfEvent(id), due + STRANDED_AFTER_MS + 1);
    expect(await queuedAt(id)).toBe(due + STRANDED_AFTER_MS + 1);
  });
});
