import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  accountsOnShard,
  call,
  create,
  type Json,
  json,
  newAccount,
  postEvent,
  roundTrips,
} from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The webhook's own settings in the panel: a new webhook in test mode, and the pages that ask
// before rotating its URL (with the grace period to choose) and before disabling it.

const confirm = 'yes';

async function setUp(body: Record<string, unknown> = {}) {
  const account = await newAccount();
  const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Leads do site', ...body });
  const cookie = await signIn(account.key);
  return { ...account, hook, cookie, base: `/panel/webhooks/${hook.id}` };
}

const read = async (key: string, id: number): Promise<Json> =>
  (await json(await call(`/v1/inbound-webhooks/${id}`, { key }))).data;

const row = (id: number) => env.DB.prepare('SELECT * FROM inbound_webhooks WHERE id = ?').bind(id).first();

describe('a new webhook', () => {
  it('starts in test mode from the panel, which says so; /v1 keeps production as its default', async () => {
    const { key, cookie } = await setUp();
    const form = await page(await panel('/panel/webhooks/new', { cookie }));
    expect(form).toContain('class="banner test"');
    expect(form).toContain('começa em modo de teste');
    const res = await panel('/panel/webhooks', { cookie, form: { name: 'Formulário do site' } });
    expect(res.status).toBe(303);
    const id = Number(/\/panel\/webhooks\/(\d+)/.exec(res.headers.get('Location') ?? '')?.[1]);
    expect(await read(key, id)).toMatchObject({ name: 'Formulário do site', mode: 'test', enabled: true });
    expect(await page(await panel(`/panel/webhooks/${id}`, { cookie }))).toContain('class="banner test"');
    const refused = await panel('/panel/webhooks', { cookie, form: { name: '' } });
    expect(await page(refused, 422)).toContain('class="banner test"');
    expect((await create(key, '/v1/inbound-webhooks', { name: 'API' })).mode).toBe('production');
  });
});

describe('rotate, confirmed', () => {
  it('asks first, in one round trip: the grace to choose (24 hours checked), each end time, a danger button', async () => {
    const { key, hook, cookie, base } = await setUp();
    const edit = await page(await panel(base, { cookie }));
    expect(edit).toContain(`<a class="button danger" href="${base}/rotate">`);
    expect(edit).toContain(`<a class="button danger" href="${base}/disable">`);
    const res = await panel(`${base}/rotate`, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain(`<form method="post" action="${base}/rotate"`);
    expect(html).toContain('<input type="hidden" name="confirm" value="yes">');
    for (const s of [0, 3600, 86400, 259200, 604800]) expect(html).toContain(`name="grace" value="${s}"`);
    expect(html).toMatch(/value="86400" checked>/);
    expect(html.match(/ checked>/g)).toHaveLength(1);
    // Each grace shows when it would end: 4 times, and "now" has none.
    expect(html.match(/\(até <time datetime="[^"]+">/g)).toHaveLength(4);
    expect(html).toContain('<button type="submit" class="danger">Trocar a URL</button>');
    expect(html).toContain('Se a URL vazou');
    // Asking changes nothing.
    expect((await read(key, hook.id)).url).toBe(hook.url);
  });

  it('an unconfirmed POST is answered with the question and changes nothing; a grace not offered is a 422', async () => {
    const { key, hook, cookie, base } = await setUp();
    const bare = await page(await panel(`${base}/rotate`, { cookie, form: { grace: '0' } }));
    expect(bare).toContain('Trocar a URL do webhook?');
    for (const grace of ['', '5', '-1', '86400.5', '604801', '1e3']) {
      const html = await page(await panel(`${base}/rotate`, { cookie, form: { grace, confirm } }), 422);
      expect(html, grace).toContain('id="grace-error"');
      expect(html).toContain('Escolha um dos prazos da lista.');
    }
    expect(await read(key, hook.id)).toMatchObject({ url: hook.url, previous_url_expires_at: null });
  });

  it('rotates with the grace chosen: the page shows its end; the old URL works until then, 404 after', async () => {
    const { key, hook, cookie, base } = await setUp({ mode: 'test' });
    const before = Date.now();
    const res = await panel(`${base}/rotate`, { cookie, form: { grace: '3600', confirm } });
    expect(res.status).toBe(303);
    expect(roundTrips(res)).toBe(1);
    expect(res.headers.get('Location')).toBe(`${base}?done=rotated`);
    const data = await read(key, hook.id);
    expect(data.url).not.toBe(hook.url);
    const end = Date.parse(data.previous_url_expires_at);
    expect(end).toBeGreaterThanOrEqual(before + 3600_000);
    expect(end).toBeLessThanOrEqual(Date.now() + 3600_000);
    const html = await page(await panel(`${base}?done=rotated`, { cookie }));
    expect(html).toContain('URL trocada.');
    expect(html).toContain(
      `A URL anterior continua funcionando até <time datetime="${data.previous_url_expires_at}">`,
    );
    expect((await postEvent(hook.url, { a: 1 })).status).toBe(204);
    expect((await postEvent(data.url, { a: 2 })).status).toBe(204);
    await env.DB.prepare('UPDATE inbound_webhooks SET previous_token_expires_at = ? WHERE id = ?')
      .bind(Date.now() - 1, hook.id)
      .run();
    expect((await postEvent(hook.url, { a: 3 })).status).toBe(404);
    expect(await page(await panel(base, { cookie }))).not.toContain('A URL anterior');
  });

  it('a second rotation during a grace says the older URL ends at once, and ends it', async () => {
    const { key, hook, cookie, base } = await setUp({ mode: 'test' });
    await panel(`${base}/rotate`, { cookie, form: { grace: '86400', confirm } });
    const first = await read(key, hook.id);
    const ask = await page(await panel(`${base}/rotate`, { cookie }));
    expect(ask).toContain(
      `a URL mais antiga para de funcionar na hora, e não às <time datetime="${first.previous_url_expires_at}">`,
    );
    await panel(`${base}/rotate`, { cookie, form: { grace: '0', confirm } });
    const second = await read(key, hook.id);
    expect(second.previous_url_expires_at).toBeNull();
    expect((await postEvent(hook.url, { a: 1 })).status).toBe(404);
    expect((await postEvent(first.url, { a: 1 })).status).toBe(404);
    expect((await postEvent(second.url, { a: 1 })).status).toBe(204);
  });
});

describe('in English', () => {
  it('asks and tells the same, in the English of the lang cookie', async () => {
    const { cookie, base } = await setUp();
    const en = `${cookie}; lang=en`;
    const rotate = await page(await panel(`${base}/rotate`, { cookie: en }));
    expect(rotate).toContain('Rotate the webhook&#39;s URL?');
    expect(rotate).toMatch(/value="86400" checked> 24 hours \(until <time /);
    expect(rotate).toContain('Now: the current URL answers 404 at once');
    const disable = await page(await panel(`${base}/disable`, { cookie: en }));
    expect(disable).toContain('is not kept: it cannot be replayed later');
    const edit = await page(await panel(base, { cookie: en }));
    expect(edit).toContain('Overview: last 7 days');
    expect(edit).toContain('No event processed or failed in the last 7 days.');
  });
});

describe('disable, confirmed', () => {
  it('says the URL answers 404 and events are not kept; only the confirmed POST disables; enable is one click', async () => {
    const { key, hook, cookie, base } = await setUp();
    const res = await panel(`${base}/disable`, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain('responder 404');
    expect(html).toContain('não é guardado');
    expect(html).toContain(`<form method="post" action="${base}/enabled"`);
    expect(html).toContain('<button type="submit" class="danger">Desativar o webhook</button>');
    const bare = await page(await panel(`${base}/enabled`, { cookie, form: { enabled: 'false' } }));
    expect(bare).toContain('<button type="submit" class="danger">Desativar o webhook</button>');
    expect((await read(key, hook.id)).enabled).toBe(true);
    const done = await panel(`${base}/enabled`, { cookie, form: { enabled: 'false', confirm } });
    expect(roundTrips(done)).toBe(1);
    expect(done.headers.get('Location')).toBe(`${base}?done=disabled`);
    expect((await read(key, hook.id)).enabled).toBe(false);
    expect((await postEvent(hook.url, { a: 1 })).status).toBe(404);
    const edit = await page(await panel(`${base}?done=disabled`, { cookie }));
    expect(edit).toContain('Webhook desativado');
    expect(edit).toContain(
      '<input type="hidden" name="enabled" value="true"><button type="submit">Ativar</button>',
    );
    expect((await panel(`${base}/enabled`, { cookie, form: { enabled: 'true' } })).status).toBe(303);
    expect((await read(key, hook.id)).enabled).toBe(true);
  });
});

describe('the confirmations, attacked', () => {
  it('refuses a confirm posted from another origin (or none), and changes nothing', async () => {
    const { hook, cookie, base } = await setUp();
    const before = await row(hook.id);
    for (const origin of ['https://evil.example', 'null', null]) {
      for (const [path, form] of [
        [`${base}/rotate`, { grace: '0', confirm }],
        [`${base}/enabled`, { enabled: 'false', confirm }],
      ] as const) {
        const res = await panel(path, { cookie, form, origin });
        expect(res.status, `${path} ${origin}`).toBe(403);
      }
    }
    expect(await row(hook.id)).toEqual(before);
  });

  it("never asks about, rotates or disables another account's webhook", async () => {
    const a = await setUp();
    const b = await setUp();
    const before = await row(a.hook.id);
    for (const path of [`${a.base}/rotate`, `${a.base}/disable`]) {
      expect((await panel(path, { cookie: b.cookie })).status, path).toBe(404);
    }
    const rotate = await panel(`${a.base}/rotate`, { cookie: b.cookie, form: { grace: '0', confirm } });
    expect(rotate.status).toBe(404);
    const disable = await panel(`${a.base}/enabled`, {
      cookie: b.cookie,
      form: { enabled: 'false', confirm },
    });
    expect(disable.status).toBe(404);
    expect(await row(a.hook.id)).toEqual(before);
  });

  it('styles the danger buttons apart, white on dark red (AA)', async () => {
    const css = await (await panel('/panel/static/panel.css')).text();
    expect(css).toContain('.danger{background:#b42318;border-color:#b42318;color:#fff');
  });
});
