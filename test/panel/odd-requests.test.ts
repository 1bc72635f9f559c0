import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, json, newAccount, newWebhook, postEvent } from '../helpers';
import { page, panel, panelRequest, signIn } from './browser';

// An attacker's pass over the panel's pages: ids, queries, cookies and origins nobody sends by
// accident. Each gets a page of the panel with a 4xx (or the sign-in), never a 500, never another
// account's data, never a redirect off the panel.

async function twoAccounts() {
  const mine = await newAccount();
  const theirs = await newAccount();
  const hook = await newWebhook(mine.key, { name: 'Meu webhook' });
  const other = await newWebhook(theirs.key, { name: 'Webhook alheio' });
  expect((await postEvent(other.path, { nome: 'Segredo' })).status).toBeLessThan(300);
  return { hook, other, key: mine.key, cookie: await signIn(mine.key) };
}

describe('odd requests to the panel', () => {
  it("odd ids and another account's ids on every page are the 404 page, with nothing of theirs", async () => {
    const { hook, other, cookie } = await twoAccounts();
    const ids = ['0', '-1', '1e3', '99999999999999999999', '%FF', '%00', '__proto__', String(other.id)];
    for (const id of ids) {
      for (const path of [
        `/panel/webhooks/${id}`,
        `/panel/webhooks/${id}/events`,
        `/panel/webhooks/${hook.id}/events/${id}`,
      ]) {
        const html = await page(await panel(path, { cookie }), 404);
        expect(html, path).toContain('Não encontrado.');
        expect(html, path).not.toMatch(/Webhook alheio|Segredo/);
      }
    }
    for (const action of ['mode', 'enabled', 'rotate', 'secret', 'sample', 'events/1/replay']) {
      const res = await panel(`/panel/webhooks/${other.id}/${action}`, { cookie, form: { mode: 'test' } });
      expect(res.status, action).toBe(404);
    }
  });

  it('odd queries are the 400 page naming the problem', async () => {
    const { hook, cookie } = await twoAccounts();
    for (const query of [
      '/panel/webhooks?cursor=garbage',
      '/panel/webhooks?limit=100000',
      '/panel/webhooks?sort=__proto__',
      '/panel/webhooks?%FF=1',
      `/panel/webhooks/${hook.id}/events?status=__proto__`,
      `/panel/webhooks/${hook.id}/events?cursor=%FF`,
      `/panel/webhooks/${hook.id}/events?constructor=1`,
    ]) {
      const html = await page(await panel(query, { cookie }), 400);
      expect(html, query).toContain('<html lang="pt-BR">');
    }
  });

  it('a forged or broken cookie goes to sign in; an unknown language cookie is ignored', async () => {
    for (const cookie of [
      'crm_session=%FF',
      'crm_session=__proto__',
      'lang=__proto__',
      'crm_session=a'.repeat(50),
    ]) {
      const res = await exports.default.fetch(
        panelRequest('/panel/webhooks', { headers: { Cookie: cookie } }),
      );
      expect(res.status, cookie).toBe(303);
      expect(res.headers.get('Location')).toBe('/panel/sign-in');
    }
    const { cookie } = await twoAccounts();
    const html = await page(await panel('/panel/webhooks', { cookie: `${cookie}; lang=%FF` }));
    expect(html).toContain('<html lang="pt-BR">');
  });

  it('the language switch never leaves the panel nor splits its header', async () => {
    for (const next of [
      '//evil.example',
      '/panel//evil.example',
      '/panel/\\evil.example',
      '/panel%0d%0aSet-Cookie:x=1',
      'https://evil.example/panel',
      '%FF',
    ]) {
      const res = await panel(`/panel/lang/en?next=${encodeURIComponent(next)}`);
      expect(res.status, next).toBe(303);
      expect(res.headers.get('Location'), next).toBe('/panel/webhooks');
      expect(res.headers.get('Set-Cookie') ?? '', next).not.toContain('x=1');
    }
  });

  it('a write from another origin, from a look-alike one or with none is refused and changes nothing', async () => {
    const { hook, cookie, key } = await twoAccounts();
    const flipped = hook.mode === 'test' ? 'production' : 'test';
    for (const origin of [
      'null',
      'http://crm.test.evil.example',
      'http://evil.example',
      'HTTP://CRM.TEST',
      null,
    ]) {
      const res = await panel(`/panel/webhooks/${hook.id}/mode`, { cookie, form: { mode: flipped }, origin });
      expect(res.status, String(origin)).toBe(403);
    }
    const now = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(now.data.mode).toBe(hook.mode);
    expect(now.data.updated_at).toBe(hook.updated_at);
  });
});
