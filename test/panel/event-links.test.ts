import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  callWithDb,
  create,
  type Json,
  json,
  keyWith,
  newAccount,
  newWebhook,
  recordingD1,
  roundTrips,
} from '../helpers';
import { runEvent } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The links between an event and the records it wrote: the event page names the records of its
// result, each record page links the webhook event that last wrote it, and a test send's flash
// links where its event is.

const XSS = '<img src=x onerror=alert(1)><script>alert(2)</script>';

const fields = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'empresa', type: 'string', target: 'company.name' },
  { key: 'cnpj', type: 'string', target: 'company.cnpj' },
];

/** An account with a production webhook that writes a company, a contact, a deal and a task. */
async function leadHook() {
  const account = await newAccount();
  const hook = await newWebhook(account.key, {
    mode: 'production',
    fields,
    flows: [
      { action: 'upsert_company' },
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: 'Lead site - {{nome}}' },
      { action: 'create_task', name: 'Ligar', category: 'Contato' },
    ],
  });
  return { ...account, hook, cookie: await signIn(account.key) };
}

type Lead = Awaited<ReturnType<typeof leadHook>>;

const lead = (r: Lead, nome: string, telefone = '11987654321'): Promise<Json> =>
  runEvent(r.key, r.hook, { nome, telefone, empresa: 'Auto Center', cnpj: '11.222.333/0001-81' });

/** A page read in one round trip, as `cookie` sees it. */
async function read(path: string, cookie: string, lang = 'pt-BR'): Promise<string> {
  const res = await panel(path, { cookie: `${cookie}; lang=${lang}` });
  const body = await page(res);
  expect(roundTrips(res)).toBe(1);
  return body;
}

const eventPath = (r: Lead, id: number) => `/panel/webhooks/${r.hook.id}/events/${id}`;

describe("the event page names its result's records", () => {
  it('shows each record by kind and name, linked, in one round trip, in both languages', async () => {
    const r = await leadHook();
    const event = await lead(r, 'Ana Souza');
    expect(event.status).toBe('processed');
    const { contact_id, company_id, deal_id, task_ids } = event.result;
    const html = await read(eventPath(r, event.id), r.cookie);
    expect(html).toContain(`<a href="/panel/contacts/${contact_id}">Contato: Ana Souza</a>`);
    expect(html).toContain(`<a href="/panel/companies/${company_id}">Empresa: Auto Center</a>`);
    expect(html).toContain(`<a href="/panel/deals/${deal_id}">Negócio: Lead site - Ana Souza</a>`);
    expect(html).toContain(`<a href="/panel/tasks/${task_ids[0]}">Tarefa: Ligar</a>`);
    const en = await read(eventPath(r, event.id), r.cookie, 'en');
    expect(en).toContain(`<a href="/panel/contacts/${contact_id}">Contact: Ana Souza</a>`);
    expect(en).toContain(`<a href="/panel/deals/${deal_id}">Deal: Lead site - Ana Souza</a>`);
  });

  it("escapes a record's name", async () => {
    const r = await leadHook();
    const event = await lead(r, XSS);
    const html = await read(eventPath(r, event.id), r.cookie);
    expect(html).toContain('Contato: &lt;img src=x onerror=alert(1)&gt;&lt;script&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert');
  });

  it("names only the account's own records: another account's id in a result is its number", async () => {
    const theirs = await leadHook();
    const secret = 'Segredo de outra conta';
    const theirTask = await create(theirs.key, '/v1/tasks', {
      deal_id: (await lead(theirs, 'Bia')).result.deal_id,
      name: secret,
      category: 'Outro',
    });
    const r = await leadHook();
    const event = await lead(r, 'Ana Souza');
    // Task ids have no foreign key: a result naming another account's task must not reveal it.
    await env.DB.prepare('UPDATE inbound_event_results SET task_ids = json_array(?, ?) WHERE event_id = ?')
      .bind(event.result.task_ids[0], theirTask.id, event.id)
      .run();
    const html = await read(eventPath(r, event.id), r.cookie);
    expect(html).toContain(`Tarefa: Ligar</a>`);
    expect(html).toContain(`<a href="/panel/tasks/${theirTask.id}">Tarefa #${theirTask.id}</a>`);
    expect(html).not.toContain(secret);
  });

  it('shows a record a key may not read as its number, unlinked, with the scope it lacks', async () => {
    const r = await leadHook();
    const event = await lead(r, 'Ana Souza');
    const reader = await signIn(await keyWith(r.id, ['webhooks:read', 'deals:read']));
    const html = await read(eventPath(r, event.id), reader);
    const { contact_id, deal_id } = event.result;
    expect(html).toContain(`Contato #${contact_id} <span class="hint">(exige contacts:read)</span>`);
    expect(html).not.toContain(`href="/panel/contacts/${contact_id}"`);
    expect(html).not.toContain('Contato: ');
    expect(html).not.toContain('Tarefa: Ligar');
    expect(html).toContain(`<a href="/panel/deals/${deal_id}">Negócio: Lead site - Ana Souza</a>`);
  });
});

const SOURCE = 'Último evento de webhook';

describe('a record page links the webhook event that last wrote it', () => {
  it('links the event from each record page, in one round trip; the latest event that touched it', async () => {
    const r = await leadHook();
    const first = await lead(r, 'Ana Souza');
    const link = (e: Json) => `<a href="${eventPath(r, e.id)}">Evento #${e.id}</a> · Webhook`;
    const { contact_id, company_id, deal_id, task_ids } = first.result;
    for (const path of [
      `/panel/contacts/${contact_id}`,
      `/panel/companies/${company_id}`,
      `/panel/deals/${deal_id}`,
      `/panel/tasks/${task_ids[0]}`,
    ]) {
      const html = await read(path, r.cookie);
      expect(html, path).toContain(SOURCE);
      expect(html, path).toContain(link(first));
    }
    // The same lead again: its contact and company were touched last by the second event; the
    // first deal and task still by the first.
    const second = await lead(r, 'Ana Souza');
    expect(second.result.contact_id).toBe(contact_id);
    expect(await read(`/panel/contacts/${contact_id}`, r.cookie)).toContain(link(second));
    expect(await read(`/panel/companies/${company_id}`, r.cookie)).toContain(link(second));
    expect(await read(`/panel/deals/${deal_id}`, r.cookie)).toContain(link(first));
    expect(await read(`/panel/tasks/${task_ids[0]}`, r.cookie)).toContain(link(first));
    expect(await read(`/panel/tasks/${second.result.task_ids[0]}`, r.cookie, 'en')).toContain(
      `<a href="${eventPath(r, second.id)}">Event #${second.id}</a>`,
    );
  });

  it('says nothing of events for a record no event wrote, nor to a key that may not read webhooks', async () => {
    const r = await leadHook();
    const manual = await create(r.key, '/v1/contacts', { name: 'Cadastro manual', phone: '+5511955554444' });
    expect(await read(`/panel/contacts/${manual.id}`, r.cookie)).not.toContain(SOURCE);
    const event = await lead(r, 'Ana Souza');
    expect(await read(`/panel/contacts/${event.result.contact_id}`, r.cookie)).toContain(SOURCE);
    const reader = await signIn(await keyWith(r.id, ['contacts:read']));
    const html = await read(`/panel/contacts/${event.result.contact_id}`, reader);
    expect(html).toContain('<h1>Ana Souza</h1>');
    expect(html).not.toContain(SOURCE);
    expect(html).not.toContain(`/events/${event.id}`);
  });
});

describe('the links read by index', () => {
  it("no statement of the event page or a record page walks the account's rows", async () => {
    const r = await leadHook();
    const event = await lead(r, 'Ana Souza');
    const { contact_id, company_id, deal_id, task_ids } = event.result;
    const paths = [
      eventPath(r, event.id),
      `/panel/contacts/${contact_id}`,
      `/panel/companies/${company_id}`,
      `/panel/deals/${deal_id}`,
      `/panel/tasks/${task_ids[0]}`,
    ];
    for (const path of paths) {
      const recorded = recordingD1(env.DB);
      expect((await callWithDb(recorded.db, path, { headers: { Cookie: r.cookie } })).status, path).toBe(200);
      for (const { sql, params } of recorded.statements) {
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...params)
          .all<{ detail: string }>();
        for (const { detail } of plan.results) {
          // A JSON function over one row's column is no walk (the preview's owners, a result's tasks).
          // The key lookup's "an endpoint takes deliveries" (db/listening.ts) reads the account's live
          // endpoints, at most MAX_ENDPOINTS, by their partial index: bounded, not a walk of its rows.
          if (detail.includes('webhook_endpoints_live_idx')) continue;
          expect(detail, `${path}: ${sql}`).not.toMatch(/^SCAN (?!.*VIRTUAL TABLE)|\(account_id=\?\)$/);
        }
      }
    }
  });
});

describe('the test send flash', () => {
  it("links the webhook's event list, where the event it sent is first, even while pending", async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test', fields });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const sent = await panel(`${base}/sample`, { cookie, form: {} });
    expect(sent.headers.get('Location')).toBe(`${base}?done=sample`);
    const html = await page(await panel(`${base}?done=sample`, { cookie }));
    expect(html).toContain(
      `Evento de exemplo enviado. <a href="${base}/events">Ver no registro de eventos</a>`,
    );
    const [only] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }))).data;
    const listed = await page(await panel(`${base}/events`, { cookie }));
    expect(listed).toContain(`href="${base}/events/${only.id}"`);
    const en = await page(await panel(`${base}?done=sample`, { cookie: `${cookie}; lang=en` }));
    expect(en).toContain(`Sample event sent. <a href="${base}/events">See it in the event log</a>`);
  });
});
