import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  callWithDb,
  create,
  expectProblem,
  idsOf,
  json,
  newAccount,
  newWebhook,
  postEvent,
  qs,
  recordingD1,
  roundTrips,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// "Find a lead" on GET /v1/inbound-webhooks/{id}/events: `q` (any text of the payload, a phone in
// any format), `received_at__*`, `has_warnings`, combined with `status`; and the bulk replay,
// POST /v1/inbound-webhooks/{id}/recover, with the same filter. Real D1: the FTS5 index
// inbound_event_text is kept by triggers on inbound_events (drizzle/0015_event_search.sql).

type Lead = Record<string, unknown>;

const LEADS: Lead[] = [
  { nome: 'João da Silva', telefone: '(11) 91234-5678', email: 'joao.silva@example.com', origem: 'site' },
  { nome: 'Ana Souza', telefone: '+55 21 98888 7777', email: 'ana@exemplo.com.br', origem: 'instagram' },
  { lead: { name: 'Bia Lima', phone: 11987654321 }, veiculo: 'Onix 100%_promo' },
];

/** An account with a test-mode webhook that received `leads` (ids in the order sent). */
async function withLeads(leads: Lead[] = LEADS) {
  const account = await newAccount('Concessionária');
  const hook = await newWebhook(account.key, { mode: 'test' });
  const ids: number[] = [];
  for (const lead of leads) {
    expect((await postEvent(hook.path, lead)).status).toBe(204);
    const [latest] = (
      await json(await call(`/v1/inbound-webhooks/${hook.id}/events?limit=1`, { key: account.key }))
    ).data;
    ids.push(latest.id);
  }
  return { ...account, hook, ids };
}

type Setup = Awaited<ReturnType<typeof withLeads>>;

/** The ids the list finds for `query`, in one round trip. */
async function found(s: Setup, query: Record<string, string>): Promise<number[]> {
  const res = await call(`/v1/inbound-webhooks/${s.hook.id}/events?${qs(query)}`, { key: s.key });
  expect(res.status, JSON.stringify(query)).toBe(200);
  expect(roundTrips(res)).toBe(1);
  return idsOf(await json(res));
}

describe('GET /v1/inbound-webhooks/{id}/events?q=: find a lead by any text of the payload', () => {
  it('finds a phone written in any format, whatever format the payload used', async () => {
    const s = await withLeads();
    const [joao, ana, bia] = s.ids;
    for (const q of [
      '(11) 91234-5678',
      '11912345678',
      '+55 11 91234 5678',
      '5511912345678',
      '91234-5678',
      '011 91234 5678',
    ]) {
      expect(await found(s, { q }), q).toEqual([joao]);
    }
    for (const q of ['21988887777', '(21) 98888-7777', '+55 (21) 98888-7777']) {
      expect(await found(s, { q }), q).toEqual([ana]);
    }
    // A number sent as a JSON number, nested.
    for (const q of ['(11) 98765-4321', '+55 11 98765 4321']) expect(await found(s, { q }), q).toEqual([bia]);
  });

  it('finds an email, a name in any case and without its accents, words in any order', async () => {
    const s = await withLeads();
    const [joao, ana, bia] = s.ids;
    expect(await found(s, { q: 'ana@exemplo.com.br' })).toEqual([ana]);
    expect(await found(s, { q: 'EXEMPLO.COM' })).toEqual([ana]);
    expect(await found(s, { q: 'joao' })).toEqual([joao]);
    expect(await found(s, { q: 'JOÃO' })).toEqual([joao]);
    expect(await found(s, { q: 'silva joão' })).toEqual([joao]);
    expect(await found(s, { q: 'Bia Lima' })).toEqual([bia]);
    expect(await found(s, { q: 'example.com' })).toEqual([joao]);
    // A substring of a value, and a word all events share: newest first.
    expect(await found(s, { q: 'ouz' })).toEqual([ana]);
    expect(await found(s, { q: 'Silva Lima' })).toEqual([]);
    // Values only: a key of the payload is no lead's text.
    expect(await found(s, { q: 'telefone' })).toEqual([]);
  });

  it("never finds another account's events, even with the same payload", async () => {
    const a = await withLeads();
    const b = await withLeads();
    expect(await found(a, { q: 'João' })).toEqual([a.ids[0]]);
    expect(await found(b, { q: 'João' })).toEqual([b.ids[0]]);
    // B's key on A's webhook: not found, as any read of another account's webhook.
    const res = await call(`/v1/inbound-webhooks/${a.hook.id}/events?q=Jo%C3%A3o`, { key: b.key });
    await expectProblem(res, 404, 'not_found');
    // Another webhook of the same account has its own events.
    const other = await newWebhook(a.key, { mode: 'test' });
    const none = await call(`/v1/inbound-webhooks/${other.id}/events?q=Jo%C3%A3o`, { key: a.key });
    expect(idsOf(await json(none))).toEqual([]);
  });

  it('forgets an erased person: after the LGPD erasure their email and phone find nothing', async () => {
    const s = await withLeads();
    const contact = await create(s.key, '/v1/contacts', {
      name: 'João da Silva',
      email: 'joao.silva@example.com',
      phone: '+5511912345678',
    });
    expect(await found(s, { q: 'joao.silva@example.com' })).toEqual([s.ids[0]]);
    const erased = await call(`/v1/contacts/${contact.id}?erase=true`, { method: 'DELETE', key: s.key });
    expect(erased.status).toBe(204);
    for (const q of ['joao.silva@example.com', '11912345678', 'João da Silva']) {
      expect(await found(s, { q }), q).toEqual([]);
    }
    // The other leads are still found.
    expect(await found(s, { q: 'Ana Souza' })).toEqual([s.ids[1]]);
  });

  it('drops a purged or trimmed event from the index with its row', async () => {
    const s = await withLeads();
    await env.DB.prepare('delete from inbound_events where id = ?').bind(s.ids[1]).run();
    expect(await found(s, { q: 'Ana Souza' })).toEqual([]);
    const { n } = (await env.DB.prepare(
      `select count(*) as n from inbound_event_text where inbound_event_text match '"ana souza"'
       and rowid between ? * 1099511627776 and ? * 1099511627776 + 1099511627775`,
    )
      .bind(s.id, s.id)
      .first<{ n: number }>()) ?? { n: -1 };
    expect(n).toBe(0);
  });

  it('finds a refused call by the kept start of its body', async () => {
    const s = await withLeads([]);
    const refused = await call(s.hook.path, {
      method: 'POST',
      body: '{"nome": "Carla Dias", "telefone": "11 95555-4444"',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(refused.status).toBe(400);
    const [event] = (await json(await call(`/v1/inbound-webhooks/${s.hook.id}/events`, { key: s.key }))).data;
    expect(event.status).toBe('rejected');
    expect(await found(s, { q: 'Carla Dias' })).toEqual([event.id]);
  });
});

describe('the attacker’s pass on q', () => {
  it('reads FTS5 syntax, LIKE wildcards and odd characters as text to find, never as a query', async () => {
    const s = await withLeads();
    const [, , bia] = s.ids;
    expect(await found(s, { q: '100%_promo' })).toEqual([bia]);
    expect(await found(s, { q: '%%%' })).toEqual([]);
    expect(await found(s, { q: '___' })).toEqual([]);
    // Control characters count as spaces.
    expect(await found(s, { q: '\u0001ana' })).toEqual([s.ids[1]]);
    expect(await found(s, { q: 'ana\u0000souza' })).toEqual([s.ids[1]]);
    for (const q of [
      '"""',
      '"ana',
      '""""',
      'NEAR(ana souza)',
      'ana*',
      '-ana',
      'ana OR bia',
      'ana AND NOT bia',
      'payload: ana',
      '{body} : ana',
      'body:ana',
      'digits : 1191',
      '^ana',
      "'; drop table inbound_events; --",
      '\u0000\u0000\u0000',
      '\uFFFD\uFFFD\uFFFD',
      '😀😀😀',
      ')))',
      '(((',
    ]) {
      const res = await call(`/v1/inbound-webhooks/${s.hook.id}/events?${qs({ q })}`, { key: s.key });
      expect(res.status, JSON.stringify(q)).toBe(200);
      expect(idsOf(await json(res)), JSON.stringify(q)).toEqual([]);
    }
    expect(
      (await json(await call(`/v1/inbound-webhooks/${s.hook.id}/events`, { key: s.key }))).data,
    ).toHaveLength(3);
  });

  it('refuses a search shorter than 3 or longer than 200 characters, and a huge one, with a 400', async () => {
    const s = await withLeads([]);
    for (const q of ['ab', '  a ', 'x'.repeat(201), 'x'.repeat(100_000)]) {
      const res = await call(`/v1/inbound-webhooks/${s.hook.id}/events?${qs({ q })}`, { key: s.key });
      expect(res.status, `${q.length}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${q.length}`).toBeLessThan(500);
    }
    await expectProblem(
      await call(`/v1/inbound-webhooks/${s.hook.id}/events?q=ab`, { key: s.key }),
      400,
      'invalid_query',
    );
  });
});

describe('received_at__*, has_warnings and status, combined', () => {
  it('bounds the arrival time, with a bare date as a whole UTC day', async () => {
    const s = await withLeads();
    const [joao, ana, bia] = s.ids;
    const at = (id: number | undefined, iso: string) =>
      env.DB.prepare('update inbound_events set received_at = ? where id = ?')
        .bind(Date.parse(iso), id)
        .run();
    await at(joao, '2026-03-04T23:59:59.999Z');
    await at(ana, '2026-03-05T00:00:00.000Z');
    await at(bia, '2026-03-06T00:00:00.000Z');
    expect(await found(s, { received_at__gte: '2026-03-05', received_at__lte: '2026-03-05' })).toEqual([ana]);
    expect(await found(s, { received_at__lt: '2026-03-05T00:00:00Z' })).toEqual([joao]);
    expect(await found(s, { received_at__gte: '2026-03-05T00:00:00Z' })).toEqual([bia, ana]);
    expect(await found(s, { received_at__gte: '2026-03-04T20:59:59.999-03:00', q: 'silva' })).toEqual([joao]);
    await expectProblem(
      await call(`/v1/inbound-webhooks/${s.hook.id}/events?received_at__gte=2026-02-30`, { key: s.key }),
      400,
      'invalid_query',
    );
  });

  it('keeps the events with warnings (or those without), and combines every filter', async () => {
    const s = await withLeads();
    const [joao, ana, bia] = s.ids;
    await env.DB.prepare(
      `update inbound_events set warnings = '[{"path":"x","code":"dropped","message":"m"}]', status = 'failed' where id in (?, ?)`,
    )
      .bind(joao, bia)
      .run();
    expect(await found(s, { has_warnings: 'true' })).toEqual([bia, joao]);
    expect(await found(s, { has_warnings: 'false' })).toEqual([ana]);
    expect(await found(s, { has_warnings: 'true', q: 'Bia' })).toEqual([bia]);
    expect(await found(s, { has_warnings: 'true', status: 'failed', q: 'silva' })).toEqual([joao]);
    expect(await found(s, { has_warnings: 'false', status: 'failed' })).toEqual([]);
    await expectProblem(
      await call(`/v1/inbound-webhooks/${s.hook.id}/events?has_warnings=1`, { key: s.key }),
      400,
    );
  });
});

describe('the query plan of a search', () => {
  it('reads the account’s slice of inbound_event_text by MATCH and rowid range, and no full scan of inbound_events', async () => {
    const s = await withLeads();
    const d1 = recordingD1(env.DB);
    const path = `/v1/inbound-webhooks/${s.hook.id}/events?${qs({ q: '(11) 91234-5678', has_warnings: 'false', received_at__gte: '2020-01-01' })}`;
    const res = await callWithDb(d1.db, path, { key: s.key });
    expect(idsOf(await json(res))).toEqual([s.ids[0]]);
    const searches = d1.statements.filter((st) => st.sql.includes('inbound_event_text'));
    expect(searches).toHaveLength(1);
    const [search] = searches;
    if (!search) throw new Error('no search statement');
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${search.sql}`)
      .bind(...search.params)
      .all<{ detail: string }>();
    const steps = results.map((r) => r.detail);
    const plan = steps.join('\n');
    expect(
      steps.filter((d) => /^SCAN inbound_events\b/.test(d)),
      plan,
    ).toEqual([]);
    expect(
      steps.some((d) => /^SEARCH inbound_events /.test(d)),
      plan,
    ).toBe(true);
    // The FTS5 table: a MATCH (M) with both ends of the account's rowid range (> and <).
    const fts = steps.find((d) => d.startsWith('SCAN inbound_event_text VIRTUAL TABLE INDEX'));
    expect(fts, plan).toMatch(/INDEX \d+:M\d*.*>.*<|INDEX \d+:M\d*.*<.*>/);
  });
});

describe('POST /v1/inbound-webhooks/{id}/recover: every failed event of a filter', () => {
  async function failed(n: number) {
    const s = await withLeads([]);
    // n failed events, inserted at once (the insert trigger indexes each).
    await env.DB.prepare(
      `with recursive k(i) as (select 1 union all select i + 1 from k where i < ?)
       insert into inbound_events (account_id, webhook_id, mode, status, error, payload, headers, received_at, queued_at)
       select ?, ?, 'test', 'failed', 'boom', json_object('nome', 'Lead ' || i, 'cidade', case when i % 2 then 'Campinas' else 'Santos' end), '{}', 1764000000000 + i, 1764000000000 + i from k`,
    )
      .bind(n, s.id, s.hook.id)
      .run();
    return s;
  }
  const replay = (s: Setup, query: Record<string, string> = {}) =>
    call(`/v1/inbound-webhooks/${s.hook.id}/recover?${qs(query)}`, { method: 'POST', key: s.key });

  it('queues at most 100 per call, oldest first, and says how many remain', async () => {
    const s = await failed(130);
    const first = await replay(s);
    expect(first.status).toBe(200);
    expect(roundTrips(first)).toBe(1);
    const body = (await json(first)).data;
    expect(body).toMatchObject({ replayed: 100, remaining: 30 });
    expect(body.ids).toHaveLength(100);
    const second = (await json(await replay(s))).data;
    expect(second).toMatchObject({ replayed: 30, remaining: 0 });
    expect(new Set([...body.ids, ...second.ids]).size).toBe(130);
    expect(Math.max(...body.ids)).toBeLessThan(Math.min(...second.ids));
    expect((await json(await replay(s))).data).toEqual({ replayed: 0, remaining: 0, ids: [] });
  });

  it('replays only the failed events the filter finds', async () => {
    const s = await failed(10);
    const done = (await json(await replay(s, { q: 'Campinas' }))).data;
    expect(done).toMatchObject({ replayed: 5, remaining: 0 });
    const left = await json(
      await call(`/v1/inbound-webhooks/${s.hook.id}/events?status=failed&limit=100`, { key: s.key }),
    );
    expect(left.data).toHaveLength(5);
    expect(left.data.every((e: { payload: { cidade: string } }) => e.payload.cidade === 'Santos')).toBe(true);
    expect((await json(await replay(s, { status: 'processed' }))).data).toMatchObject({ replayed: 0 });
    await expectProblem(await replay(s, { q: 'ab' }), 400, 'invalid_query');
  });

  it("replays nothing of another account's, and answers 404 for its webhook", async () => {
    const a = await failed(3);
    const b = await failed(3);
    await expectProblem(
      await call(`/v1/inbound-webhooks/${a.hook.id}/recover`, { method: 'POST', key: b.key }),
      404,
      'not_found',
    );
    const { n } = (await env.DB.prepare(
      "select count(*) as n from inbound_events where webhook_id = ? and status = 'failed'",
    )
      .bind(a.hook.id)
      .first<{ n: number }>()) ?? { n: -1 };
    expect(n).toBe(3);
    expect((await json(await replay(b))).data).toMatchObject({ replayed: 3, remaining: 0 });
  });
});
