import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  allIds,
  call,
  ISO_MS,
  idsOf,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
  pageWithNext,
  postEvent,
} from '../helpers';
import { eventIds, eventsPath, PATH, pendingEvent, put } from './inbound-webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

describe('inbound webhooks: events', () => {
  it('lists stored events newest first, pending, with their full payload and no result yet', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'n', type: 'number', required: true }] });
    for (let n = 1; n <= 3; n++) await pendingEvent(hook.url, { n, extra: { kept: n } });
    const page = await list(key, eventsPath(hook.id));
    expect(page.data.map((e: Json) => e.payload.n)).toEqual([3, 2, 1]);
    expect(page.data[0]).toEqual({
      id: expect.any(Number),
      webhook_id: hook.id,
      status: 'pending',
      attempts: 0,
      error: null,
      error_code: null,
      error_params: null,
      received_at: expect.stringMatching(ISO_MS),
      processed_at: null,
      payload: { n: 3, extra: { kept: 3 }, __fault: 'send' },
      result: null,
      preview: null,
      warnings: [],
      rejection: null,
      history: [],
    });
    const ids = idsOf(page);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(Math.abs(Date.parse(page.data[0].received_at) - Date.now())).toBeLessThan(60_000);
  });

  it('pages with limit and cursor and filters by status', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    for (let n = 0; n < 5; n++) await pendingEvent(hook.url, { n });
    const newestFirst = await eventIds(key, hook.id);
    expect(newestFirst).toHaveLength(5);

    const { page, next } = await pageWithNext(key, eventsPath(hook.id, 'limit=2'));
    expect(idsOf(page)).toEqual(newestFirst.slice(0, 2));
    expect(page.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    expect(idsOf(await list(key, `${next.pathname}${next.search}`))).toEqual(newestFirst.slice(2, 4));
    expect(await allIds(key, eventsPath(hook.id, 'limit=2'))).toEqual(newestFirst);
    expect(await allIds(key, eventsPath(hook.id, 'sort=received_at&limit=3'))).toEqual(
      [...newestFirst].reverse(),
    );

    const [a, b] = newestFirst as [number, number];
    await env.DB.prepare("UPDATE inbound_events SET status = 'failed', error = 'boom' WHERE id = ?")
      .bind(a)
      .run();
    await env.DB.prepare("UPDATE inbound_events SET status = 'processed' WHERE id = ?").bind(b).run();
    expect(await eventIds(key, hook.id, 'status=failed')).toEqual([a]);
    expect(await eventIds(key, hook.id, 'status=processed')).toEqual([b]);
    expect(await eventIds(key, hook.id, 'status=pending')).toEqual(newestFirst.slice(2));
    expect(await eventIds(key, hook.id, 'status=test')).toEqual([]);
    expect(await allIds(key, eventsPath(hook.id, 'status=pending&limit=1'))).toEqual(newestFirst.slice(2));
    const failed = (await list(key, eventsPath(hook.id, 'status=failed'))).data[0];
    expect(failed).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it('lists only the events of that webhook, and refuses a bad query with 400', async () => {
    const { key } = await newAccount();
    const one = await newWebhook(key, { name: 'One' });
    const two = await newWebhook(key, { name: 'Two' });
    await pendingEvent(one.url, { to: 1 });
    await pendingEvent(two.url, { to: 2 });
    expect((await list(key, eventsPath(one.id))).data.map((e: Json) => e.payload.to)).toEqual([1]);
    expect((await list(key, eventsPath(two.id))).data.map((e: Json) => e.payload.to)).toEqual([2]);
    expect((await list(key, eventsPath((await newWebhook(key)).id))).data).toEqual([]);
    for (const query of ['status=done', 'limit=0', 'sort=created_at', 'cursor=xyz', 'mode=test']) {
      const res = await call(eventsPath(one.id, query), { key });
      expect(res.status, query).toBe(400);
    }
  });
});

describe('inbound webhooks: sample-fields', () => {
  it('lists the dot paths of the latest test events with the newest example and a guessed type', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test' });
    const older = {
      nome: 'Old name',
      only_old: 'x',
      lead: { phone: '(11) 98765-4321' },
    };
    const newer = {
      nome: 'Ana',
      idade: 31,
      vip: true,
      nada: null,
      lead: { phone: '+55 11 91234-5678', email: 'ana@example.com', utm: { source: 'google' } },
      data: '2024-3-5',
      quando: '2024-03-05T10:00:00.000Z',
      answers: [{ text: 'sim' }, { text: 'não', score: 2.5 }],
      tags: ['a', 'b'],
      vazio: {},
    };
    expect((await postEvent(hook.url, older)).status).toBe(204);
    expect((await postEvent(hook.url, newer)).status).toBe(204);

    const res = await call(`${PATH}/${hook.id}/sample-fields`, { key });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    const byKey = Object.fromEntries(data.map((f: Json) => [f.key, f]));
    expect(byKey).toEqual({
      nome: { key: 'nome', example: 'Ana', type: 'string' },
      idade: { key: 'idade', example: 31, type: 'number' },
      vip: { key: 'vip', example: true, type: 'boolean' },
      nada: { key: 'nada', example: null, type: 'string' },
      'lead.phone': { key: 'lead.phone', example: '+55 11 91234-5678', type: 'phone' },
      'lead.email': { key: 'lead.email', example: 'ana@example.com', type: 'email' },
      'lead.utm.source': { key: 'lead.utm.source', example: 'google', type: 'string' },
      data: { key: 'data', example: '2024-3-5', type: 'date' },
      quando: { key: 'quando', example: '2024-03-05T10:00:00.000Z', type: 'date' },
      'answers.0.text': { key: 'answers.0.text', example: 'sim', type: 'string' },
      'answers.1.text': { key: 'answers.1.text', example: 'não', type: 'string' },
      'answers.1.score': { key: 'answers.1.score', example: 2.5, type: 'number' },
      'tags.0': { key: 'tags.0', example: 'a', type: 'string' },
      'tags.1': { key: 'tags.1', example: 'b', type: 'string' },
      only_old: { key: 'only_old', example: 'x', type: 'string' },
    });
    expect(data).toHaveLength(Object.keys(byKey).length);
    // The newest event's keys come first.
    expect(data.at(-1).key).toBe('only_old');
  });

  it('leaves out production events, is empty without test events, and survives a later switch of mode', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    await pendingEvent(hook.url, { prod_only: 'p' });
    const empty = await json(await call(`${PATH}/${hook.id}/sample-fields`, { key }));
    expect(empty).toEqual({ data: [] });

    await put(key, hook.id, { mode: 'test' });
    expect((await postEvent(hook.url, { test_key: 1 })).status).toBe(204);
    await put(key, hook.id, { mode: 'production' });
    await pendingEvent(hook.url, { later_prod: true });
    const { data } = await json(await call(`${PATH}/${hook.id}/sample-fields`, { key }));
    expect(data).toEqual([{ key: 'test_key', example: 1, type: 'number' }]);
  });
});
