import { describe, expect, it } from 'vitest';
import { call, type Json, json, keyWith, newAccount, newWebhook, roundTrips } from '../helpers';

/** A key of `accountId` with `scopes`, made through the admin API: its secret. */

const body = async (res: Response): Promise<Json> => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return json(res);
};

describe("the webhook's ingest URL is a write credential: shown only to a key that may rotate it", () => {
  it('a *:read or webhooks:read key gets url null in the list and the get, in 1 round trip', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, { name: 'Site' });
    for (const scopes of [['*:read'], ['webhooks:read'], ['webhooks:read', 'webhooks:insert']]) {
      const key = await keyWith(account.id, scopes);
      const listed = await call('/v1/inbound-webhooks', { key });
      expect(roundTrips(listed)).toBe(1);
      const list = await body(listed);
      expect(
        list.data.map((h: Json) => [h.id, h.url]),
        scopes.join(),
      ).toEqual([[hook.id, null]]);
      const one = await call(`/v1/inbound-webhooks/${hook.id}`, { key });
      expect(roundTrips(one)).toBe(1);
      expect((await body(one)).data).toMatchObject({ id: hook.id, name: 'Site', url: null });
      expect(JSON.stringify(list) + JSON.stringify(one)).not.toContain(hook.path);
    }
  });

  it('a key with webhooks:update (or full access) sees it; a create answer shows it to its creator', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, { name: 'Site' });
    for (const scopes of [['webhooks:read', 'webhooks:update'], ['webhooks:*']]) {
      const key = await keyWith(account.id, scopes);
      const one = (await body(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data;
      expect(one.url, scopes.join()).toBe(hook.url);
    }
    const creator = await keyWith(account.id, ['webhooks:insert']);
    const made = await body(
      await call('/v1/inbound-webhooks', { method: 'POST', key: creator, body: { name: 'B' } }),
    );
    expect(made.data.url).toMatch(/\/hooks\/\S+$/);
  });
});
