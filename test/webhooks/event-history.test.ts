import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { said } from '../../src/core/said';
import { primaryDb } from '../../src/db/client';
import { inboundEvents } from '../../src/db/schema';
import {
  failEvent,
  giveUpEvents,
  noteRetry,
  replayFailed,
  requeueStrandedEvents,
} from '../../src/webhooks/log/event-log';
import { MAX_EVENT_MARKS } from '../../src/webhooks/rules/event-history';
import { accountsOnShard, call, expectProblem, ISO_MS, json, newAccount, newWebhook } from '../helpers';
import { deliver, eventOf, ingest, leadHook, NO_RECORDS, recordCounts } from '../queue/webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The history of an event: one mark per move after it was stored, written by the statement of the
// move (src/webhooks/log/event-log.ts), capped, counted in the account's event storage, erased with
// the person, and shown by the /v1 event read.

const db = () => primaryDb(env, 0);
const outcomes = (event: { history: { outcome: string }[] }) => event.history.map((m) => m.outcome);

/** The storage the triggers counted for the account, and what its events really hold. */
async function storage(accountId: number) {
  const counted = await env.DB.prepare('SELECT bytes FROM account_event_storage WHERE account_id = ?')
    .bind(accountId)
    .first<{ bytes: number }>();
  const real = await env.DB.prepare(
    // What each event costs, its search index included (the view of drizzle/0020_webhook_event_storage.sql).
    'SELECT sum(bytes) AS bytes FROM inbound_event_cost WHERE account_id = ?',
  )
    .bind(accountId)
    .first<{ bytes: number }>();
  return { counted: counted?.bytes, real: real?.bytes };
}

describe('event history', () => {
  it('marks each move with its time, outcome and error, and the /v1 read shows them', async () => {
    const { id: accountId, key, hook } = await leadHook();
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', __fault: 'send' });
    expect((await eventOf(key, hook.id, id)).history).toEqual([]);
    await noteRetry(db(), id, said('retrying', { detail: 'D1 was busy' }), Date.now() + 10_000);
    await giveUpEvents(db(), [id]);
    await replayFailed(db(), eq(inboundEvents.id, id), Date.now());
    await deliver([id]);
    const event = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events/${id}`, { key }))).data;
    expect(event.status).toBe('processed');
    expect(event.history).toEqual([
      { at: expect.stringMatching(ISO_MS), outcome: 'retrying', error: 'D1 was busy' },
      { at: expect.stringMatching(ISO_MS), outcome: 'gave_up', error: 'D1 was busy' },
      { at: expect.stringMatching(ISO_MS), outcome: 'replayed', error: null },
      { at: expect.stringMatching(ISO_MS), outcome: 'processed', error: null },
    ]);
    const times = event.history.map((m: { at: string }) => Date.parse(m.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const s = await storage(accountId);
    expect(s.counted).toBe(s.real);
  });

  it('marks a permanent failure with its error and a requeue by the cron', async () => {
    const { key, hook } = await leadHook();
    const stranded = await ingest(hook, { nome: 'Ana', telefone: '11987654321', __fault: 'send' });
    const broken = await ingest(hook, { nome: 'Bia', telefone: '11987654322', __fault: 'send' });
    await env.DB.prepare('UPDATE inbound_events SET queued_at = 1000 WHERE id = ?').bind(stranded).run();
    const requeued = await requeueStrandedEvents(db(), 1001, Date.now());
    expect(requeued).toEqual([{ id: stranded }]);
    await failEvent(db(), broken, said('record_unwritable', { detail: 'too long' }));
    expect((await eventOf(key, hook.id, stranded)).history).toEqual([
      { at: expect.stringMatching(ISO_MS), outcome: 'requeued', error: null },
    ]);
    expect((await eventOf(key, hook.id, broken)).history).toEqual([
      {
        at: expect.stringMatching(ISO_MS),
        outcome: 'failed',
        error: 'A record could not be written: too long',
      },
    ]);
  });

  it(`keeps the last ${MAX_EVENT_MARKS} marks of an event retried without end, each error cut, the bytes counted`, async () => {
    const { id: accountId, key, hook } = await leadHook();
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', __fault: 'send' });
    const long = 'x'.repeat(5000);
    for (let n = 1; n <= MAX_EVENT_MARKS + 5; n++)
      await noteRetry(db(), id, said('retrying', { detail: `failure ${n} ${long}` }), Date.now());
    const { history, error } = await eventOf(key, hook.id, id);
    expect(history).toHaveLength(MAX_EVENT_MARKS);
    expect(history[0].error).toMatch(/^failure 6 x+$/);
    expect(history.at(-1).error).toMatch(/^failure 25 x+$/);
    expect(history[0].error).toHaveLength(500);
    // The event's own error keeps the last one whole.
    expect(error).toHaveLength(`failure 25 `.length + 5000);
    const s = await storage(accountId);
    expect(s.counted).toBe(s.real);
  });

  it('blanks the errors of the history when the person it names is erased', async () => {
    const { key, hook } = await leadHook();
    const id = await ingest(hook, { nome: 'Zoe', telefone: '11955554444', __fault: 'send' });
    await noteRetry(db(), id, said('retrying', { detail: 'Could not write +5511955554444' }), Date.now());
    await deliver([id]);
    // A second event of hers, still retrying: its error's params quote her phone too.
    const retrying = await ingest(hook, { nome: 'Zoe', telefone: '11955554444', __fault: 'send' });
    await noteRetry(
      db(),
      retrying,
      said('retrying', { detail: 'Could not write +5511955554444' }),
      Date.now(),
    );
    const done = await eventOf(key, hook.id, id);
    expect(outcomes(done)).toEqual(['retrying', 'processed']);
    const erased = await call(`/v1/contacts/${done.result.contact_id}?erase=true`, { method: 'DELETE', key });
    expect(erased.status).toBe(204);
    const after = await eventOf(key, hook.id, id);
    expect(after.history).toEqual([
      { at: done.history[0].at, outcome: 'retrying', error: 'Erased on request (LGPD).' },
      { at: done.history[1].at, outcome: 'processed', error: null },
    ]);
    expect(JSON.stringify(after)).not.toContain('55554444');
    const other = await eventOf(key, hook.id, retrying);
    expect(other).toMatchObject({
      error: 'Erased on request (LGPD).',
      error_code: 'retrying',
      error_params: null,
    });
    expect(JSON.stringify(other)).not.toContain('55554444');
  });
});

describe('processing a test event for real', () => {
  it('is refused while the webhook is in test mode, then writes the records once it is in production', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, {
      mode: 'test',
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'create_deal', name: 'Lead {{nome}}' },
      ],
    });
    const id = await ingest(hook, { nome: 'Bia', telefone: '21988887777', __fault: 'send' });
    await deliver([id]);
    expect(await eventOf(key, hook.id, id)).toMatchObject({
      status: 'test',
      history: [{ outcome: 'previewed' }],
    });
    const path = `/v1/inbound-webhooks/${hook.id}/events/${id}/process`;
    // Other accounts' webhooks are in production: only this one's mode counts.
    const early = await expectProblem(await call(path, { method: 'POST', key }), 409, 'conflict');
    expect(early.detail).toMatch(/test mode/);
    expect(await recordCounts(accountId)).toEqual(NO_RECORDS);

    const put = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { mode: 'production' },
    });
    expect(put.status).toBe(200);
    const res = await call(path, { method: 'POST', key });
    expect(res.status).toBe(202);
    expect((await json(res)).data).toMatchObject({ status: 'pending', preview: null });
    await deliver([id]);
    const done = await eventOf(key, hook.id, id);
    expect(done).toMatchObject({ status: 'processed', error: null });
    expect(outcomes(done)).toEqual(['previewed', 'promoted', 'processed']);
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, deals: 1 });

    // Once is all: it is no test event any more.
    const again = await expectProblem(await call(path, { method: 'POST', key }), 409, 'conflict');
    expect(again.detail).toMatch(/processed/);
  });

  it("answers 404 for another account's event, and leaves it a test event", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const hook = await newWebhook(theirs.key, { mode: 'test' });
    const id = await ingest(hook, { a: 1, __fault: 'send' });
    await deliver([id]);
    await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key: theirs.key,
      body: { mode: 'production' },
    });
    const path = `/v1/inbound-webhooks/${hook.id}/events/${id}/process`;
    await expectProblem(await call(path, { method: 'POST', key: mine.key }), 404);
    expect((await eventOf(theirs.key, hook.id, id)).status).toBe('test');
  });
});
