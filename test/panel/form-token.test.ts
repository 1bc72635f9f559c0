import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { wallClock } from '../../src/core/zones';
import { accountsOnShard, call, create, type Json, json, newAccount, roundTrips } from '../helpers';
import { deliveries, endpointWithBox, ping } from '../outbound/support';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The panel's POSTs whose answer a reload would send again (a create or a rotation that shows a
// secret once, a recover's confirmation): each form carries a one-time token, and the same form
// posted twice writes once; the second answer says it was done, and never shows the secret again.

const URL_OK = 'https://hooks.example.com/crm';
const TOKEN = /name="form_token" value="([A-Za-z0-9_-]{22})"/;
const tokenOf = (html: string) => {
  const token = TOKEN.exec(html)?.[1];
  expect(token, 'the form carries a token').toBeDefined();
  return token as string;
};
const secretOf = (id: number) =>
  env.DB.prepare('SELECT secret FROM webhook_endpoints WHERE id = ?')
    .bind(id)
    .first<Json>()
    .then((r) => r?.secret as string);
const endpoints = async (key: string) => (await json(await call('/v1/webhook-endpoints', { key }))).data;

describe('a form posted twice', () => {
  it('creates one endpoint; the second answer says so, links to it, and shows no secret', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const token = tokenOf(await page(await panel('/panel/endpoints/new', { cookie })));
    const form = { url: URL_OK, description: 'ERP', event_types: ['deal.*'], form_token: token };
    const first = await panel('/panel/endpoints', { cookie, form });
    expect(await page(first, 201)).toMatch(/whsec_/);
    expect(roundTrips(first)).toBe(2);
    const [made] = await endpoints(key);
    const again = await page(await panel('/panel/endpoints', { cookie, form }));
    expect(await endpoints(key)).toHaveLength(1);
    expect(again).toContain('Já feito');
    expect(again).toContain('nada foi criado de novo');
    expect(again).toContain('“Trocar segredo”');
    expect(again).toContain(`href="/panel/endpoints/${made.id}"`);
    expect(again).not.toContain('whsec_');
    const en = await page(await panel('/panel/endpoints', { cookie: `${cookie}; lang=en`, form }));
    expect(en).toContain('nothing was created again');
    expect(await endpoints(key)).toHaveLength(1);
  });

  it('lets each fresh form create, and ignores another account’s use of the same token', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const cookie = await signIn(mine.key);
    const token = tokenOf(await page(await panel('/panel/endpoints/new', { cookie })));
    const form = { url: URL_OK, event_types: ['*'], form_token: token };
    await page(await panel('/panel/endpoints', { cookie: await signIn(theirs.key), form }), 201);
    await page(await panel('/panel/endpoints', { cookie, form }), 201);
    const next = tokenOf(await page(await panel('/panel/endpoints/new', { cookie })));
    expect(next).not.toBe(token);
    await page(await panel('/panel/endpoints', { cookie, form: { ...form, form_token: next } }), 201);
    expect(await endpoints(mine.key)).toHaveLength(2);
    expect(await endpoints(theirs.key)).toHaveLength(1);
  });

  it('still checks the Origin, and a refused post does not use the token up', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const token = tokenOf(await page(await panel('/panel/endpoints/new', { cookie })));
    const form = { url: URL_OK, event_types: ['*'], form_token: token };
    for (const origin of ['https://evil.example', null]) {
      expect((await panel('/panel/endpoints', { cookie, form, origin })).status).toBe(403);
    }
    const bad = await page(
      await panel('/panel/endpoints', { cookie, form: { ...form, url: 'http://10.0.0.1/x' } }),
      422,
    );
    expect(tokenOf(bad)).not.toBe(token);
    expect(await endpoints(key)).toHaveLength(0);
    await page(await panel('/panel/endpoints', { cookie, form }), 201);
    expect(await endpoints(key)).toHaveLength(1);
  });

  it('rotates the secret once; the second answer keeps the first new secret and does not show it', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const e = await create(key, '/v1/webhook-endpoints', { url: URL_OK, event_types: ['*'] });
    const path = `/panel/endpoints/${e.id}/rotate`;
    const token = tokenOf(await page(await panel(path, { cookie, form: {} })));
    const form = { confirm: 'yes', grace: '86400', form_token: token };
    const first = await panel(path, { cookie, form });
    const shown = await page(first);
    const rotated = await secretOf(e.id);
    expect(rotated).not.toBe(e.secret);
    expect(shown).toContain(rotated);
    const again = await page(await panel(path, { cookie, form }));
    expect(await secretOf(e.id)).toBe(rotated);
    expect(again).toContain('o segredo não foi trocado de novo');
    expect(again).toContain(`href="/panel/endpoints/${e.id}"`);
    expect(again).not.toContain('whsec_');
    // Another endpoint's rotation with the token is another form: the token is this one's.
    const other = await create(key, '/v1/webhook-endpoints', { url: URL_OK, event_types: ['*'] });
    await panel(`/panel/endpoints/${other.id}/rotate`, { cookie, form });
    expect(await secretOf(other.id)).toBe(other.secret);
    // The guard rides in the rotation's own batches: no round trip more than a form without it.
    const bare = await panel(`/panel/endpoints/${other.id}/rotate`, {
      cookie,
      form: { confirm: 'yes', grace: '0' },
    });
    expect(await secretOf(other.id)).not.toBe(other.secret);
    expect(roundTrips(first)).toBe(roundTrips(bare));
  });

  it('recovers once: a second post of the confirmation resends nothing', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    const failed = await ping(account.key, endpoint.id);
    const cookie = await signIn(account.key);
    const since = wallClock(Date.now() - 3_600_000, 'America/Sao_Paulo');
    const path = `/panel/endpoints/${endpoint.id}/recover`;
    const token = tokenOf(await page(await panel(path, { cookie, form: { since } })));
    const form = { since, confirm: 'yes', form_token: token };
    const first = await panel(path, { cookie, form });
    expect(first.headers.get('Location')).toBe(
      `/panel/endpoints/${endpoint.id}/deliveries?done=recovered&n=1`,
    );
    // As if the resend had failed again: a second recover would take it.
    await env.DB.prepare("UPDATE webhook_deliveries SET status = 'failed' WHERE id = ?")
      .bind(failed.id)
      .run();
    const again = await page(await panel(path, { cookie, form }));
    expect(again).toContain('nada foi reenviado de novo');
    expect(again).toContain(`href="/panel/endpoints/${endpoint.id}/deliveries"`);
    expect((await deliveries(account.key, endpoint.id))[0].status).toBe('failed');
  });

  it('tells a post sent while the first is still running, and does nothing', async () => {
    const account = await newAccount();
    const cookie = await signIn(account.key);
    const token = tokenOf(await page(await panel('/panel/endpoints/new', { cookie })));
    // The first post's claim, not yet committed nor answered.
    await env.DB.prepare(
      'INSERT INTO idempotency_keys (account_id, key, request_hash, created_at, committed) VALUES (?, ?, ?, ?, 0)',
    )
      .bind(account.id, `panel\t${token}`, 'x', Date.now())
      .run();
    const form = { url: URL_OK, event_types: ['*'], form_token: token };
    const again = await page(await panel('/panel/endpoints', { cookie, form }));
    expect(again).toContain('ainda está em andamento');
    expect(again).toContain('href="/panel/endpoints"');
    expect(await endpoints(account.key)).toHaveLength(0);
  });
});
