// The account's time zone on the preferences page (issue 34): shown to a signed-in key that may
// read it, changed by one that may update it, as GET/PUT /v1/account.
import { describe, expect, it } from 'vitest';
import { call, json, keyWith, newAccount } from '../helpers';
import { page, panel, signIn } from './browser';

const chosen = (html: string) =>
  /<select id="account-zone"[\s\S]*?<option value="([^"]+)" selected>/.exec(html)?.[1];

const zoneOf = async (key: string) => (await json(await call('/v1/account', { key }))).data.time_zone;

describe("the account's time zone on the preferences page", () => {
  it('shows São Paulo by default and saves another zone for the whole account', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const before = await page(await panel('/panel/settings', { cookie }));
    expect(chosen(before)).toBe('America/Sao_Paulo');
    expect(before).toContain('Fuso horário da conta');
    const saved = await panel('/panel/settings/account', { cookie, form: { time_zone: 'America/Manaus' } });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe('/panel/settings?saved=account');
    expect(await zoneOf(key)).toBe('America/Manaus');
    const after = await page(await panel('/panel/settings?saved=account', { cookie }));
    expect(chosen(after)).toBe('America/Manaus');
    expect(after).toContain('Fuso horário da conta salvo.');
    // The person's own display zone is another setting: a cookie, untouched.
    expect(saved.headers.get('Set-Cookie') ?? '').not.toContain('tz=');
  });

  it('refuses an unknown zone (422), a key without account:update (403) and a post from another site', async () => {
    const { id, key } = await newAccount();
    const cookie = await signIn(key);
    const bad = await panel('/panel/settings/account', { cookie, form: { time_zone: 'Mars/Olympus' } });
    expect(await page(bad, 422)).toContain('Fuso horário desconhecido');
    const cross = await panel('/panel/settings/account', {
      cookie,
      form: { time_zone: 'Asia/Tokyo' },
      origin: 'https://evil.example',
    });
    expect(cross.status).toBe(403);
    const reader = await signIn(await keyWith(id, ['account:read', 'webhooks:read']));
    const denied = await panel('/panel/settings/account', {
      cookie: reader,
      form: { time_zone: 'Asia/Tokyo' },
    });
    expect(denied.status).toBe(403);
    expect(await zoneOf(key)).toBe('America/Sao_Paulo');
    // A key that cannot read the account is told so; the person's preferences still work.
    const blind = await signIn(await keyWith(id, ['webhooks:read']));
    const html = await page(await panel('/panel/settings', { cookie: blind }));
    expect(chosen(html)).toBeUndefined();
    expect(html).toContain('account:read');
    expect(html).toContain('<select id="zone"');
    // Signed out: no account form at all.
    expect(await page(await panel('/panel/settings'))).not.toContain('account-zone');
  });
});
