import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import {
  accountsOnShard,
  call,
  callWithDb,
  create,
  keyWith,
  newAccount,
  recordingD1,
  roundTrips,
} from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The read-only record pages: what an event's result links to.

/** A base of 12 digits no other test draws: a fresh CNPJ per account. */
const freshCnpj = () => withCheckDigits(String(Math.floor(Math.random() * 1e12)).padStart(12, '1'));

/** An account with a company, a contact, a deal and two tasks that name each other, and its session. */
async function crm(
  names: { contact?: string; deal?: string; custom?: Record<string, unknown>; mark?: string } = {},
) {
  const account = await newAccount();
  // Appended to every other text the pages show: users', the company's and the task's.
  const m = names.mark ?? '';
  const user = (name: string) =>
    create(account.key, '/v1/users', { name: `${name}${m}`, email: `${crypto.randomUUID()}@example.com` });
  const owner = await user('Ana Souza');
  const rita = await user('Rita Alves');
  const cnpj = freshCnpj();
  const company = await create(account.key, '/v1/companies', {
    name: `Auto Center Ltda${m}`,
    cnpj,
    segment: `Concessionária${m}`,
    observations: m || null,
    owner_id: owner.id,
    follower_ids: [rita.id],
  });
  const contact = await create(account.key, '/v1/contacts', {
    name: names.contact ?? 'Maria Exemplo',
    email: 'maria@example.com',
    phone: '+5511912345678',
    company_id: company.id,
    owner_id: owner.id,
    custom_fields: names.custom ?? { veiculo: 'Onix', financiar: true, entrada: 15000.5 },
  });
  const deal = await create(account.key, '/v1/deals', {
    name: names.deal ?? 'Lead site - Maria',
    contact_id: contact.id,
    company_id: company.id,
    owner_id: owner.id,
    value: 120000,
    status: 'won',
    custom_fields: { origem: 'site' },
  });
  const task = await create(account.key, '/v1/tasks', {
    deal_id: deal.id,
    name: `Ligar${m}`,
    category: `Retorno${m}`,
    due_date: '2026-11-24T19:41:00Z',
    owner_id: rita.id,
    description: `Primeiro contato${m}`,
  });
  const cookie = await signIn(account.key);
  return { account, owner, rita, company, cnpj, contact, deal, task, cookie };
}

type Crm = Awaited<ReturnType<typeof crm>>;

const paths = (r: Crm) => [
  `/panel/contacts/${r.contact.id}`,
  `/panel/deals/${r.deal.id}`,
  `/panel/tasks/${r.task.id}`,
  `/panel/companies/${r.company.id}`,
];

describe('the record pages show the record, formatted for people, with links between them', () => {
  it('a contact: its fields, its company and owner by name, its deals, custom fields; one round trip', async () => {
    const r = await crm();
    const res = await panel(`/panel/contacts/${r.contact.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain('<h1>Maria Exemplo</h1>');
    expect(html).toContain(`Contato #${r.contact.id}`);
    expect(html).toContain('maria@example.com');
    expect(html).toContain('+55 11 91234-5678');
    expect(html).toContain(`<a href="/panel/companies/${r.company.id}">Auto Center Ltda</a>`);
    expect(html).toContain('Ana Souza');
    expect(html).toContain(`<a href="/panel/deals/${r.deal.id}">Lead site - Maria</a>`);
    expect(html).toMatch(/<dt>veiculo<\/dt><dd>Onix<\/dd>/);
    expect(html).toMatch(/<dt>financiar<\/dt><dd>sim<\/dd>/);
    expect(html).toMatch(/<dt>entrada<\/dt><dd>15\.000,5<\/dd>/);
    expect(html).toMatch(/<td data-label="Situação">ganho<\/td>/);
    expect(html).not.toContain('/v1/');
  });

  it('a deal: status label, value in reais, contact, company, owner and tasks; one round trip', async () => {
    const r = await crm();
    const res = await panel(`/panel/deals/${r.deal.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain('<h1>Lead site - Maria</h1>');
    expect(html).toMatch(/<dt>Situação<\/dt><dd>ganho<\/dd>/);
    expect(html).toMatch(/<dt>Valor<\/dt><dd>R\$\s120\.000,00<\/dd>/);
    expect(html).toContain(`<a href="/panel/contacts/${r.contact.id}">Maria Exemplo</a>`);
    expect(html).toContain(`<a href="/panel/companies/${r.company.id}">Auto Center Ltda</a>`);
    expect(html).toMatch(/<dt>Responsável<\/dt><dd>Ana Souza<\/dd>/);
    expect(html).toContain(`<td data-label="Nome"><a href="/panel/tasks/${r.task.id}">Ligar</a></td>`);
    expect(html).toContain('<td data-label="Prazo"><time datetime="2026-11-24T19:41:00.000Z">');
    expect(html).toMatch(/<dt>origem<\/dt><dd>site<\/dd>/);
    expect(html).not.toContain('>won<');
  });

  it('a task: its deal, category, due date, owners and description; one round trip', async () => {
    const r = await crm();
    const res = await panel(`/panel/tasks/${r.task.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain('<h1>Ligar</h1>');
    expect(html).toContain(`<a href="/panel/deals/${r.deal.id}">Lead site - Maria</a>`);
    expect(html).toMatch(/<dt>Categoria<\/dt><dd>Retorno<\/dd>/);
    expect(html).toMatch(/<dt>Prazo<\/dt><dd><time datetime="2026-11-24T19:41:00.000Z">/);
    expect(html).toMatch(/<dt>Responsáveis<\/dt><dd>Rita Alves<\/dd>/);
    expect(html).toMatch(/<dt>Concluída<\/dt><dd>não<\/dd>/);
    expect(html).toContain('Primeiro contato');
  });

  it('a company: masked CNPJ, segment, owner, followers, counts, its contacts and deals; one round trip', async () => {
    const r = await crm();
    const res = await panel(`/panel/companies/${r.company.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    const masked = `${r.cnpj.slice(0, 2)}.${r.cnpj.slice(2, 5)}.${r.cnpj.slice(5, 8)}/${r.cnpj.slice(8, 12)}-${r.cnpj.slice(12)}`;
    expect(html).toMatch(new RegExp(`<dt>CNPJ</dt><dd>${masked.replace(/[./]/g, '\\$&')}</dd>`));
    expect(html).toMatch(/<dt>Segmento<\/dt><dd>Concessionária<\/dd>/);
    expect(html).toMatch(/<dt>Seguidores<\/dt><dd>Rita Alves<\/dd>/);
    expect(html).toMatch(/<dt>Negócios em aberto<\/dt><dd>0<\/dd>/);
    expect(html).toMatch(/<dt>Contatos<\/dt><dd>1<\/dd>/);
    expect(html).toContain(`<a href="/panel/contacts/${r.contact.id}">Maria Exemplo</a>`);
    expect(html).toContain(`<a href="/panel/deals/${r.deal.id}">Lead site - Maria</a>`);
  });

  it('every page in English: its labels, the status label and the amount as English writes it', async () => {
    const r = await crm();
    const cookie = `${r.cookie}; lang=en`;
    const deal = await page(await panel(`/panel/deals/${r.deal.id}`, { cookie }));
    expect(deal).toContain('<html lang="en">');
    expect(deal).toMatch(/<dt>Status<\/dt><dd>won<\/dd>/);
    expect(deal).toMatch(/<dt>Value<\/dt><dd>R\$120,000\.00<\/dd>/);
    expect(deal).toContain(`Deal #${r.deal.id}`);
    const contact = await page(await panel(`/panel/contacts/${r.contact.id}`, { cookie }));
    expect(contact).toMatch(/<dt>financiar<\/dt><dd>yes<\/dd>/);
    expect(contact).toMatch(/<dt>entrada<\/dt><dd>15,000\.5<\/dd>/);
    expect(contact).toContain('<h2>Custom fields</h2>');
    const task = await page(await panel(`/panel/tasks/${r.task.id}`, { cookie }));
    expect(task).toMatch(/<dt>Completed<\/dt><dd>no<\/dd>/);
    const company = await page(await panel(`/panel/companies/${r.company.id}`, { cookie }));
    expect(company).toMatch(/<dt>Followers<\/dt><dd>Rita Alves<\/dd>/);
    for (const html of [deal, contact, task, company]) {
      expect(html).not.toMatch(/Contato|Negócio|Responsável|Criado em/);
    }
  });
});

describe('the record pages list the first 20 records that name them', () => {
  it('a contact with 21 deals lists the newest 20 and says so', async () => {
    const r = await crm();
    let bare = 0;
    for (let i = 2; i <= 21; i++) {
      bare = (await create(r.account.key, '/v1/deals', { name: `Negócio ${i}`, contact_id: r.contact.id }))
        .id;
    }
    const deal = await page(await panel(`/panel/deals/${bare}`, { cookie: r.cookie }));
    for (const unset of ['Valor', 'Empresa', 'Responsável']) {
      expect(deal).toContain(`<dt>${unset}</dt><dd>não informado</dd>`);
    }
    expect(deal).toContain('<h2>Tarefas</h2><p>Nenhum registro.</p>');
    const res = await panel(`/panel/contacts/${r.contact.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html.match(/<a href="\/panel\/deals\/\d+">/g)).toHaveLength(20);
    expect(html).toContain('>Negócio 21</a>');
    expect(html).not.toContain('>Lead site - Maria</a>');
    expect(html).toContain('Mostrando só os primeiros 20.');
    expect(html).toMatch(/<td data-label="Situação">em aberto<\/td>/);
  });
});

describe('the record pages read by index', () => {
  it("no statement of a page walks the account's rows: each looks its rows up by the record or its parent", async () => {
    const r = await crm();
    for (const path of paths(r)) {
      const recorded = recordingD1(env.DB);
      expect((await callWithDb(recorded.db, path, { headers: { Cookie: r.cookie } })).status, path).toBe(200);
      for (const { sql, params } of recorded.statements) {
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...params)
          .all<{ detail: string }>();
        for (const { detail } of plan.results) {
          // The key lookup's "an endpoint takes deliveries" (db/listening.ts) reads the account's live
          // endpoints, at most MAX_ENDPOINTS, by their partial index: bounded, not a walk of its rows.
          if (detail.includes('webhook_endpoints_live_idx')) continue;
          expect(detail, `${path}: ${sql}`).not.toMatch(/^SCAN (?!json_each)|\(account_id=\?\)$/);
        }
      }
    }
  });
});

describe('the record pages: trash, other accounts, odd ids, scopes', () => {
  it('a record in the trash says so, with until when it can be restored; what names it says so too', async () => {
    const r = await crm();
    const del = await call(`/v1/deals/${r.deal.id}`, { method: 'DELETE', key: r.account.key });
    expect(del.status).toBe(204);
    const res = await panel(`/panel/deals/${r.deal.id}`, { cookie: r.cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toMatch(/<p class="banner disabled" role="note">Este registro está na lixeira desde <time/);
    expect(html).toContain('Pode ser restaurado pela API até');
    // Its task went to the trash with it.
    const task = await page(await panel(`/panel/tasks/${r.task.id}`, { cookie: r.cookie }));
    expect(task).toContain('Este registro está na lixeira desde');
    expect(task).toContain(`<a href="/panel/deals/${r.deal.id}">Lead site - Maria (na lixeira)</a>`);
    const contact = await page(await panel(`/panel/contacts/${r.contact.id}`, { cookie: r.cookie }));
    expect(contact).not.toContain('lixeira desde');
    expect(contact).toContain('Lead site - Maria (na lixeira)</a>');
  });

  it("another account's ids, unknown ids and ids that are no ids are the panel's 404 page", async () => {
    const mine = await crm();
    const theirs = await crm();
    for (const path of paths(theirs)) {
      const res = await panel(path, { cookie: mine.cookie });
      const html = await page(res, 404);
      expect(html, path).toContain('Não encontrado');
      expect(html, path).not.toContain('Maria Exemplo');
      expect(html, path).not.toContain('Auto Center');
    }
    for (const kind of ['contacts', 'deals', 'tasks', 'companies']) {
      for (const id of [
        '0',
        '-1',
        '1e3',
        '99999999999999999999',
        '9999999999999999',
        '%2e%2e%2f',
        '..%2F',
        '1.0',
        '01',
        '%201',
        'abc',
        '__proto__',
      ]) {
        const res = await panel(`/panel/${kind}/${id}`, { cookie: mine.cookie });
        expect(res.status, `${kind}/${id}`).toBe(404);
        expect(await res.text(), `${kind}/${id}`).toContain('Não encontrado');
      }
    }
  });

  it('a key without the read scope gets the 403 page naming it; names it may not read are not shown', async () => {
    const r = await crm();
    const none = await signIn(await keyWith(r.account.id, ['webhooks:read']));
    for (const [path, scope] of paths(r).map((p, i) => [p, ['contacts', 'deals', 'tasks', 'companies'][i]])) {
      const html = await page(await panel(path as string, { cookie: none }), 403);
      expect(html, path).toContain(`${scope}:read`);
      expect(html, path).not.toContain('Maria Exemplo');
    }
    const dealsOnly = await signIn(await keyWith(r.account.id, ['deals:read']));
    const html = await page(await panel(`/panel/deals/${r.deal.id}`, { cookie: dealsOnly }));
    expect(html).toContain('Lead site - Maria');
    expect(html).toContain(`#${r.contact.id} <span class="hint">(exige contacts:read)</span>`);
    expect(html).not.toContain('Maria Exemplo');
    expect(html).not.toContain('Auto Center');
    expect(html).not.toContain('Ana Souza');
    expect(html).not.toContain('>Ligar<');
    expect(html).toContain('tasks:read');
  });

  it('every shown text is escaped: names, custom field keys and values; a `__proto__` key is just a key', async () => {
    const evil = '<script>alert(1)</script>';
    const r = await crm({
      contact: `${evil}"'&`,
      deal: `<img src=x onerror=alert(2)>`,
      custom: { '<b onmouseover=alert(3)>': '<svg onload=alert(4)>' },
      mark: '<u>5</u>',
    });
    await env.DB.prepare(`UPDATE contacts SET custom_fields = ? WHERE id = ?`)
      .bind(JSON.stringify({ ['__proto__']: '<i>proto</i>', constructor: 'c', '<k>': evil }), r.contact.id)
      .run();
    for (const path of paths(r)) {
      const html = await page(await panel(path, { cookie: r.cookie }));
      expect(html, path).not.toMatch(/<script>alert|<img src=x|<b onmouseover|<svg onload|<i>proto|<k>|<u>5/);
    }
    // Every text of a user, the company and the task, escaped where it shows.
    const shown = { contacts: 2, deals: 3, tasks: 5, companies: 6 };
    for (const [kind, count] of Object.entries(shown)) {
      const id = { contacts: r.contact.id, deals: r.deal.id, tasks: r.task.id, companies: r.company.id }[
        kind
      ];
      const html = await page(await panel(`/panel/${kind}/${id}`, { cookie: r.cookie }));
      expect(html.split('&lt;u&gt;5&lt;/u&gt;').length - 1, kind).toBe(count);
    }
    const contact = await page(await panel(`/panel/contacts/${r.contact.id}`, { cookie: r.cookie }));
    expect(contact).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</h1>');
    expect(contact).toContain('<dt>__proto__</dt><dd>&lt;i&gt;proto&lt;/i&gt;</dd>');
    expect(contact).toContain('<dt>&lt;k&gt;</dt>');
    const deal = await page(await panel(`/panel/deals/${r.deal.id}`, { cookie: r.cookie }));
    expect(deal).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(deal).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('without a session, a record page sends the browser to sign in', async () => {
    const r = await crm();
    for (const path of paths(r)) {
      const res = await panel(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('Location')).toBe('/panel/sign-in');
    }
  });
});
