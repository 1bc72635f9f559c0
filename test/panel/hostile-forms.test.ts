import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PANEL_FILE_BYTES } from '../../src/panel/pages/imports';
import { panelRouter } from '../../src/panel/routes';
import {
  BASE,
  call,
  capturingLogs,
  create,
  d1OfRow,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
} from '../helpers';
import { page, panel, panelWithEnv, signIn } from './browser';

// The attacker's pass over the panel's forms: what a browser would never send, but a script can,
// gets a 4xx page, never a 500.

const post = (path: string, body: BodyInit, headers: Record<string, string>) =>
  exports.default.fetch(
    new Request(`${BASE}${path}`, {
      method: 'POST',
      body,
      headers: { Origin: BASE, ...headers },
      redirect: 'manual',
    }),
  );

describe('a form the runtime cannot parse', () => {
  it('is a 400 page on every POST, signed in or not, and changes nothing', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'production' });
    const cookie = await signIn(key);
    const multipart = 'multipart/form-data; boundary=x';
    const bodies = ['not multipart at all', '--x\r\nContent-Disposition: form-data; name="mode"\r\n\r\ntest'];
    const paths = [
      '/panel/sign-in',
      '/panel/webhooks',
      `/panel/webhooks/${hook.id}`,
      `/panel/webhooks/${hook.id}/mode`,
      `/panel/webhooks/${hook.id}/sample`,
    ];
    const { value: answers, logged } = await capturingLogs(async () => {
      const out: Response[] = [];
      for (const path of paths) {
        for (const body of bodies)
          out.push(await post(path, body, { Cookie: cookie, 'Content-Type': multipart }));
      }
      return out;
    });
    for (const res of answers) {
      const html = await page(res, 400);
      expect(html).toContain('O formulário enviado não pôde ser lido');
    }
    expect(logged).toEqual([]);
    const after = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(after.data).toMatchObject({ mode: 'production', name: hook.name });
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toHaveLength(1);
  });

  it('still takes a well-formed multipart form, as a browser may send one', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'production' });
    const cookie = await signIn(key);
    const form = new FormData();
    form.append('mode', 'test');
    const res = await post(`/panel/webhooks/${hook.id}/mode`, form, { Cookie: cookie });
    expect(res.status).toBe(303);
    expect((await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data.mode).toBe('test');
  });
});

// Every route of the panel's router, read from the router itself: a page added later is held to
// the same rules without this test naming it.
const routes = panelRouter(() => Promise.reject(new Error('not called'))).routes.filter(
  (r) => !r.path.includes('*'),
);
const pathOf = (path: string, ids: { id: number; event_id: number }) =>
  `/panel${path.replace(':id', String(ids.id)).replace(':event_id', String(ids.event_id))}`;

describe('a form that is not UTF-8', () => {
  it('is a 400 page, raw or percent-encoded, instead of a name stored with U+FFFD', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Leads' });
    const cookie = await signIn(key);
    const headers = { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' };
    const ascii = (text: string) => new TextEncoder().encode(text);
    // "João" in Latin-1: the byte 0xE3 as sent, and as a percent-encoded byte.
    const raw = new Uint8Array([...ascii('name=Jo'), 0xe3, ...ascii('o')]);
    for (const body of [raw, ascii('name=Jo%E3o')]) {
      for (const path of ['/panel/webhooks', `/panel/webhooks/${hook.id}`, '/panel/sign-in']) {
        const html = await page(await post(path, body, headers), 400);
        expect(html).toContain('envie-o em UTF-8');
      }
    }
    const names = (await json(await call('/v1/inbound-webhooks', { key }))).data.map((h: Json) => h.name);
    expect(names).toEqual(['Leads']);
    // UTF-8, raw or percent-encoded (a U+FFFD the person typed included), is read as sent.
    const utf8 = await post('/panel/webhooks', ascii(`name=${encodeURIComponent('João \ufffd')}`), headers);
    expect(utf8.status).toBe(303);
    const again = await post('/panel/webhooks', new TextEncoder().encode('name=Conceição'), headers);
    expect(again.status).toBe(303);
    const after = (await json(await call('/v1/inbound-webhooks?sort=created_at', { key }))).data;
    expect(after.map((h: Json) => h.name)).toEqual(['Leads', 'João \ufffd', 'Conceição']);
  });
});

describe('every route of the panel', () => {
  it('refuses each POST from another origin, or without one, and one over its limit (1 MiB, a CSV 25 MiB), before it runs', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'production', fields: [{ key: 'nome', type: 'string' }] });
    const cookie = await signIn(key);
    const posts = routes.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(10);
    const form = { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie };
    for (const route of posts) {
      const path = pathOf(route.path, { id: hook.id, event_id: 1 });
      for (const origin of ['https://evil.example', `${BASE}.evil.example`, 'null', undefined]) {
        const headers = { ...form, ...(origin && { Origin: origin }) };
        const res = await exports.default.fetch(
          new Request(`${BASE}${path}`, { method: 'POST', body: 'mode=test&enabled=false', headers }),
        );
        expect(res.status, `${path} from ${origin}`).toBe(403);
      }
      // The import page's file has a limit of its own (a CSV, not a form).
      const limit = path === '/panel/imports/preview' ? PANEL_FILE_BYTES : 1024 * 1024;
      const big = `name=${'x'.repeat(limit)}`;
      expect((await post(path, big, form)).status, path).toBe(413);
    }
    expect(await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).toMatchObject({
      data: { mode: 'production', enabled: true, name: hook.name, url: hook.url },
    });
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toHaveLength(1);
  });

  it('sends a browser without a session to sign in from every page but the public ones', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const open = new Set([
      '/',
      '/static/panel.css',
      '/static/panel.js',
      '/lang/:lang',
      '/sign-in',
      '/sign-out',
      '/settings',
    ]);
    const guarded = routes.filter((r) => !open.has(r.path));
    expect(guarded.length).toBeGreaterThanOrEqual(13);
    for (const route of guarded) {
      const path = pathOf(route.path, { id: hook.id, event_id: 1 });
      const res =
        route.method === 'POST'
          ? await post(path, 'mode=test', { 'Content-Type': 'application/x-www-form-urlencoded' })
          : await exports.default.fetch(new Request(`${BASE}${path}`, { redirect: 'manual' }));
      expect(res.status, `${route.method} ${path}`).toBe(303);
      // The OAuth consent page sends the person back to it once signed in.
      const back = route.path === '/oauth/authorize' ? `?next=${encodeURIComponent(path)}` : '';
      expect(res.headers.get('Location')).toBe(`/panel/sign-in${back}`);
    }
  });
});

describe('the language switch', () => {
  it('sends a `next` holding a control character to the webhooks, never a 500', async () => {
    const get = (next: string) =>
      exports.default.fetch(new Request(`${BASE}/panel/lang/en?next=${next}`, { redirect: 'manual' }));
    const { value: answers, logged } = await capturingLogs(async () => [
      await get('/panel/x%0d%0aSet-Cookie:%20crm_session=planted'),
      await get('/panel/webhooks%00'),
      await get('/panel/webhooks%09x'),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(303);
      expect(res.headers.get('Location')).toBe('/panel/webhooks');
      expect(res.headers.get('Set-Cookie')).toMatch(/^lang=en;/);
    }
    expect(logged).toEqual([]);
    // The page's own links, percent-encoded as the layout writes them, still come back.
    const back = await get(encodeURIComponent('/panel/webhooks/1/events?status=failed&cursor=a%2Bb'));
    expect(back.headers.get('Location')).toBe('/panel/webhooks/1/events?status=failed&cursor=a%2Bb');
  });
});

describe('markup in values the new pages show', () => {
  it("shows a user's name (owner and round robin) and an event's error as text", async () => {
    const { key } = await newAccount();
    const markup = '"><img src=x onerror=alert(1)>';
    const user = await create(key, '/v1/users', { name: `Ana ${markup}`, email: 'ana@example.com' });
    const hook = await newWebhook(key, {
      mode: 'test',
      fields: [
        { key: 'nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'fone', type: 'phone', target: 'contact.phone' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'], owner: { round_robin: [user.id] } },
        { action: 'create_deal', name: 'Lead', owner: { user_id: user.id } },
      ],
    });
    expect((await call(hook.path, { method: 'POST', body: { nome: 'Bia' } })).status).toBe(204);
    const [event] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events`)).data;
    await d1OfRow('inbound_events', event.id)
      .prepare("update inbound_events set status = 'failed', error = ? where id = ?")
      .bind(`A record could not be written: ${markup}`, event.id)
      .run();
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const pages = [
      await page(await panel('/panel/webhooks/new', { cookie })),
      await page(await panel(base, { cookie })),
      await page(await panel(`${base}/events`, { cookie })),
      await page(await panel(`${base}/events/${event.id}`, { cookie })),
    ];
    for (const html of pages) {
      expect(html).not.toContain('<img src=x');
      expect(html).not.toContain('"><img');
    }
    expect(pages[1]).toContain('Ana &quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(pages[3]).toContain('could not be written: &quot;&gt;&lt;img src=x');
  });
});

describe('sample events and the client limit', () => {
  it("count against the configurer's own address: one account's flood leaves another's samples alone", async () => {
    const low = { CLIENT_RATE_LIMITER: env.LOW_CLIENT_RATE_LIMITER };
    const send = async (ip: string) => {
      const { key } = await newAccount();
      const hook = await newWebhook(key, { mode: 'test', fields: [{ key: 'nome', type: 'string' }] });
      const cookie = await signIn(key);
      const headers = { 'CF-Connecting-IP': ip };
      return () => panelWithEnv(low, `/panel/webhooks/${hook.id}/sample`, { cookie, form: {}, headers });
    };
    // The low limiter takes 3 calls a minute per address.
    const flood = await send('198.51.100.71');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await flood()).status);
    expect(statuses).toEqual([303, 303, 303, 422]);
    const other = await send('198.51.100.72');
    expect((await other()).status).toBe(303);
  });
});
