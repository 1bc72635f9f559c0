import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { shardOf } from '../../src/db/shards';
import worker from '../../src/index';
import { fanOutOnce } from '../../src/queue/outbound';
import {
  CONTACT_BY_PHONE,
  call,
  callWithEnv,
  countOnEveryShard,
  create,
  expectProblem,
  type Json,
  json,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';
import { connect, rawList, refreshGrant, send, signIn } from '../oauth/helpers';
import { endpointWithBox, received } from '../outbound/support';
import { deliver } from '../queue/webhook-support';
import { deliverChunk, ended, postParkedImport } from '../routes/bulk/import-support';
import { inRange, move, startMove, stepUntil } from './support';

// What an account's clients see while it moves and after (src/moves/): webhook calls held, not
// lost; queue work refused on the old shard and run on the new; old credentials forwarded.

const eventsOf = (shard: number, hookId: number) =>
  shardOf(env, shard)
    .prepare('SELECT id, status FROM inbound_events WHERE webhook_id = ? ORDER BY id')
    .bind(hookId)
    .all<{ id: number; status: string }>()
    .then((r) => r.results);

describe('while an account moves', () => {
  it('accepts webhook posts during the freeze (204), holds them, and stores and processes each once on the new shard', async () => {
    const account = await newAccount('Recebe', 0);
    const hook = await newWebhook(account.key, CONTACT_BY_PHONE);
    const { data } = await json(await startMove(account.id, { to: 1 }));
    await stepUntil(data.id, (row) => row.progress.phase === 'prune');
    const key = crypto.randomUUID();
    const first = { nome: 'Durante', telefone: '11987654321' };
    for (const body of [first, first])
      expect((await postEvent(hook.path, body, { 'Idempotency-Key': key })).status).toBe(204);
    expect((await postEvent(hook.path, { nome: 'Outra', telefone: '11912345678' })).status).toBe(204);
    expect(
      await countOnEveryShard('SELECT count(*) AS n FROM held_events WHERE account_id = ?', account.id),
    ).toBe(3);
    expect(await eventsOf(0, hook.id)).toEqual([]);

    expect((await stepUntil(data.id)).state).toBe('done');
    expect(
      await countOnEveryShard('SELECT count(*) AS n FROM held_events WHERE account_id = ?', account.id),
    ).toBe(0);
    // The retry with the same key is stored once: two events, on shard 1, processed by the real queue.
    await vi.waitFor(
      async () =>
        expect((await eventsOf(1, hook.id)).map((e) => e.status)).toEqual(['processed', 'processed']),
      { timeout: 20_000, interval: 100 },
    );
    expect(await eventsOf(0, hook.id)).toEqual([]);
    const contacts = await shardOf(env, 1)
      .prepare('SELECT name FROM contacts WHERE account_id = ? ORDER BY id')
      .bind(account.id)
      .raw();
    expect(contacts).toEqual([['Durante'], ['Outra']]);
  });

  it("the cron stores a call held after its move drained (the race the last drain cannot see) on the account's shard", async () => {
    const account = await newAccount('Atrasada', 0);
    const hook = await newWebhook(account.key);
    const { data } = await json(await startMove(account.id, { to: 1 }));
    await stepUntil(data.id, (row) => row.progress.phase === 'prune');
    expect((await postEvent(hook.path, { nome: 'Durante' })).status).toBe(204);
    const held = await shardOf(env, 0)
      .prepare('SELECT * FROM held_events WHERE account_id = ?')
      .bind(account.id)
      .first<Json>();
    expect(held).not.toBeNull();
    expect((await stepUntil(data.id)).state).toBe('done');
    expect(await eventsOf(1, hook.id)).toHaveLength(1);
    // A second call held on the old shard just after the move's last drain: nothing of the move runs again.
    await shardOf(env, 0)
      .prepare(
        'INSERT INTO held_events (id, account_id, webhook_id, call, received_at) VALUES (?, ?, ?, ?, ?)',
      )
      .bind(held?.id + 1, account.id, hook.id, held?.call, Date.now())
      .run();
    await worker.scheduled(createScheduledController({ cron: '*/5 * * * *' }), env);
    expect(
      await countOnEveryShard('SELECT count(*) AS n FROM held_events WHERE account_id = ?', account.id),
    ).toBe(0);
    expect(await eventsOf(1, hook.id)).toHaveLength(2);
    expect(await eventsOf(0, hook.id)).toEqual([]);
  });

  it("acks an event's message refused by the freeze, and the move queues the event on the new shard", async () => {
    const account = await newAccount('Pendente', 0);
    const hook = await newWebhook(account.key, CONTACT_BY_PHONE);
    expect(
      (await postEvent(hook.path, { nome: 'Antes', telefone: '11987654321', __fault: 'send' })).status,
    ).toBe(204);
    const [event] = await eventsOf(0, hook.id);
    const { data } = await json(await startMove(account.id, { to: 2 }));
    await stepUntil(data.id, (row) => row.progress.phase === 'prune');
    const result = await deliver([event?.id as number]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(await eventsOf(0, hook.id)).toEqual([{ id: event?.id, status: 'pending' }]);
    expect((await stepUntil(data.id)).state).toBe('done');
    await vi.waitFor(
      async () => expect(await eventsOf(2, hook.id)).toEqual([{ id: event?.id, status: 'processed' }]),
      {
        timeout: 20_000,
        interval: 100,
      },
    );
  });

  it('counts the calls it holds against the event storage quota: past it, 429 event_storage_full, and every held call stored', async () => {
    const quota = { EVENT_STORAGE_QUOTA_MIB: '1', EVENT_STORAGE_WEBHOOK_PERCENT: '100' };
    const account = await newAccount('Enchente', 0);
    const hook = await newWebhook(account.key, CONTACT_BY_PHONE);
    const { data } = await json(await startMove(account.id, { to: 1 }));
    await stepUntil(data.id, (row) => row.progress.phase === 'prune');
    // About 10 KB kept per call (a name as long as a field takes), all held by the freeze.
    const post = (n: number) =>
      callWithEnv(quota, hook.path, {
        method: 'POST',
        body: { nome: `${n} ${'x'.repeat(9_990)}`, telefone: `119${String(44440000 + n).padStart(8, '0')}` },
      });
    let held = 0;
    for (let n = 1; n <= 300; n++) {
      const res = await post(n);
      if (res.status !== 204) {
        await expectProblem(res, 429, 'event_storage_full');
        break;
      }
      held = n;
    }
    expect(held).toBeGreaterThan(50);
    expect(held).toBeLessThan(150);
    const heldRows = 'SELECT count(*) AS n FROM held_events WHERE account_id = ?';
    expect(await countOnEveryShard(heldRows, account.id)).toBe(held);

    expect((await stepUntil(data.id)).state).toBe('done');
    expect(await countOnEveryShard(heldRows, account.id)).toBe(0);
    expect(await eventsOf(1, hook.id)).toHaveLength(held);
    // On its shard the account is as full as the calls it was given: the next call is refused there.
    await expectProblem(await post(0), 429, 'event_storage_full');
  });

  it('resumes an import started during the copy on the new shard, and its old chunk neither fails it nor deletes its file', async () => {
    const account = await newAccount('Importa Durante', 0);
    const { data } = await json(await startMove(account.id, { to: 1 }));
    // Started while the rows are copied; its first chunk parked, as one the freeze refused would be.
    const started = await postParkedImport(account.key, 'resource=contacts&mode=create', 'name\nAna\nBia\n');
    expect(started.status, await started.clone().text()).toBe(202);
    const { data: job } = await json(started);
    const row = await shardOf(env, 0)
      .prepare('SELECT * FROM imports WHERE id = ?')
      .bind(job.id)
      .first<Json>();
    const stale = {
      kind: 'import_chunk',
      ...{ import_id: job.id, key_hash: row?.key_hash, resource: 'contacts', mode: 'create' },
      ...{ file_key: row?.file_key, delimiter: row?.delimiter, mapping: JSON.parse(row?.mapping) },
      ...{ offset: row?.offset, line: row?.line, shard: 0 },
    };

    // The old copy is gone; the old shard's message is delivered late.
    await stepUntil(data.id, (r) => r.progress.phase === 'drain');
    const late = await deliverChunk(stale);
    expect(late.explicitAcks).toHaveLength(1);
    expect(late.retryMessages).toEqual([]);
    expect(await env.IMPORT_FILES.head(row?.file_key)).not.toBeNull();

    expect((await stepUntil(data.id)).state).toBe('done');
    const done = await ended(account.key, job.id);
    expect(done).toMatchObject({ status: 'completed', counts: { created: 2, failed: 0 } });
    const names = await shardOf(env, 1)
      .prepare('SELECT name FROM contacts WHERE account_id = ? ORDER BY id')
      .bind(account.id)
      .raw();
    expect(names).toEqual([['Ana'], ['Bia']]);
    expect(
      await countOnEveryShard('SELECT count(*) AS n FROM imports WHERE account_id = ?', account.id),
    ).toBe(1);
    expect(await env.IMPORT_FILES.head(row?.file_key)).toBeNull();
  });
});

describe('after an account moved', () => {
  it('forwards its old API key and webhook URL to the new shard, and the old key never reads a neighbour', async () => {
    const [account, neighbour, later] = await Promise.all([
      newAccount('Mudou', 0),
      newAccount('Fica', 0),
      newAccount('Outro', 1),
    ]);
    const contact = await create(account.key, '/v1/contacts', { name: 'Antes' });
    const hook = await newWebhook(account.key);
    const neighbours = [
      await create(neighbour.key, '/v1/contacts', { name: 'Vizinho' }),
      await create(later.key, '/v1/contacts', { name: 'Vizinho 1' }),
    ];
    expect((await move(account.id, 1)).state).toBe('done');

    // The old key (a shard 0 key) reads and writes the account on shard 1.
    const read = await call(`/v1/contacts/${contact.id}`, { key: account.key });
    expect(read.status).toBe(200);
    expect((await json(read)).data.name).toBe('Antes');
    const made = await create(account.key, '/v1/contacts', { name: 'Depois' });
    expect(inRange('contacts', 1, made.id)).toBe(true);
    // With an Idempotency-Key (whose body the gate reads before the key misses), and its replay.
    const keyed = () =>
      call('/v1/contacts', {
        method: 'POST',
        key: account.key,
        body: { name: 'Com chave' },
        headers: { 'Idempotency-Key': 'depois-da-mudanca' },
      });
    const first = await keyed();
    expect(first.status, await first.clone().text()).toBe(201);
    const replay = await keyed();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await json(replay)).data.id).toBe((await json(first)).data.id);
    expect(
      (
        await call(`/v1/contacts/${contact.id}`, {
          method: 'PUT',
          key: account.key,
          body: { name: 'Mudado' },
        })
      ).status,
    ).toBe(200);
    // Never another account's rows, on either shard.
    for (const other of neighbours)
      await expectProblem(await call(`/v1/contacts/${other.id}`, { key: account.key }), 404);
    // The old webhook URL stores its event on shard 1.
    expect((await postEvent(hook.path, { nome: 'Depois' })).status).toBe(204);
    expect((await eventsOf(1, hook.id)).length).toBe(1);
    // An unknown key is still a 401, an unknown URL a 404.
    await expectProblem(await call('/v1/contacts', { key: `crm_${'x'.repeat(43)}` }), 401, 'unauthorized');
    expect((await postEvent(`/hooks/whk_${'x'.repeat(43)}`, {})).status).toBe(404);
  });

  it('an old key signs in to the panel, and an OAuth connection made before the move refreshes after it', async () => {
    const account = await newAccount('Conecta', 0);
    const { clientId, refresh } = await connect(account.key, ['contacts:read']);
    expect((await move(account.id, 1)).state).toBe('done');
    // The panel: the session is kept on the account's shard now, and its pages read it.
    const { cookie } = await signIn(account.key);
    const page = await send('/panel/webhooks', { headers: { cookie } });
    expect(page.status).toBe(200);
    // The grant's key was made on shard 0: its refresh finds it through the move's forward.
    const refreshed = await refreshGrant(refresh, clientId);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await rawList(refreshed.body.access_token as string)).status).toBe(200);
  });

  it("delivers a record's change made before the move once, and one made after once, from the new shard", async () => {
    const account = await newAccount('Avisa', 0);
    const { name } = await endpointWithBox(account.key);
    const contact = await create(account.key, '/v1/contacts', { name: 'Antes' });
    await vi.waitFor(async () => expect(await received(name)).toHaveLength(1), {
      timeout: 20_000,
      interval: 100,
    });
    expect((await move(account.id, 2)).state).toBe('done');
    const res = await call(`/v1/contacts/${contact.id}`, {
      method: 'PUT',
      key: account.key,
      body: { name: 'Depois' },
    });
    expect(res.status).toBe(200);
    await vi.waitFor(async () => expect(await received(name)).toHaveLength(2), {
      timeout: 20_000,
      interval: 100,
    });
    // Every shard's fan-out run again finds nothing more to deliver.
    for (const shard of [0, 1, 2]) await fanOutOnce(env, shard);
    const sent = (await received(name)).map((r: Json) => JSON.parse(r.body).data);
    expect(sent.map((d: Json) => [d.record_id, d.version])).toEqual([
      [contact.id, 1],
      [contact.id, 2],
    ]);
    expect(
      await countOnEveryShard(
        'SELECT count(*) AS n FROM webhook_deliveries WHERE account_id = ?',
        account.id,
      ),
    ).toBe(2);
  });
});
