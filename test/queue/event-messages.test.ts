import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { homeShardOfId } from '../../src/db/shards';
import { enqueueEvents } from '../../src/webhooks/log/event-messages';
import type { Json } from '../helpers';
import { eventOf, ingest, leadHook } from './webhook-support';

/** The event once the real queue's consumer is done with it (or pending after 30 s). */
async function settled(key: string, hookId: number, id: number): Promise<Json> {
  let event: Json = await eventOf(key, hookId, id);
  for (const deadline = Date.now() + 30_000; event.status === 'pending' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    event = await eventOf(key, hookId, id);
  }
  return event;
}

describe('enqueueEvents', () => {
  it('hands one event (Queue.send) and several (sendBatch) to the real queue as messages its consumer reads alike', async () => {
    const { key, hook } = await leadHook();
    // "__fault": "send": stored pending, never handed to the queue by ingest.
    const ids: number[] = [];
    // One at a time: ingest reads back the webhook's newest event.
    for (const telefone of ['11911111111', '11922222222', '11933333333'])
      ids.push(await ingest(hook, { nome: `Lead ${telefone}`, telefone, __fault: 'send' }));
    // The events' shard, from their ids' range (src/db/shards.ts).
    const shard = homeShardOfId('inbound_events', ids[0] as number);
    await enqueueEvents(env.EVENTS, shard, ids.slice(0, 1));
    await enqueueEvents(env.EVENTS, shard, ids.slice(1));
    const events = await Promise.all(ids.map((id) => settled(key, hook.id, id)));
    for (const event of events)
      expect(event).toMatchObject({ status: 'processed', attempts: 1, error: null });
  }, 60_000);
});
