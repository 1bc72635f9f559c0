import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, call, create, type Json, json, newAccount, newKey, roundTrips } from '../helpers';
import { plantEndpoint } from '../outbound/support';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The outbound endpoints' pages through HTTP, as a browser sends them: create with the secret
// shown once, edit, enable and disable, rotate, delete, and what another account, another site
// and a read-only key get.

const URL_OK = 'https://hooks.example.com/crm';
const row = (id: number) =>
  env.DB.prepare(
    'SELECT url, description, event_types, enabled, secret, previous_secret, deleted_at FROM webhook_endpoints WHERE id = ?',
  )
    .bind(id)
    .first<Json>();
const endpointOf = (key: string, body: Json = {}) =>
  create(key, '/v1/webhook-endpoints', { url: URL_OK, event_types: ['contact.*'], ...body });
/** The edit form's fields as the endpoint's page shows them (what a browser would send back). */
const shownForm = (e: Json) => ({
  url: e.url,
  description: e.description ?? '',
  event_types: e.event_types,
  'was.url': e.url,
  'was.description': e.description ?? '',
  'was.event_types': [...e.event_types].sort().join(' '),
});

describe('the outbound endpoints pages', () => {
  it('creates an endpoint with its types picked in words, shows the secret once, never again', async () => {
    const account = await newAccount();
    const cookie = await signIn(account.key);
    const form = await page(await panel('/panel/endpoints/new', { cookie }));
    expect(form).toContain('Contato criado <code>contact.created</code>');
    expect(form).toContain('value="company.*"');
    expect(form).toContain('value="*"');
    const res = await panel('/panel/endpoints', {
      cookie,
      form: { url: URL_OK, description: 'ERP', event_types: ['company.*', 'deal.updated'] },
    });
    const shown = await page(res, 201);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown)?.[0];
    expect(secret).toBeDefined();
    expect(shown).toContain('não aparece de novo');
    expect(shown).toContain('class="js-copy" data-copy="secret"');
    const list = await json(await call('/v1/webhook-endpoints', { key: account.key }));
    expect(list.data).toEqual([
      expect.objectContaining({
        url: URL_OK,
        description: 'ERP',
        event_types: ['company.*', 'deal.updated'],
      }),
    ]);
    const id = list.data[0].id;
    expect((await row(id))?.secret).toBe(secret);
    for (const path of ['/panel/endpoints', `/panel/endpoints/${id}`, `/panel/endpoints/${id}/deliveries`]) {
      const html = await page(await panel(path, { cookie }));
      expect(html, path).not.toContain('whsec_');
      expect(html, path).toContain(URL_OK);
    }
  });

  it('reads each page in one D1 round trip, and saves in two', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key, { description: 'ERP' });
    for (const path of [
      '/panel/endpoints',
      '/panel/endpoints/new',
      `/panel/endpoints/${e.id}`,
      `/panel/endpoints/${e.id}/deliveries`,
    ]) {
      const res = await panel(path, { cookie });
      expect(res.status, path).toBe(200);
      expect(roundTrips(res), path).toBe(1);
    }
    const saved = await panel(`/panel/endpoints/${e.id}`, {
      cookie,
      form: { ...shownForm(e), description: 'ERP 2' },
    });
    expect(saved.status).toBe(303);
    expect(roundTrips(saved)).toBe(2);
  });

  it('refuses a URL by the policy in the page’s words, keeping what was typed, and writes nothing', async () => {
    const account = await newAccount();
    const cookie = await signIn(account.key);
    const res = await panel('/panel/endpoints', {
      cookie,
      form: { url: 'http://10.0.0.1/hook', description: 'Interno', event_types: ['deal.*'] },
    });
    const html = await page(res, 422);
    expect(html).toContain('Só endereços https recebem webhooks.');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="Interno"');
    expect(html).toMatch(/value="deal\.\*" checked/);
    const none = await panel('/panel/endpoints', { cookie, form: { url: URL_OK } });
    expect(await page(none, 422)).toContain('id="err-event-types"');
    const count = await env.DB.prepare('SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = ?')
      .bind(account.id)
      .first<Json>();
    expect(count?.n).toBe(0);
  });

  it('saves only what the person changed: a change made meanwhile elsewhere stays', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key, { description: 'ERP' });
    const before = shownForm(e);
    // Someone else renames it through the API while the form is open.
    await call(`/v1/webhook-endpoints/${e.id}`, { method: 'PUT', key, body: { description: 'ERP novo' } });
    const res = await panel(`/panel/endpoints/${e.id}`, {
      cookie,
      form: { ...before, event_types: ['contact.*', 'task.completed'] },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe(`/panel/endpoints/${e.id}?done=saved`);
    expect(await row(e.id)).toMatchObject({
      description: 'ERP novo',
      event_types: JSON.stringify(['contact.*', 'task.completed']),
    });
    const same = await panel(`/panel/endpoints/${e.id}`, {
      cookie,
      form: shownForm({ ...e, description: 'X' }),
    });
    expect(same.headers.get('Location')).toBe(`/panel/endpoints/${e.id}?done=unchanged`);
    expect(await page(await panel(`/panel/endpoints/${e.id}?done=unchanged`, { cookie }))).toContain(
      'Nada mudou',
    );
  });

  it('disables only once confirmed, enables at once, and says why the CRM turned it off', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key);
    const ask = await page(
      await panel(`/panel/endpoints/${e.id}/enabled`, { cookie, form: { enabled: 'false' } }),
    );
    expect(ask).toContain('Desativar o endpoint?');
    expect((await row(e.id))?.enabled).toBe(1);
    const off = await panel(`/panel/endpoints/${e.id}/enabled`, {
      cookie,
      form: { enabled: 'false', confirm: 'yes' },
    });
    expect(off.headers.get('Location')).toBe(`/panel/endpoints/${e.id}?done=disabled`);
    expect((await row(e.id))?.enabled).toBe(0);
    await plantEndpoint(e.id, "disabled_reason = 'gone'");
    const shown = await page(await panel(`/panel/endpoints/${e.id}`, { cookie }));
    expect(shown).toContain('o endpoint respondeu 410 (Gone)');
    const list = await page(await panel('/panel/endpoints', { cookie: `${cookie}; lang=en` }));
    expect(list).toContain('Disabled by the CRM: the endpoint answered 410 (Gone).');
    await panel(`/panel/endpoints/${e.id}/enabled`, { cookie, form: { enabled: 'true' } });
    const on = await json(await call(`/v1/webhook-endpoints/${e.id}`, { key }));
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('rotates the secret behind a question about the grace, and shows the new one once', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key);
    const ask = await page(await panel(`/panel/endpoints/${e.id}/rotate`, { cookie, form: {} }));
    expect(ask).toContain('Trocar o segredo de assinatura?');
    expect(ask).toMatch(/value="86400" checked/);
    expect((await row(e.id))?.secret).toBe(e.secret);
    const bad = await panel(`/panel/endpoints/${e.id}/rotate`, {
      cookie,
      form: { confirm: 'yes', grace: '5' },
    });
    expect(await page(bad, 422)).toContain('Escolha um dos prazos da lista.');
    expect((await row(e.id))?.secret).toBe(e.secret);
    const done = await page(
      await panel(`/panel/endpoints/${e.id}/rotate`, { cookie, form: { confirm: 'yes', grace: '86400' } }),
    );
    const now = await row(e.id);
    expect(now?.previous_secret).toBe(e.secret);
    expect(done).toContain(now?.secret);
    expect(done).not.toContain(e.secret);
    expect(done).toContain('O segredo anterior continua assinando junto até');
    const after = await page(await panel(`/panel/endpoints/${e.id}`, { cookie }));
    expect(after).not.toContain('whsec_');
  });

  it('deletes to the trash once confirmed', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key, { description: 'Some' });
    const ask = await page(await panel(`/panel/endpoints/${e.id}/delete`, { cookie, form: {} }));
    expect(ask).toContain('Excluir o endpoint?');
    expect((await row(e.id))?.deleted_at).toBeNull();
    const res = await panel(`/panel/endpoints/${e.id}/delete`, { cookie, form: { confirm: 'yes' } });
    expect(res.headers.get('Location')).toBe('/panel/endpoints?done=deleted');
    expect((await row(e.id))?.deleted_at).not.toBeNull();
    const list = await page(await panel('/panel/endpoints?done=deleted', { cookie }));
    expect(list).toContain('Endpoint enviado para a lixeira.');
    expect(list).not.toContain('Some');
    expect((await panel(`/panel/endpoints/${e.id}`, { cookie })).status).toBe(404);
  });

  it("answers another account's endpoint with 404 on every page and changes nothing", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const e = await endpointOf(theirs.key, { description: 'Deles' });
    const before = await row(e.id);
    const cookie = await signIn(mine.key);
    const id = e.id;
    for (const path of [`/panel/endpoints/${id}`, `/panel/endpoints/${id}/deliveries`]) {
      expect((await panel(path, { cookie })).status, path).toBe(404);
    }
    for (const [path, form] of [
      [`/panel/endpoints/${id}`, shownForm({ ...e, url: 'https://evil.example/x' })],
      [`/panel/endpoints/${id}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`/panel/endpoints/${id}/enabled`, { enabled: 'false' }],
      [`/panel/endpoints/${id}/rotate`, { confirm: 'yes', grace: '0' }],
      [`/panel/endpoints/${id}/rotate`, {}],
      [`/panel/endpoints/${id}/test`, {}],
      [`/panel/endpoints/${id}/delete`, { confirm: 'yes' }],
      [`/panel/endpoints/${id}/recover`, { since: '2026-01-01T00:00', confirm: 'yes' }],
    ] as const) {
      const res = await panel(path, { cookie, form: form as Record<string, string | string[]> });
      expect(res.status, path).toBe(404);
    }
    expect(await row(e.id)).toEqual(before);
  });

  it('refuses a form posted from another site, or with no Origin, and changes nothing', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await endpointOf(key);
    const before = await row(e.id);
    for (const origin of ['https://evil.example', null]) {
      for (const [path, form] of [
        [`/panel/endpoints/${e.id}/enabled`, { enabled: 'false', confirm: 'yes' }],
        [`/panel/endpoints/${e.id}/rotate`, { confirm: 'yes', grace: '0' }],
        [`/panel/endpoints/${e.id}/delete`, { confirm: 'yes' }],
        ['/panel/endpoints', { url: URL_OK, event_types: '*' }],
      ] as const) {
        const res = await panel(path, { cookie, form, origin });
        expect(res.status, `${path} from ${origin}`).toBe(403);
      }
    }
    expect(await row(e.id)).toEqual(before);
    expect((await json(await call('/v1/webhook-endpoints', { key }))).data).toHaveLength(1);
  });

  it('escapes a hostile URL and description on every page that shows them', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const hostile = '<img src=x onerror=alert(1)>"\'';
    const e = await endpointOf(key, {
      url: 'https://hooks.example.com/a?q="><script>alert(1)</script>',
      description: hostile,
    });
    for (const path of [
      '/panel/endpoints',
      `/panel/endpoints/${e.id}`,
      `/panel/endpoints/${e.id}/deliveries`,
    ]) {
      const html = await page(await panel(path, { cookie }));
      expect(html, path).not.toContain('<script>alert(1)');
      expect(html, path).not.toContain('<img src=x');
      expect(html, path).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it('shows a read-only key everything and offers it no change; the server refuses them too', async () => {
    const account = await newAccount();
    const e = await endpointOf(account.key, { description: 'ERP' });
    const before = await row(e.id);
    const cookie = await signIn((await newKey(account.id, ['webhook_endpoints:read'])).key);
    const list = await page(await panel('/panel/endpoints', { cookie }));
    expect(list).toContain('ERP');
    expect(list).not.toContain('href="/panel/endpoints/new"');
    const shown = await page(await panel(`/panel/endpoints/${e.id}`, { cookie }));
    expect(shown).toContain('só pode ver este endpoint');
    expect(shown).not.toContain('<form method="post" action="/panel/endpoints/');
    const log = await page(await panel(`/panel/endpoints/${e.id}/deliveries`, { cookie }));
    expect(log).not.toContain('action="/panel/endpoints/');
    for (const [path, form] of [
      ['/panel/endpoints', { url: URL_OK, event_types: '*' }],
      [`/panel/endpoints/${e.id}`, shownForm({ ...e, description: 'Outro' })],
      [`/panel/endpoints/${e.id}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`/panel/endpoints/${e.id}/rotate`, { confirm: 'yes', grace: '0' }],
      [`/panel/endpoints/${e.id}/test`, {}],
      [`/panel/endpoints/${e.id}/delete`, { confirm: 'yes' }],
      [`/panel/endpoints/${e.id}/recover`, { since: '2026-01-01T00:00', confirm: 'yes' }],
    ] as const) {
      const res = await panel(path, { cookie, form: form as Record<string, string | string[]> });
      expect(await page(res, 403), path).toContain('Esta chave de API não tem o escopo');
    }
    expect((await panel('/panel/endpoints/new', { cookie })).status).toBe(403);
    expect(await row(e.id)).toEqual(before);
    // A key that may change but not delete is not offered the delete.
    const updater = await signIn(
      (await newKey(account.id, ['webhook_endpoints:read', 'webhook_endpoints:update'])).key,
    );
    const offered = await page(await panel(`/panel/endpoints/${e.id}`, { cookie: updater }));
    expect(offered).toContain(`action="/panel/endpoints/${e.id}/rotate"`);
    expect(offered).not.toContain(`action="/panel/endpoints/${e.id}/delete"`);
  });
});
