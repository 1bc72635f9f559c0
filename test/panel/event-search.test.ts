import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  idsOf,
  json,
  newAccount,
  newWebhook,
  postEvent,
  roundTrips,
} from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The panel's event list: "Buscar um lead" (text, days in the zone, status or "with warnings"),
// who each lead is, its warnings and errors, and "Reprocessar todas as falhas deste filtro".

const FIELDS = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', target: 'contact.phone' },
  { key: 'contato.email', type: 'email', target: 'contact.email' },
];

async function setup() {
  const account = await newAccount('Concessionária');
  const hook = await newWebhook(account.key, { mode: 'test', fields: FIELDS });
  for (const lead of [
    { nome: 'João da Silva', telefone: '(11) 91234-5678', contato: { email: 'joao@example.com' } },
    { nome: 'Ana Souza', telefone: '+55 21 98888 7777' },
    { nome: 'Bia Lima', contato: { email: 'bia@example.com' } },
  ]) {
    expect((await postEvent(hook.path, lead)).status).toBe(204);
  }
  const ids = idsOf(await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key: account.key })))
    .slice()
    .reverse();
  const cookie = await signIn(account.key);
  return { ...account, hook, ids, cookie, base: `/panel/webhooks/${hook.id}/events` };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The list page for `query`, read in one round trip, and the event ids it links to. */
async function list(s: Setup, query = '') {
  const res = await panel(`${s.base}${query ? `?${query}` : ''}`, { cookie: s.cookie });
  expect(roundTrips(res)).toBe(1);
  // Who a lead is, read as text: its parts are spans, so a narrow cell never cuts one.
  const html = (await page(res)).replace(/<span class="part">([^<]*)<\/span>/g, '$1');
  const ids = [...html.matchAll(/href="\/panel\/webhooks\/\d+\/events\/(\d+)"/g)].map((m) => Number(m[1]));
  return { html, ids };
}

describe('the event list: find a lead', () => {
  it('searches by name, phone in any format and email, in one round trip, keeping the filter in the form', async () => {
    const s = await setup();
    const [joao, ana, bia] = s.ids;
    expect((await list(s, 'q=11912345678')).ids).toEqual([joao]);
    expect((await list(s, `q=${encodeURIComponent('+55 (21) 98888-7777')}`)).ids).toEqual([ana]);
    expect((await list(s, 'q=bia%40example.com')).ids).toEqual([bia]);
    const { html, ids } = await list(s, 'q=souza+ana');
    expect(ids).toEqual([ana]);
    expect(html).toContain('value="souza ana"');
    expect(html).toContain('Limpar filtro');
    expect((await list(s, 'q=Zeca')).html).toContain('Nenhum evento encontrado com este filtro.');
  });

  it('reads the date inputs as whole days in America/Sao_Paulo', async () => {
    const s = await setup();
    const [joao, ana, bia] = s.ids;
    const at = (id: number | undefined, iso: string) =>
      env.DB.prepare('update inbound_events set received_at = ? where id = ?')
        .bind(Date.parse(iso), id)
        .run();
    // 5 March in São Paulo (UTC-3) is 03:00Z on the 5th to 03:00Z on the 6th.
    await at(joao, '2026-03-05T02:59:59.999Z');
    await at(ana, '2026-03-05T03:00:00.000Z');
    await at(bia, '2026-03-06T02:59:59.999Z');
    const day = await list(s, 'from=2026-03-05&to=2026-03-05');
    expect(day.ids).toEqual([bia, ana]);
    expect(day.html).toContain('Dias inteiros no fuso: Horário de Brasília.');
    expect(day.html).not.toContain('America/Sao_Paulo');
    expect((await list(s, 'to=2026-03-04')).ids).toEqual([joao]);
    expect((await list(s, 'from=2026-03-06')).ids).toEqual([]);
    expect((await list(s, 'from=2026-03-04&to=2026-03-05&q=Silva')).ids).toEqual([joao]);
    expect((await panel(`${s.base}?from=2026-02-30`, { cookie: s.cookie })).status).toBe(400);
    expect((await panel(`${s.base}?q=ab`, { cookie: s.cookie })).status).toBe(400);
  });

  it('shows who each lead is, a warnings marker and the error of every failed or refused row, each cell labelled', async () => {
    const s = await setup();
    const [joao, ana] = s.ids;
    await env.DB.prepare(
      `update inbound_events set status = 'failed', error = 'Owner unavailable', warnings = '[{"path":"telefone","code":"dropped","message":"m"}]' where id = ?`,
    )
      .bind(joao)
      .run();
    await env.DB.prepare(
      `update inbound_events set warnings = '[{"path":"telefone","code":"dropped","message":"m"},{"path":"email","code":"dropped","message":"m"}]' where id = ?`,
    )
      .bind(ana)
      .run();
    const refused = await call(s.hook.path, {
      method: 'POST',
      body: '{"nome": "Carla"',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(refused.status).toBe(400);
    const { html, ids } = await list(s);
    expect(ids).toHaveLength(4);
    expect(html).toContain('João da Silva · (11) 91234-5678 · joao@example.com');
    expect(html).toContain('Bia Lima · bia@example.com');
    // Real plurals, by Intl.PluralRules of the page's language.
    expect(html).toContain('>1 aviso<');
    expect(html).toContain('>2 avisos<');
    expect(html).toContain('Owner unavailable');
    const [refusedRow] = html.match(/<tr><td data-label="Evento">[\s\S]*?<\/tr>/g) ?? [];
    expect(refusedRow).toContain('O Content-Type é JSON, mas o corpo não é um JSON válido.');
    expect(refusedRow).not.toMatch(/<td data-label="Erro"><\/td>/);
    for (const td of html.match(/<td[^>]*>/g) ?? []) expect(td).toMatch(/data-label="[^"]+"/);
    expect((await list(s, 'status=warnings')).ids.sort()).toEqual([joao, ana].sort());
    expect((await list(s, 'status=failed&q=silva')).ids).toEqual([joao]);
  });
});

describe('the event list: leads stay named', () => {
  it('after a key is renamed, and on a refused call by the body it kept', async () => {
    const s = await setup();
    // The site renames `nome` to `nome_completo`: the mapping follows, older events keep their name.
    const fields = [{ ...FIELDS[0], key: 'nome_completo' }, ...FIELDS.slice(1)];
    const put = await call(`/v1/inbound-webhooks/${s.hook.id}`, {
      method: 'PUT',
      key: s.key,
      body: { fields },
    });
    expect(put.status).toBe(200);
    const required = [...fields, { key: 'cpf', type: 'string', required: true }];
    await call(`/v1/inbound-webhooks/${s.hook.id}`, {
      method: 'PUT',
      key: s.key,
      body: { fields: required },
    });
    const refused = await postEvent(s.hook.path, { nome_completo: 'Carla Dias', telefone: '11 97777-6666' });
    expect(refused.status).toBe(400);
    const { html } = await list(s);
    expect(html).toContain('João da Silva · (11) 91234-5678 · joao@example.com');
    expect(html).toContain('Bia Lima · bia@example.com');
    expect(html).toContain('Carla Dias · 11 97777-6666');
  });
});

describe('the event list and the search: leads named as they arrived', () => {
  it('keeps a name the mapping alone found, after its key is renamed, accepted or refused', async () => {
    const account = await newAccount('Concessionária');
    // `comprador` is no key a guess names: only the mapping says it holds the name.
    const fields = [
      { key: 'comprador', type: 'string', target: 'contact.name' },
      { key: 'cpf', type: 'string', required: true },
    ];
    const hook = await newWebhook(account.key, { mode: 'test', fields });
    expect((await postEvent(hook.path, { comprador: 'Davi Rocha', cpf: '1' })).status).toBe(204);
    expect((await postEvent(hook.path, { comprador: 'Eva Prado' })).status).toBe(400);
    const renamed = [{ ...fields[0], key: 'quem_comprou' }, fields[1]];
    const put = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key: account.key,
      body: { fields: renamed },
    });
    expect(put.status).toBe(200);
    const cookie = await signIn(account.key);
    const s = { ...account, hook, ids: [], cookie, base: `/panel/webhooks/${hook.id}/events` };
    const { html } = await list(s);
    expect(html).toMatch(/<td data-label="Lead"><span class="who">Davi Rocha<\/span><\/td>/);
    expect(html).toMatch(/<td data-label="Lead"><span class="who">Eva Prado<\/span><\/td>/);
    const found = await page(await panel('/panel/search?q=Davi+Rocha', { cookie }));
    expect(found.replace(/<span class="part">([^<]*)<\/span>/g, '$1')).toMatch(
      /<td data-label="Lead"><span class="who">Davi Rocha<\/span><\/td>/,
    );
  });
});

describe('the event list: replay every failed event of the filter', () => {
  it('offers it with a confirmation that says how many, replays the filter, and reports', async () => {
    const s = await setup();
    const [joao, ana, bia] = s.ids;
    await env.DB.prepare("update inbound_events set status = 'failed', error = 'boom' where webhook_id = ?")
      .bind(s.hook.id)
      .run();
    const { html } = await list(s, 'q=example.com');
    expect(html).toContain('Reprocessar todas as falhas deste filtro (2)');
    expect(html).toContain('2 eventos com falha correspondem a este filtro.');
    // One is said in the singular.
    expect((await list(s, 'replayed=1&remaining=0')).html).toContain(
      '1 reenviado; nenhuma falha resta neste filtro.',
    );
    expect(html).toMatch(/<button type="submit" class="danger">Sim, reprocessar 2 agora<\/button>/);
    expect(html).toContain('<input type="hidden" name="q" value="example.com">');
    const res = await panel(`${s.base}/replay`, { cookie: s.cookie, form: { q: 'example.com' } });
    expect(res.status).toBe(303);
    expect(roundTrips(res)).toBe(1);
    const back = res.headers.get('Location') ?? '';
    expect(back).toBe(`${s.base}?q=example.com&replayed=2&remaining=0`);
    expect((await list(s, back.split('?')[1])).html).toContain(
      '2 reenviados; nenhuma falha resta neste filtro.',
    );
    const statuses = await json(await call(`/v1/inbound-webhooks/${s.hook.id}/events`, { key: s.key }));
    const byId = new Map(statuses.data.map((e: { id: number; status: string }) => [e.id, e.status]));
    expect(byId.get(ana)).toBe('failed');
    expect(byId.get(joao)).not.toBe('failed');
    expect(byId.get(bia)).not.toBe('failed');
    // Nothing failed left in this filter: no offer.
    expect((await list(s, 'q=example.com')).html).not.toContain('Reprocessar todas');
  });

  it('reports what remains, and offers nothing to a key that may only read', async () => {
    const s = await setup();
    const report = await list(s, 'replayed=100&remaining=17');
    expect(report.html).toContain('100 reenviados; 17 ainda restam: clique de novo.');
    // A forged report that is no count shows nothing.
    expect((await list(s, 'replayed=%3Cb%3E&remaining=1')).html).not.toContain('reenviados');
    const reader = await call('/v1/api-keys', {
      method: 'POST',
      key: s.key,
      body: { name: 'leitura', scopes: ['webhooks:read'] },
    });
    expect(reader.status).toBe(201);
    const readerCookie = await signIn((await json(reader)).data.key);
    await env.DB.prepare("update inbound_events set status = 'failed' where webhook_id = ?")
      .bind(s.hook.id)
      .run();
    const html = await page(await panel(s.base, { cookie: readerCookie }));
    expect(html).not.toContain('Reprocessar todas');
    const refused = await panel(`${s.base}/replay`, { cookie: readerCookie, form: {} });
    expect(refused.status).toBe(403);
  });
});

describe('the attacker’s pass on the event list', () => {
  it('escapes what was typed, refuses a cross-site or foreign replay, and takes odd encodings without a 500', async () => {
    const s = await setup();
    const typed = '"><script>alert(1)</script>';
    const { html } = await list(s, `q=${encodeURIComponent(typed)}`);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    for (const query of ['q=%FF%FE%FD', 'q=%C3%28abc', 'q=caf%E9', 'from=%FF', 'status=%00']) {
      const res = await panel(`${s.base}?${query}`, { cookie: s.cookie });
      expect(res.status, query).toBeLessThan(500);
      await res.text();
    }
    for (const query of ['q=%FF%FE%FD', 'q=caf%E9', 'q=%00%00%00']) {
      const res = await call(`/v1/inbound-webhooks/${s.hook.id}/events?${query}`, { key: s.key });
      expect(res.status, query).toBeLessThan(500);
      await res.text();
    }
    await env.DB.prepare("update inbound_events set status = 'failed' where webhook_id = ?")
      .bind(s.hook.id)
      .run();
    const crossSite = await panel(`${s.base}/replay`, {
      cookie: s.cookie,
      form: {},
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    const other = await newAccount('Outra');
    const otherCookie = await signIn(other.key);
    const foreign = await panel(`${s.base}/replay`, { cookie: otherCookie, form: {} });
    expect(foreign.status).toBe(404);
    const { n } = (await env.DB.prepare(
      "select count(*) as n from inbound_events where webhook_id = ? and status = 'failed'",
    )
      .bind(s.hook.id)
      .first<{ n: number }>()) ?? { n: -1 };
    expect(n).toBe(3);
  });
});

describe('the event list: delete the events of the filter (issue 34)', () => {
  const count = async (hookId: number) =>
    (
      await env.DB.prepare('select count(*) as n from inbound_events where webhook_id = ?')
        .bind(hookId)
        .first<{ n: number }>()
    )?.n;

  it('asks first (pt-BR), deletes the filter’s events received before the page was shown, and reports', async () => {
    const s = await setup();
    const [joao, ana, bia] = s.ids;
    await env.DB.prepare("update inbound_events set status = 'processed' where webhook_id = ?")
      .bind(s.hook.id)
      .run();
    // With no filter, the button names the whole log; with one, the filter.
    const whole = await list(s, '');
    expect(whole.html).toContain('<summary class="danger">Apagar todos os eventos deste webhook</summary>');
    expect(whole.html).toContain('Para apagar só alguns, filtre a lista antes.');
    const { html } = await list(s, 'q=example.com');
    expect(html).toContain('<summary class="danger">Apagar os eventos deste filtro</summary>');
    expect(html).not.toContain('Apagar todos os eventos deste webhook');
    expect(html).toContain('Não dá para desfazer.');
    expect(html).toMatch(/<form method="post" action="[^"]+\/events\/delete" class="inline">/);
    const before = /name="before" value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(Date.parse(before)).not.toBeNaN();
    // A lead that arrives after the page was shown is not deleted.
    expect(
      (await postEvent(s.hook.path, { nome: 'Cris', contato: { email: 'cris@example.com' } })).status,
    ).toBe(204);
    const res = await panel(`${s.base}/delete`, { cookie: s.cookie, form: { q: 'example.com', before } });
    expect(res.status).toBe(303);
    expect(roundTrips(res)).toBe(1);
    const back = res.headers.get('Location') ?? '';
    expect(back).toBe(`${s.base}?q=example.com&deleted=2&remaining=0`);
    expect((await list(s, back.split('?')[1])).html).toContain(
      '2 eventos apagados; nenhum resta neste filtro.',
    );
    const left = idsOf(await json(await call(`/v1/inbound-webhooks/${s.hook.id}/events`, { key: s.key })));
    expect(left).toContain(ana);
    expect(left).not.toContain(joao);
    expect(left).not.toContain(bia);
    expect(left).toHaveLength(2);
  });

  it('refuses a cross-site, foreign or read-only delete, and offers it only to a key with webhooks:delete', async () => {
    const s = await setup();
    const before = new Date(Date.now() + 1000).toISOString();
    const crossSite = await panel(`${s.base}/delete`, {
      cookie: s.cookie,
      form: { before },
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    const other = await newAccount('Outra');
    const foreign = await panel(`${s.base}/delete`, { cookie: await signIn(other.key), form: { before } });
    expect(foreign.status).toBe(404);
    const reader = await call('/v1/api-keys', {
      method: 'POST',
      key: s.key,
      body: { name: 'leitura', scopes: ['webhooks:read', 'webhooks:update'] },
    });
    const readerCookie = await signIn((await json(reader)).data.key);
    expect(await page(await panel(s.base, { cookie: readerCookie }))).not.toContain('Apagar os eventos');
    expect((await panel(`${s.base}/delete`, { cookie: readerCookie, form: { before } })).status).toBe(403);
    expect(await count(s.hook.id)).toBe(3);
  });
});
