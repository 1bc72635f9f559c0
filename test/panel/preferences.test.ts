import { describe, expect, it } from 'vitest';
import { zoneNames } from '../../src/core/zones';
import { cachedZones, MAX_CACHED_ZONES } from '../../src/panel/zone';
import { create, newAccount } from '../helpers';
import { page, panel, signIn } from './browser';

// The preferences page as a newcomer reads it: zones by the names people use, and a save that
// says it worked on the page it goes back to.

const options = (html: string) =>
  [...html.matchAll(/<option value="([^"]+)"( selected)?>([^<]*)<\/option>/g)].map((m) => ({
    zone: m[1] ?? '',
    label: m[3] ?? '',
  }));

const groups = (html: string) => [...html.matchAll(/<optgroup label="([^"]+)">/g)].map((m) => m[1]);

describe('the preferences page', () => {
  it("offers Brazil's zones first by their usual names, the IANA name kept as the value only", async () => {
    const pt = await page(await panel('/panel/settings'));
    const zones = options(pt.slice(pt.indexOf('id="zone"')));
    expect(zones[0]).toEqual({
      zone: 'America/Sao_Paulo',
      label: 'Horário de Brasília (São Paulo, Rio, BH, Brasília, Sul…)',
    });
    // Brazil's 16 IANA zones, each by its people's name (never the IANA name a configurer does not
    // read), all of them in the runtime's list.
    expect(zones.slice(0, 16).every((o) => !o.label.includes(o.zone))).toBe(true);
    expect(new Set(zones.slice(0, 16).map((o) => o.label)).size).toBe(16);
    expect(zones[16]?.label).not.toContain(' · ');
    const brazil = zones.slice(0, 16).map((o) => o.label);
    for (const name of ['Manaus (Amazonas)', 'Fernando de Noronha', 'Acre (Rio Branco)', 'Cuiabá', 'Belém'])
      expect(
        brazil.some((l) => l.startsWith(name)),
        name,
      ).toBe(true);
    expect(brazil).toContain('Bahia (Salvador)');
    expect(brazil).toContain('Santarém (oeste do Pará)');
    // Every zone of the runtime's list is offered once, each a zone the form accepts.
    expect(zones.map((o) => o.zone).sort()).toEqual([...zoneNames()].sort());
    expect(groups(pt).slice(0, 3)).toEqual(['Brasil', 'Américas', 'Europa']);
    expect(zones.find((o) => o.zone === 'Asia/Tokyo')?.label).toBe('Tokyo');
    expect(zones.find((o) => o.zone === 'America/New_York')?.label).toBe('New York');
    // The select keeps its label and hint.
    expect(pt).toContain('<label for="zone">');
    expect(pt).toContain('<select id="zone" name="zone" class="wide" aria-describedby="zone-hint">');
    const en = await page(await panel('/panel/settings', { cookie: 'lang=en' }));
    expect(options(en.slice(en.indexOf('id="zone"')))[0]?.label).toBe(
      'Brasília time (São Paulo, Rio, BH, Brasília, Sul…)',
    );
    expect(groups(en).slice(0, 3)).toEqual(['Brazil', 'Americas', 'Europe']);
    // Rendering the list makes no formatters: the isolate's bound holds.
    expect(cachedZones()).toBeLessThanOrEqual(MAX_CACHED_ZONES);
  });

  it('says "saved" on the page the save goes back to, and only on a panel path', async () => {
    const account = await newAccount();
    const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Site' });
    const cookie = await signIn(account.key);
    const next = `/panel/webhooks/${hook.id}/events?status=failed`;
    const saved = await panel('/panel/settings', { cookie, form: { lang: 'en', zone: 'UTC', next } });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe(next);
    const flash = saved.headers.getSetCookie().find((c) => c.startsWith('prefs-saved=1;')) ?? '';
    expect(flash).toMatch(/Max-Age=60; Path=\/panel; HttpOnly; SameSite=Lax/);
    // The page it goes back to says so once, in the language just saved, and drops the cookie.
    const res = await panel(next, { cookie: `${cookie}; lang=en; prefs-saved=1` });
    expect(res.headers.getSetCookie().some((c) => /^prefs-saved=;.*Max-Age=0/.test(c))).toBe(true);
    expect(await page(res)).toContain('<p class="flash ok" role="status">Preferences saved.</p>');
    const pt = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie: `${cookie}; prefs-saved=1` }));
    expect(pt).toContain('<p class="flash ok" role="status">Preferências salvas.</p>');
    const plain = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(plain).not.toContain('Preferências salvas.');
    for (const away of ['https://evil.example/?x', '//evil.example/', '/\\evil.example']) {
      const res = await panel('/panel/settings', { cookie, form: { zone: 'UTC', next: away } });
      expect(res.headers.get('Location'), away).toBe('/panel/settings');
    }
  });
});
