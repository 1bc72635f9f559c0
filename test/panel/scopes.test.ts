import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, create, newAccount, newKey } from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const hookRow = (id: number) =>
  env.DB.prepare('SELECT name, mode, enabled, token FROM inbound_webhooks WHERE id = ?').bind(id).first();

describe('the panel offers only what the key may do', () => {
  it('a read-only key signs in and sees webhooks and events, without any action that changes them', async () => {
    const account = await newAccount();
    const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Leads do site' });
    const { key } = await newKey(account.id, ['webhooks:read']);
    const cookie = await signIn(key);

    const list = await page(await panel('/panel/webhooks', { cookie }));
    expect(list).toContain('Leads do site');
    expect(list).not.toContain('href="/panel/webhooks/start"');

    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toContain('Esta chave de API só pode ver este webhook');
    for (const action of ['/mode', '/enabled', '/rotate', '/sample', '/secret']) {
      expect(edit, action).not.toContain(`action="/panel/webhooks/${hook.id}${action}"`);
    }
    for (const confirm of ['/rotate', '/disable']) {
      expect(edit, confirm).not.toContain(`href="/panel/webhooks/${hook.id}${confirm}"`);
    }
    expect(edit).not.toMatch(/<button type="submit">Salvar<\/button>/);
    expect(edit).toContain('<fieldset class="readonly" disabled>');
    expect((await panel(`/panel/webhooks/${hook.id}/events`, { cookie })).status).toBe(200);

    // The server refuses them too, and nothing changes.
    const before = await hookRow(hook.id);
    for (const [path, form] of [
      [`/panel/webhooks/${hook.id}/rotate`, { grace: '0', confirm: 'yes' }],
      [`/panel/webhooks/${hook.id}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`/panel/webhooks/${hook.id}`, { name: 'Outro' }],
      ['/panel/webhooks', { name: 'Novo' }],
    ] as const) {
      const res = await panel(path, { cookie, form });
      const html = await page(res, 403);
      expect(html, path).toContain('Esta chave de API não tem o escopo');
    }
    // Nor does it get the pages that ask before rotate and disable.
    for (const ask of ['/rotate', '/disable']) {
      expect((await panel(`/panel/webhooks/${hook.id}${ask}`, { cookie })).status, ask).toBe(403);
    }
    expect(await hookRow(hook.id)).toEqual(before);
    const count = await env.DB.prepare('SELECT count(*) AS n FROM inbound_webhooks WHERE account_id = ?')
      .bind(account.id)
      .first();
    expect(count?.n).toBe(1);
    expect((await panel('/panel/webhooks/new', { cookie })).status).toBe(403);
  });

  it('the ingest URL is shown only to a session whose key holds webhooks:update', async () => {
    const account = await newAccount();
    const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Leads do site' });
    const token = String((await hookRow(hook.id))?.token);
    const readOnly = await signIn((await newKey(account.id, ['*:read'])).key);
    for (const path of [
      '/panel/webhooks',
      `/panel/webhooks/${hook.id}`,
      `/panel/webhooks/${hook.id}/events`,
    ]) {
      const html = await page(await panel(path, { cookie: readOnly }));
      expect(html, path).not.toContain(token);
    }
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie: readOnly }));
    expect(edit).toContain('oculta: exige webhooks:update');
    const updater = await signIn((await newKey(account.id, ['webhooks:read', 'webhooks:update'])).key);
    const shown = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie: updater }));
    expect(shown).toContain(`/hooks/${token}`);
    expect(shown).not.toContain('oculta: exige webhooks:update');
  });

  it('a full-access key is offered every action', async () => {
    const account = await newAccount();
    const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Leads do site' });
    const cookie = await signIn(account.key);
    expect(await page(await panel('/panel/webhooks', { cookie }))).toContain('href="/panel/webhooks/start"');
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toContain(`href="/panel/webhooks/${hook.id}/rotate"`);
    expect(edit).toContain(`href="/panel/webhooks/${hook.id}/disable"`);
    expect(edit).not.toContain('Esta chave de API só pode ver');
    expect(edit).not.toContain('disabled>');
  });

  it('a key without webhooks:read gets a page naming the scope; an expired key cannot sign in', async () => {
    const account = await newAccount();
    const { key } = await newKey(account.id, ['deals:read']);
    const cookie = await signIn(key);
    const html = await page(await panel('/panel/webhooks', { cookie }), 403);
    expect(html).toContain('webhooks:read');

    const soon = await newKey(account.id, ['*:*']);
    await env.DB.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?')
      .bind(Date.now() - 1, soon.id)
      .run();
    const res = await panel('/panel/sign-in', { form: { api_key: soon.key } });
    expect(res.status).toBe(401);
  });

  it('a session ends when its key expires', async () => {
    const account = await newAccount();
    const made = await newKey(account.id, ['webhooks:*']);
    const cookie = await signIn(made.key);
    expect((await panel('/panel/webhooks', { cookie })).status).toBe(200);
    await env.DB.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?')
      .bind(Date.now() - 1, made.id)
      .run();
    const res = await panel('/panel/webhooks', { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe('/panel/sign-in');
  });
});
