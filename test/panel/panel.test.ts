import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, adminHeaders, call, create, json, newAccount, roundTrips } from '../helpers';
import { page, panel, panelWithEnv, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const webhook = (key: string, body: Record<string, unknown> = {}) =>
  create(key, '/v1/inbound-webhooks', { name: 'Leads do site', ...body });

describe('sign-in', () => {
  it('serves the sign-in page in pt-BR under a strict CSP, with its assets from the Worker', async () => {
    const res = await panel('/panel/sign-in');
    const html = await page(res);
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toMatch(/<label for="api_key">Chave de API<\/label>/);
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    // Its own, kept by the security headers: no-referrer would send `Origin: null` on its form posts.
    expect(res.headers.get('Referrer-Policy')).toBe('same-origin');
    expect(html).not.toMatch(/<script>|<style|style="/);
    for (const asset of ['/panel/static/panel.css', '/panel/static/panel.js']) {
      const got = await panel(asset);
      expect(got.status).toBe(200);
      expect(got.headers.get('Content-Type')).toMatch(/^text\/(css|javascript)/);
    }
  });

  it('keeps the first page, with its CSS and JS, under 50 KB gzipped', async () => {
    let total = 0;
    for (const path of ['/panel/sign-in', '/panel/static/panel.css', '/panel/static/panel.js']) {
      const body = (await panel(path)).body;
      if (!body) throw new Error(`${path} has no body`);
      const gz = await new Response(body.pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
      total += gz.byteLength;
    }
    expect(total).toBeLessThan(50 * 1024);
  });

  it('speaks English by Accept-Language, and by the switch over it', async () => {
    const english = await page(
      await panel('/panel/sign-in', { headers: { 'Accept-Language': 'en-US,en;q=0.9' } }),
    );
    expect(english).toContain('<label for="api_key">API key</label>');
    const sw = await panel('/panel/lang/pt-BR?next=/panel/sign-in', { headers: { 'Accept-Language': 'en' } });
    expect(sw.status).toBe(303);
    expect(sw.headers.get('Location')).toBe('/panel/sign-in');
    const lang = (sw.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '';
    const back = await page(
      await panel('/panel/sign-in', { cookie: lang, headers: { 'Accept-Language': 'en' } }),
    );
    expect(back).toContain('Chave de API');
    const away = await panel('/panel/lang/en?next=https://evil.example/');
    expect(away.headers.get('Location')).toBe('/panel/webhooks');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie; __Host- and Secure over https', async () => {
    const { key } = await newAccount();
    const res = await panel('/panel/sign-in', { form: { api_key: key } });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/panel/webhooks');
    const cookie = res.headers.get('Set-Cookie') ?? '';
    expect(cookie).toMatch(
      /^crm_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const secure = await panel('/panel/sign-in', { form: { api_key: key }, base: 'https://crm.test' });
    expect(secure.headers.get('Set-Cookie')).toMatch(
      /^__Host-crm_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it('stores only the hash of the session token, with the key and an expiry', async () => {
    const { id, key, keyId } = await newAccount();
    const cookie = await signIn(key);
    const token = cookie.split('=')[1] ?? '';
    const rows = await env.DB.prepare('select * from panel_sessions where api_key_id = ?').bind(keyId).all();
    expect(rows.results).toHaveLength(1);
    const row = rows.results[0] as Record<string, unknown>;
    expect(row.account_id).toBe(id);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    expect((row.expires_at as number) - (row.created_at as number)).toBe(12 * 3600 * 1000);
  });

  it('refuses a wrong or revoked key with 401 and no cookie', async () => {
    const { key, keyId } = await newAccount();
    for (const wrong of ['crm_nope', `crm_${'A'.repeat(43)}`, '']) {
      const res = await panel('/panel/sign-in', { form: { api_key: wrong } });
      expect(await page(res, 401)).toContain('Chave de API inválida, revogada ou expirada.');
      expect(res.headers.get('Set-Cookie')).toBeNull();
    }
    await call(`/admin/api-keys/${keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect((await panel('/panel/sign-in', { form: { api_key: key } })).status).toBe(401);
  });

  it('refuses a POST from another origin or without Origin', async () => {
    const { key } = await newAccount();
    for (const origin of ['https://evil.example', null]) {
      const res = await panel('/panel/sign-in', { form: { api_key: key }, origin });
      expect(res.status).toBe(403);
      expect(res.headers.get('Set-Cookie')).toBeNull();
    }
    const cookie = await signIn(key);
    const res = await panel('/panel/webhooks', {
      cookie,
      form: { name: 'x' },
      origin: 'https://evil.example',
    });
    expect(res.status).toBe(403);
    const list = await json(await call('/v1/inbound-webhooks', { key }));
    expect(list.data).toEqual([]);
  });

  it('rate limits sign-in attempts per client address', async () => {
    const low = { SIGN_IN_RATE_LIMITER: env.LOW_SIGN_IN_RATE_LIMITER };
    const headers = { 'CF-Connecting-IP': '203.0.113.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await panelWithEnv(low, '/panel/sign-in', { form: { api_key: 'crm_nope' }, headers });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('session', () => {
  it('sends a browser without a session, or with a made-up one, to sign in', async () => {
    for (const cookie of [undefined, `crm_session=${'x'.repeat(43)}`, 'crm_session=short']) {
      const res = await panel('/panel/webhooks', cookie ? { cookie } : {});
      expect(res.status).toBe(303);
      expect(res.headers.get('Location')).toBe('/panel/sign-in');
    }
  });

  it('ends at sign-out: the old cookie no longer opens a page', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    expect((await panel('/panel/webhooks', { cookie })).status).toBe(200);
    const out = await panel('/panel/sign-out', { cookie, form: {} });
    expect(out.status).toBe(303);
    expect(out.headers.get('Set-Cookie')).toMatch(/^crm_session=; Max-Age=0/);
    expect((await panel('/panel/webhooks', { cookie })).headers.get('Location')).toBe('/panel/sign-in');
  });

  it('ends when the API key is revoked', async () => {
    const { key, keyId } = await newAccount();
    const cookie = await signIn(key);
    expect((await panel('/panel/webhooks', { cookie })).status).toBe(200);
    await call(`/admin/api-keys/${keyId}`, { method: 'DELETE', headers: adminHeaders() });
    const res = await panel('/panel/webhooks', { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/panel/sign-in');
  });

  it('ends when it expires', async () => {
    const { key, keyId } = await newAccount();
    const cookie = await signIn(key);
    await env.DB.prepare('update panel_sessions set expires_at = ? where api_key_id = ?')
      .bind(Date.now() - 1, keyId)
      .run();
    expect((await panel('/panel/webhooks', { cookie })).headers.get('Location')).toBe('/panel/sign-in');
  });
});

describe('pages', () => {
  it('lists the webhooks with mode, state, URL, last event and counts, in 1 round trip', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key, { mode: 'test', fields: [{ key: 'nome', type: 'string' }] });
    const sent = await call(new URL(hook.url).pathname, { method: 'POST', body: { nome: 'Ana' } });
    expect(sent.status).toBeLessThan(300);
    const cookie = await signIn(key);
    const res = await panel('/panel/webhooks', { cookie });
    const html = await page(res);
    expect(roundTrips(res)).toBe(1);
    expect(html).toContain('Leads do site');
    expect(html).toContain(hook.url);
    expect(html).toContain('class="badge test"');
    expect(html).toMatch(/(Pendente|Teste): 1/);
    expect(html).toMatch(/<time datetime="\d{4}-/);
  });

  it('renders every page of a webhook in 1 round trip', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key, { mode: 'test', fields: [{ key: 'nome', type: 'string' }] });
    await call(new URL(hook.url).pathname, { method: 'POST', body: { nome: 'Ana' } });
    const cookie = await signIn(key);
    const events = await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }));
    const eventId = events.data[0].id;
    for (const path of [
      '/panel/webhooks/new',
      `/panel/webhooks/${hook.id}`,
      `/panel/webhooks/${hook.id}?sample=1`,
      `/panel/webhooks/${hook.id}/events`,
      `/panel/webhooks/${hook.id}/events?status=test`,
      `/panel/webhooks/${hook.id}/events?status=`,
      `/panel/webhooks/${hook.id}/events/${eventId}`,
    ]) {
      const res = await panel(path, { cookie });
      await page(res);
      expect(roundTrips(res), path).toBe(1);
    }
  });

  it('keeps accounts apart: another account sees none of it and changes nothing', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const hook = await webhook(a.key, { fields: [{ key: 'nome', type: 'string' }] });
    await call(new URL(hook.url).pathname, { method: 'POST', body: { nome: 'Ana' } });
    const [event] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key: a.key }))).data;
    await env.DB.prepare("update inbound_events set status = 'failed' where id = ?").bind(event.id).run();
    const cookie = await signIn(b.key);
    expect(await page(await panel('/panel/webhooks', { cookie }))).not.toContain('Leads do site');
    for (const path of [
      `/panel/webhooks/${hook.id}`,
      `/panel/webhooks/${hook.id}/events`,
      `/panel/webhooks/${hook.id}/events/${event.id}`,
    ]) {
      expect((await panel(path, { cookie })).status).toBe(404);
    }
    const replay = await panel(`/panel/webhooks/${hook.id}/events/${event.id}/replay`, { cookie, form: {} });
    expect(replay.status).toBe(404);
    const events = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key: a.key }))).data;
    expect(events[0]).toMatchObject({ id: event.id, status: 'failed' });
    for (const [path, form] of [
      [`/panel/webhooks/${hook.id}`, { name: 'taken over' }],
      [`/panel/webhooks/${hook.id}/mode`, { mode: 'test' }],
      [`/panel/webhooks/${hook.id}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`/panel/webhooks/${hook.id}/rotate`, { grace: '0', confirm: 'yes' }],
      [`/panel/webhooks/${hook.id}/secret`, { secret: 'a-long-enough-secret' }],
      [`/panel/webhooks/${hook.id}/sample`, {}],
    ] as const) {
      expect((await panel(path, { cookie, form })).status, path).toBe(404);
    }
    const after = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key: a.key }));
    expect(after.data).toEqual(hook);
  });

  it('creates a webhook from the form, through the same rules as /v1', async () => {
    const { key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const other = await create(key, '/v1/users', { name: 'Caio', email: 'caio@example.com' });
    const cookie = await signIn(key);
    const res = await panel('/panel/webhooks', {
      cookie,
      form: {
        name: 'Formulário',
        'fields.0.key': 'lead.phone',
        'fields.0.type': 'phone',
        'fields.0.required': 'on',
        'fields.0.target': 'contact.phone',
        'fields.1.key': '',
        'fields.1.type': 'string',
        'fields.2.key': 'nome',
        'fields.2.type': 'string',
        'fields.2.target': 'deal.name',
        'flows.0.action': 'upsert_contact',
        'flows.0.match_on': 'phone',
        'flows.0.owner': String(user.id),
        'flows.1.action': '',
        'flows.2.action': 'create_deal',
        'flows.2.when.field': 'nome',
        'flows.2.when.op': 'contains',
        'flows.2.when.value': 'Ana',
        'flows.3.action': 'create_task',
        'flows.3.name': 'Ligar para {{nome}}',
        'flows.3.category': 'Ligação',
        'flows.3.description': 'Primeiro contato',
        'flows.3.due.from': 'received_at',
        'flows.3.due.days': '2',
        'flows.3.due.hours': '-3',
        'flows.3.round_robin': [String(user.id), String(other.id)],
        'flows.3.when.field': 'nome',
        'flows.3.when.op': 'exists',
        'flows.3.when.value': 'ignored',
      },
    });
    expect(res.status).toBe(303);
    const id = Number(/\/panel\/webhooks\/(\d+)\?done=saved$/.exec(res.headers.get('Location') ?? '')?.[1]);
    const { data } = await json(await call(`/v1/inbound-webhooks/${id}`, { key }));
    expect(data.fields).toEqual([
      { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
      { key: 'nome', type: 'string', required: false, target: 'deal.name' },
    ]);
    expect(data.flows).toEqual([
      { action: 'upsert_contact', match_on: ['phone'], owner: { user_id: user.id } },
      { action: 'create_deal', when: { field: 'nome', op: 'contains', value: 'Ana' } },
      {
        action: 'create_task',
        name: 'Ligar para {{nome}}',
        category: 'Ligação',
        description: 'Primeiro contato',
        due: { from: 'received_at', days: 2, hours: -3 },
        owner: { round_robin: [user.id, other.id] },
        when: { field: 'nome', op: 'exists' },
      },
    ]);
    // The stored flows come back into the form as they were.
    const edit = await page(await panel(`/panel/webhooks/${id}`, { cookie }));
    expect(edit).toContain('name="flows.2.due.hours" value="-3"');
    expect(edit.match(/name="flows\.2\.round_robin" value="\d+" checked>/g)).toHaveLength(2);
    expect(await page(await panel(`/panel/webhooks/${id}?done=saved`, { cookie }))).toContain('Salvo.');
  });

  it('orders the flows by the positions given, and refuses an order the config check refuses', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key);
    const cookie = await signIn(key);
    const form = (contactAt: string, dealAt: string) => ({
      name: 'Leads do site',
      'fields.0.key': 'email',
      'fields.0.type': 'email',
      'fields.0.target': 'contact.email',
      'fields.1.key': 'nome',
      'fields.1.type': 'string',
      'fields.1.target': 'deal.name',
      'flows.0.position': dealAt,
      'flows.0.action': 'create_deal',
      'flows.1.position': contactAt,
      'flows.1.action': 'upsert_contact',
      'flows.1.match_on': 'email',
    });
    const wrong = await page(
      await panel(`/panel/webhooks/${hook.id}`, { cookie, form: form('3', '1') }),
      422,
    );
    expect(wrong).toMatch(
      /id="err-flows-0-action">“Criar negócio” precisa vir depois de “Criar ou atualizar contato”/,
    );
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: form('1', '2') })).status).toBe(303);
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(data.flows.map((a: { action: string }) => a.action)).toEqual(['upsert_contact', 'create_deal']);
  });

  it('shows each 422 of the config check next to its field, keeping what was typed', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key);
    const other = await newAccount('Other');
    const stranger = await create(other.key, '/v1/users', { name: 'Zé', email: 'ze@example.com' });
    const cookie = await signIn(key);
    const res = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: {
        name: 'Leads do site',
        'fields.0.key': '',
        'fields.1.key': 'email',
        'fields.1.type': 'string',
        'fields.1.target': 'contact.email',
        'fields.2.key': 'bad key',
        'fields.2.type': 'string',
        'flows.0.action': 'create_task',
        'flows.0.name': 'Ligar para {{ninguem}}',
        'flows.0.category': 'Ligação',
        'flows.0.due.from': 'received_at',
        'flows.0.due.days': 'dois',
      },
    });
    const html = await page(res, 422);
    // Row numbers are the form's: blank row 0 is not part of the body but keeps its place.
    expect(html).toMatch(
      /name="fields\.2\.key" value="bad key" aria-label="[^"]+" aria-invalid="true" aria-describedby="err-fields-2-key"/,
    );
    expect(html).toMatch(
      /<span class="error" id="err-fields-2-key">Deve ser o nome do campo como o remetente o envia, sem espaços/,
    );
    expect(html).toMatch(
      /name="flows\.0\.due\.days" value="dois" aria-invalid="true" aria-describedby="err-flows-0-due-days"/,
    );
    const after = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(after.data).toEqual(hook);

    const rules = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: {
        name: 'Leads do site',
        'fields.0.key': 'email',
        'fields.0.type': 'string',
        'fields.0.target': 'contact.email',
        'flows.0.action': 'create_task',
        'flows.0.name': 'Ligar para {{ninguem}}',
        'flows.0.category': 'Ligação',
      },
    });
    const ruled = await page(rules, 422);
    expect(ruled).toMatch(
      /id="err-fields-0-type">E-mail do contato \(contact\.email\) aceita um campo do tipo E-mail/,
    );
    expect(ruled).toMatch(/id="err-flows-0-name">“ninguem” não é um campo declarado/);
    expect(ruled).toMatch(/id="err-flows-0-action">“Criar tarefa” precisa de um “Criar negócio” antes/);

    const owner = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: {
        name: 'Leads do site',
        'fields.0.key': 'phone',
        'fields.0.type': 'phone',
        'fields.0.target': 'contact.phone',
        'flows.0.action': 'upsert_contact',
        'flows.0.match_on': 'phone',
        'flows.0.owner': String(stranger.id),
      },
    });
    expect(await page(owner, 422)).toMatch(/aria-describedby="err-flows-0-owner"/);
    expect((await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data).toEqual(hook);
  });

  it('toggles test mode with its banner, disables, rotates and sets a secret', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key);
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    expect(await page(await panel(base, { cookie }))).toContain('class="banner production"');
    expect((await panel(`${base}/mode`, { cookie, form: { mode: 'test' } })).status).toBe(303);
    expect(await page(await panel(base, { cookie }))).toContain('class="banner test"');
    const confirm = 'yes';
    expect((await panel(`${base}/enabled`, { cookie, form: { enabled: 'false', confirm } })).status).toBe(
      303,
    );
    const rotate = await panel(`${base}/rotate`, { cookie, form: { grace: '0', confirm } });
    expect(rotate.status).toBe(303);
    const short = await panel(`${base}/secret`, { cookie, form: { secret: 'short' } });
    expect(await page(short, 422)).toMatch(/id="secret-error"/);
    expect((await panel(`${base}/secret`, { cookie, form: { secret: 'a-long-enough-secret' } })).status).toBe(
      303,
    );
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(data).toMatchObject({ mode: 'test', enabled: false, has_secret: true });
    expect(data.url).not.toBe(hook.url);
    expect((await call(new URL(hook.url).pathname, { method: 'POST', body: {} })).status).toBe(404);
  });

  it('sends a signed sample event, logs it, fills fields from it and shows its detail', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key, {
      mode: 'test',
      secret: 'a-long-enough-secret',
      fields: [{ key: 'lead.email', type: 'email', target: 'contact.email' }],
    });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const sent = await panel(`${base}/sample`, { cookie, form: {} });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('Location')).toBe(`${base}?done=sample`);
    const log = await page(await panel(`${base}/events`, { cookie }));
    const eventId = /events\/(\d+)"/.exec(log)?.[1];
    expect(eventId).toBeDefined();
    expect(await page(await panel(`${base}/events?status=failed`, { cookie }))).toContain(
      'Nenhum evento encontrado com este filtro.',
    );
    const detail = await page(await panel(`${base}/events/${eventId}`, { cookie }));
    // Drawn for this send from example.com (RFC 2606), never the same address twice.
    expect(detail).toMatch(/exemplo-[0-9a-f]{16}@example\.com/);
    expect(detail).not.toContain('Reprocessar');
    const filled = await page(await panel(`${base}?sample=1`, { cookie }));
    expect(filled).toContain('value="lead.email"');
    // Not failed: nothing to replay (409), back to the event.
    const early = await panel(`${base}/events/${eventId}/replay`, { cookie, form: {} });
    expect(early.status).toBe(303);
    expect(early.headers.get('Location')).toBe(`${base}/events/${eventId}`);
    await env.DB.prepare("update inbound_events set status = 'failed', error = 'boom' where id = ?")
      .bind(Number(eventId))
      .run();
    const failed = await page(await panel(`${base}/events/${eventId}`, { cookie }));
    expect(failed).toContain('boom');
    expect(failed).toContain('Reprocessar');
    const replay = await panel(`${base}/events/${eventId}/replay`, { cookie, form: {} });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('Location')).toBe(`${base}/events/${eventId}?done=replayed`);
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }));
    expect(data[0]).toMatchObject({ id: Number(eventId), status: 'pending', error: null });
  });

  it('says a disabled webhook takes no sample event, instead of failing on its bare 404', async () => {
    const { key } = await newAccount();
    const hook = await webhook(key, { enabled: false });
    const cookie = await signIn(key);
    const sent = await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form: {} });
    expect(await page(sent, 422)).toContain('Desativado: a URL responde 404.');
    const { data } = await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }));
    expect(data).toEqual([]);
  });

  it('offers only live users as owners: one in the trash is not in the form', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/users', { name: 'Ana Viva', email: 'ana@example.com' });
    const gone = await create(key, '/v1/users', { name: 'Bia Lixeira', email: 'bia@example.com' });
    expect((await call(`/v1/users/${gone.id}`, { method: 'DELETE', key })).status).toBe(204);
    const hook = await webhook(key);
    const cookie = await signIn(key);
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toContain('Ana Viva');
    expect(edit).not.toContain('Bia Lixeira');
  });

  it('answers 404 for ids that are no row and 400 for a bad cursor or query', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    for (const path of ['/panel/webhooks/0', '/panel/webhooks/abc', '/panel/webhooks/999999/events']) {
      expect((await panel(path, { cookie })).status, path).toBe(404);
    }
    expect((await panel('/panel/webhooks?cursor=nonsense', { cookie })).status).toBe(400);
    const hook = await webhook(key, { mode: 'test' });
    const other = await webhook(key);
    await call(new URL(hook.url).pathname, { method: 'POST', body: { nome: 'Ana' } });
    const [event] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }))).data;
    for (const query of ['status=bogus', 'cursor=nonsense', 'limit=0']) {
      const res = await panel(`/panel/webhooks/${hook.id}/events?${query}`, { cookie });
      expect(await page(res, 400), query).toContain('Pedido inválido.');
    }
    // The account's event, under another of its webhooks.
    expect((await panel(`/panel/webhooks/${other.id}/events/${event.id}`, { cookie })).status).toBe(404);
    const unknown = await panel('/panel/nowhere', { cookie });
    expect(unknown.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(await page(unknown, 404)).toContain('Não encontrado.');
  });
});
