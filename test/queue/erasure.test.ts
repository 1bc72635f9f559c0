import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  create,
  expectProblem,
  type Json,
  json,
  newAccount,
  newWebhook,
  roundTrips,
} from '../helpers';
import { deliver, ingest } from './webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The person every test erases, and texts that must be gone from D1 afterwards.
const EMAIL = 'zoe.quintela@x.co';
const PHONE = '+5511977776666';
const TRACES = ['zoe.quintela', 'Quintela', '97777-6666', '977776666'];

async function rows(sql: string, ...params: unknown[]): Promise<Json[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...params)
      .all()
  ).results;
}

const erase = (key: string, id: number) => call(`/v1/contacts/${id}?erase=true`, { method: 'DELETE', key });

/** Every row of the account in a table with an account_id, as text, so nothing can hide. */
async function everything(accountId: number): Promise<Map<string, string>> {
  const tables = await rows(
    "select name from sqlite_master where type = 'table' and sql like '%account_id%' and sql not like 'create virtual%'",
  );
  const all = new Map<string, string>();
  for (const { name } of tables) {
    all.set(name, JSON.stringify(await rows(`select * from "${name}" where account_id = ?`, accountId)));
  }
  return all;
}

async function expectNoTrace(accountId: number): Promise<void> {
  for (const [table, text] of await everything(accountId)) {
    for (const trace of TRACES) expect(text, `${table} holds ${trace}`).not.toContain(trace);
  }
}

/** A POST with an Idempotency-Key, and its retry later. */
function keyed(key: string, path: string, idempotencyKey: string, body?: Json) {
  const send = () =>
    call(path, { method: 'POST', key, body, headers: { 'Idempotency-Key': idempotencyKey } });
  return { send };
}

// The answer is stored off the response's path (waitUntil): give it a moment before relying on it.
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('LGPD erasure: stored Idempotency-Key answers, whatever the route', () => {
  it('drops every answer that holds the person (create, restore, replay) and keeps the others', async () => {
    const { id: accountId, key } = await newAccount();
    const created = keyed(key, '/v1/contacts', 'create-zoe', {
      name: 'Zoe Quintela',
      email: EMAIL,
      phone: PHONE,
    });
    const first = await created.send();
    expect(first.status).toBe(201);
    const zoe = (await json(first)).data;
    expect((await call(`/v1/contacts/${zoe.id}`, { method: 'DELETE', key })).status).toBe(204);
    const restored = keyed(key, `/v1/contacts/${zoe.id}/restore`, 'restore-zoe');
    expect((await restored.send()).status).toBe(200);
    // A deal's answer names the contact by id only: no personal data, so it stays replayable.
    const deal = keyed(key, '/v1/deals', 'deal-zoe', { name: 'Onix', contact_id: zoe.id });
    expect((await deal.send()).status).toBe(201);
    // A replay's answer embeds the event, whose payload writes the phone in a national form.
    const hook = await newWebhook(key, { name: 'Leads', mode: 'test' });
    const eventId = await ingest(hook, { fone: '(11) 97777-6666', __fault: 'send' });
    await env.DB.prepare("update inbound_events set status = 'failed' where id = ?").bind(eventId).run();
    const replay = keyed(key, `/v1/inbound-webhooks/${hook.id}/events/${eventId}/replay`, 'replay-zoe');
    expect((await replay.send()).status).toBe(202);
    // Another person's answer stays.
    const other = keyed(key, '/v1/contacts', 'create-ana', { name: 'Ana', email: 'ana@x.co' });
    expect((await other.send()).status).toBe(201);
    await settle();

    const res = await erase(key, zoe.id);
    expect(res.status).toBe(204);
    expect(roundTrips(res)).toBe(1);

    for (const gone of [created, restored, replay]) await expectProblem(await gone.send(), 409);
    for (const kept of [deal, other]) {
      const again = await kept.send();
      expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    }
    await expectNoTrace(accountId);
  });
});

describe('LGPD erasure: the person wherever an event keeps a sender’s text', () => {
  it('finds them as ingest reads them, in payload values and keys, refused bodies, details and headers', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Leads', mode: 'test' });
    const zoe = await create(key, '/v1/contacts', { name: 'Zoe Quintela', email: EMAIL, phone: PHONE });
    const latest = async () =>
      (await rows('select max(id) as id from inbound_events where webhook_id = ?', hook.id))[0].id as number;
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const res = await call(hook.path, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
      expect([204, 400]).toContain(res.status);
      return latest();
    };
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const planted = {
      // JS trim() strips a tab and a no-break space; SQLite's trim() does not.
      tabbedEmail: await ingest(hook, { email: '\tZOE.QUINTELA@x.co ', __fault: 'send' }),
      spacedEmail: await ingest(hook, { contato: `${EMAIL}\u00a0`, __fault: 'send' }),
      nationalPhone: await ingest(hook, { fone: '(11) 97777-6666', __fault: 'send' }),
      numberPhone: await ingest(hook, { fone: 11977776666, __fault: 'send' }),
      key: await ingest(hook, { [EMAIL]: 'sim', __fault: 'send' }),
      refusedJson: await post('{"tel": "011 97777-6666", "nome": '),
      refusedForm: await post('zoe.quintela%40x.co[=1', form),
      formPhone: await post('tel=%2B55+11+97777-6666&a[=1', form),
      // Only the problem's detail names the person: the kept start of the body does not reach the key.
      detail: await post(`a=${'x'.repeat(5000)}&zoe.quintela%40x.co[=1`, form),
      requestId: await post('{"a": "b", "__fault": "send"}', { 'X-Request-Id': EMAIL }),
      userAgent: await post('{"a": "b", "__fault": "send"}', {
        'User-Agent': `LeadBot/1.0 (+mailto:${EMAIL})`,
      }),
      idempotencyKey: await post('{"a": "c", "__fault": "send"}', { 'Idempotency-Key': PHONE }),
    };
    const unrelated = {
      payload: await ingest(hook, {
        email: 'joana.quintela@x.com',
        fone: '(11) 97777-6660',
        __fault: 'send',
      }),
      refused: await post('{"tel": "011 97777-6660", "nome": '),
      agent: await post('{"a": "d", "__fault": "send"}', {
        'User-Agent': 'LeadBot/1.0',
        'Idempotency-Key': 'k-1',
      }),
    };
    const before = await rows(
      `select id, payload, headers, rejection, idempotency_key from inbound_events where id in (${Object.values(unrelated).join(',')}) order by id`,
    );

    expect((await erase(key, zoe.id)).status).toBe(204);

    const events = new Map(
      (
        await rows(
          'select id, status, payload, headers, rejection, idempotency_key from inbound_events where webhook_id = ?',
          hook.id,
        )
      ).map((e) => [e.id as number, e]),
    );
    // Every place at once, so a failure lists all the places the person was left in.
    const scrubbed = (event: Json | undefined) =>
      event?.headers === '{}' &&
      event.payload === (event.status === 'rejected' ? 'null' : '{}') &&
      event.idempotency_key === null &&
      (event.status !== 'rejected' ||
        (JSON.parse(event.rejection).body === null &&
          JSON.parse(event.rejection).detail === 'Erased on request (LGPD).'));
    const left = Object.entries(planted).filter(([, id]) => !scrubbed(events.get(id)));
    expect(left.map(([place]) => place)).toEqual([]);
    expect(
      await rows(
        `select id, payload, headers, rejection, idempotency_key from inbound_events where id in (${Object.values(unrelated).join(',')}) order by id`,
      ),
    ).toEqual(before);
    await expectNoTrace(accountId);
  });

  it('reads a refused body as ingest reads it, every escape decoded: JSON escapes and a form’s percent-escapes', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Leads', mode: 'test' });
    const zoe = await create(key, '/v1/contacts', { name: 'Zoe Quintela', email: EMAIL, phone: PHONE });
    const post = async (body: string, type = 'application/json') => {
      const res = await call(hook.path, { method: 'POST', body, headers: { 'Content-Type': type } });
      expect(res.status).toBe(400);
      return (await rows('select max(id) as id from inbound_events where webhook_id = ?', hook.id))[0].id;
    };
    const form = 'application/x-www-form-urlencoded';
    // Each body is cut short (malformed), so it is kept as written, escapes and all.
    const planted: Record<string, number> = {
      at: await post('{"email": "zoe.quintela\\u0040x.co", "nome": '),
      dot: await post('{"email": "zoe\\u002equintela@x.co", "nome": '),
      upper: await post('{"email": "\\u005aOE.QUINTELA@X.CO", "nome": '),
      tab: await post('{"email": "\\tzoe.quintela@x.co", "nome": '),
      phone: await post('{"fone": "\\u002811) 97777\\u002d6666", "nome": '),
      percent: await post('email=z%6Fe.quintela%40x%2eco&a[=1', form),
      percentUpper: await post('email=%5AOE%2EQUINTELA%40X.CO&a[=1', form),
      percentPhone: await post('tel=%2B55+%311+97777%2D6666&a[=1', form),
    };
    const unrelated = await post('{"email": "joana.quintela\\u0040x.co", "nome": ');
    // The event log's search finds each of them (it reads the kept text as written)...
    const found = async () =>
      (
        await json(await call(`/v1/inbound-webhooks/${hook.id}/events?q=quintela&limit=100`, { key }))
      ).data.map((e: Json) => e.id);
    expect(await found()).toEqual(expect.arrayContaining([planted.at, planted.dot, planted.tab, unrelated]));

    expect((await erase(key, zoe.id)).status).toBe(204);

    // ...and erasure reads them as ingest would: each one's kept body is gone, the other person's stays.
    const kept = new Map(
      (await rows('select id, rejection from inbound_events where webhook_id = ?', hook.id)).map((e) => [
        e.id as number,
        JSON.parse(e.rejection).body as string | null,
      ]),
    );
    const left = Object.entries(planted).filter(([, id]) => kept.get(id) !== null);
    expect(left.map(([place]) => place)).toEqual([]);
    expect(kept.get(unrelated)).toBe('{"email": "joana.quintela\\u0040x.co", "nome": ');
    expect(await found()).toEqual([unrelated]);
  });
});

describe('LGPD erasure: what the run of the flows wrote of the person', () => {
  it('blanks the warnings of the events that hold the person, keeping their codes', async () => {
    const { id: accountId, key } = await newAccount();
    const hook = await newWebhook(key, {
      mode: 'production',
      fields: [{ key: 'email', type: 'email', target: 'contact.email' }],
      flows: [{ action: 'upsert_contact', match_on: ['email'] }],
    });
    // No name: the contact is named after its email, and the event's warning says which.
    const id = await ingest(hook, { email: EMAIL, __fault: 'send' });
    await deliver([id]);
    const [event] = await rows('select warnings from inbound_events where id = ?', id);
    expect(event.warnings).toContain(EMAIL);
    const [contact] = await rows('select id from contacts where account_id = ?', accountId);

    expect((await erase(key, contact.id)).status).toBe(204);

    const [after] = await rows('select warnings from inbound_events where id = ?', id);
    expect(JSON.parse(after.warnings)).toEqual([
      { path: '', code: 'contact_named_from', message: 'Erased on request (LGPD).' },
    ]);
    await expectNoTrace(accountId);
  });
});
