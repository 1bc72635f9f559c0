import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { primaryDb } from '../../src/db/client';
import { purgeExpiredEvents, trimRejections } from '../../src/webhooks/log/event-log';
import { accountsOnShard, call, emptyMigrationDb, json, newAccount, newWebhook, postEvent } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The event log's search index (inbound_event_text, drizzle/0015_event_search.sql) through the
// real writers: the migration's backfill of the events already there, the cron's purge and the
// ingest's trim of rejections. What the list finds through it is in event-search.test.ts.

const SPAN = 2 ** 40;

/** The rowids of `account`'s slice of the index that `match` finds, in `db`. */
async function indexed(db: D1Database, account: number, match: string): Promise<number[]> {
  const rows = await db
    .prepare(
      'select rowid from inbound_event_text where inbound_event_text match ? and rowid between ? and ? order by rowid',
    )
    .bind(match, account * SPAN, account * SPAN + SPAN - 1)
    .raw();
  return rows.flat().map((rowid) => Number(rowid) - account * SPAN);
}

describe('the event search index', () => {
  it('is filled by its migration with the events already there, each under its account', async () => {
    const db = await emptyMigrationDb();
    const all = env.TEST_MIGRATIONS;
    const mine = all.findIndex((m) => m.name.includes('event_search'));
    expect(mine).toBeGreaterThan(0);
    await applyD1Migrations(db, all.slice(0, mine));
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values (7, 'a', 0), (8, 'b', 0)"),
      db.prepare(
        `insert into inbound_webhooks (id, account_id, name, token, enabled, mode, fields, flows, created_at, updated_at)
         values (3, 7, 'w', 'tok-a', 1, 'production', '[]', '[]', 0, 0), (4, 8, 'w', 'tok-b', 1, 'production', '[]', '[]', 0, 0)`,
      ),
      db.prepare(
        `insert into inbound_events (id, account_id, webhook_id, mode, status, payload, headers, received_at, queued_at)
         values (11, 7, 3, 'production', 'processed', '{"lead":{"nome":"Júlia Prado","fone":"(11) 91234-5678"}}', '{}', 0, 0),
                (12, 8, 4, 'production', 'processed', '{"nome":"Júlia Prado"}', '{}', 0, 0)`,
      ),
    ]);
    await applyD1Migrations(db, all);
    expect(await indexed(db, 7, '{body} : "julia prado"')).toEqual([11]);
    expect(await indexed(db, 7, '{digits} : "11912345678"')).toEqual([11]);
    expect(await indexed(db, 8, '{body} : "julia"')).toEqual([12]);
    expect(await indexed(db, 8, '{digits} : "11912345678"')).toEqual([]);
  });

  it("keeps an account's events in its own slice once event ids pass 2^32 (one sequence for every account)", async () => {
    const a = await newAccount('Primeira');
    const b = await newAccount('Segunda');
    const [hookA, hookB] = [
      await newWebhook(a.key, { mode: 'test' }),
      await newWebhook(b.key, { mode: 'test' }),
    ];
    expect((await postEvent(hookB.path, { nome: 'Zebra Listrada' })).status).toBe(204);
    const [theirs] = await indexed(env.DB, b.id, '{body} : "Zebra Listrada"');
    // The sequence as millions of calls would leave it: A's next event id is B's event's id plus
    // 2^32 times the distance between the accounts, the id that used to share B's event's rowid.
    await env.DB.prepare("update sqlite_sequence set seq = ? where name = 'inbound_events'")
      .bind((b.id - a.id) * 2 ** 32 + Number(theirs) - 1)
      .run();
    expect((await postEvent(hookA.path, { nome: 'Segredo Guardado' })).status).toBe(204);
    const search = async (key: string, id: number, q: string) =>
      (
        await json(await call(`/v1/inbound-webhooks/${id}/events?q=${encodeURIComponent(q)}`, { key }))
      ).data.map((e: { payload: { nome: string } }) => e.payload.nome);
    expect(await search(b.key, hookB.id, 'Segredo')).toEqual([]);
    expect(await search(b.key, hookB.id, 'Zebra')).toEqual(['Zebra Listrada']);
    expect(await search(a.key, hookA.id, 'Segredo')).toEqual(['Segredo Guardado']);
  });

  it("loses an event the cron's retention purge deletes, and a rejection the trim deletes", async () => {
    const { id: account, key } = await newAccount('Purga');
    const hook = await newWebhook(key, { mode: 'test' });
    expect((await postEvent(hook.path, { nome: 'Rafaela Antiga' })).status).toBe(204);
    const [old] = await indexed(env.DB, account, '{body} : "Rafaela Antiga"');
    expect(old).toBeDefined();
    await env.DB.prepare("update inbound_events set status = 'processed', received_at = 0 where id = ?")
      .bind(old)
      .run();
    expect(await purgeExpiredEvents(primaryDb(env, 0), Date.now(), {})).toBeGreaterThanOrEqual(1);
    expect(await indexed(env.DB, account, '{body} : "Rafaela Antiga"')).toEqual([]);

    // 102 refused calls whose kept bodies name a lead: the trim keeps the newest 100 (and the
    // newest and the first of each problem), and the index keeps exactly the events that are left.
    const refused = (n: number) =>
      `insert into inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at, rejection)
       values (${account}, ${hook.id}, 'test', 'rejected', 'null', '{}', ${n}, ${n}, json_object('status', 400, 'code', 'invalid_json', 'detail', 'x', 'body', 'Recusado ' || ${n}))`;
    await env.DB.batch(Array.from({ length: 102 }, (_, i) => env.DB.prepare(refused(i + 1))));
    const before = await indexed(env.DB, account, '{body} : "Recusado"');
    expect(before).toHaveLength(102);
    await trimRejections(primaryDb(env, 0), account, hook.id);
    const { n } = (await env.DB.prepare(
      "select count(*) as n from inbound_events where webhook_id = ? and status = 'rejected'",
    )
      .bind(hook.id)
      .first<{ n: number }>()) ?? { n: -1 };
    expect(n).toBe(101);
    // The second oldest went (the first of the problem stays), from the log and from the index.
    expect(await indexed(env.DB, account, '{body} : "Recusado"')).toEqual([before[0], ...before.slice(2)]);
  });
});
