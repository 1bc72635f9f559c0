import { describe, expect, it } from 'vitest';
import { dayRange, validZone, zoneNames } from '../../src/core/zones';
import { cachedZones, chooseZone, localTime, MAX_CACHED_ZONES } from '../../src/panel/zone';
import { insertRow, newAccount, newWebhook } from '../helpers';
import { page, panel, signIn } from './browser';

describe('times in the person’s zone', () => {
  it('reads São Paulo as UTC−3 all year (no daylight saving since 2019), with its name', () => {
    expect(localTime('2026-11-24T19:41:00.000Z', 'pt-BR', 'America/Sao_Paulo')).toBe(
      '24/11/2026 16:41 (Horário Padrão de Brasília)',
    );
    expect(localTime('2026-01-15T12:00:00.000Z', 'pt-BR', 'America/Sao_Paulo')).toBe(
      '15/01/2026 09:00 (Horário Padrão de Brasília)',
    );
    expect(localTime('2026-07-15T12:00:00.000Z', 'pt-BR', 'America/Sao_Paulo')).toBe(
      '15/07/2026 09:00 (Horário Padrão de Brasília)',
    );
    expect(localTime('2026-11-24T19:41:00.000Z', 'en', 'UTC')).toBe('Nov 24, 2026, 7:41 PM (UTC)');
    expect(localTime('2026-11-24T19:41:00.000Z', 'pt-BR', 'UTC')).toMatch(/^24\/11\/2026 19:41 \(/);
    // A zone with daylight saving names each half of the year.
    expect(localTime('2026-01-15T12:00:00.000Z', 'en', 'America/New_York')).toBe(
      'Jan 15, 2026, 7:00 AM (EST)',
    );
    expect(localTime('2026-07-15T12:00:00.000Z', 'en', 'America/New_York')).toBe(
      'Jul 15, 2026, 8:00 AM (EDT)',
    );
  });

  it('knows Intl’s zones and UTC, and nothing else', () => {
    expect(zoneNames().length).toBeGreaterThan(300);
    expect(zoneNames()).toContain('America/Sao_Paulo');
    for (const good of ['UTC', 'America/Sao_Paulo', 'Asia/Tokyo']) expect(validZone(good)).toBe(good);
    // An alias or another case is Intl's own spelling of the zone.
    expect(zoneNames()).toContain(validZone('Asia/Kolkata'));
    expect(validZone('america/sao_paulo')).toBe('America/Sao_Paulo');
    for (const bad of ['', 'Mars/Base', 'utc ', 'America/Sao_Paulo\r\nX: 1', '__proto__', 'x'.repeat(10_000)])
      expect(validZone(bad)).toBeUndefined();
    expect(chooseZone(undefined, 'pt-BR', 'Europe/Paris')).toBe('America/Sao_Paulo');
    expect(chooseZone(undefined, 'en', undefined)).toBe('UTC');
    expect(chooseZone(undefined, 'en', 'Europe/Paris')).toBe('Europe/Paris');
    expect(chooseZone(undefined, 'en', 'Nowhere/Else')).toBe('UTC');
    expect(chooseZone('Asia/Tokyo', 'pt-BR', undefined)).toBe('Asia/Tokyo');
    expect(chooseZone('Mars/Base', 'en', 42)).toBe('UTC');
  });

  it('holds the formatters of a bounded number of zones, whatever zones the requests name', async () => {
    // The zone is a cookie any request sets (the preferences page needs no session): one request
    // per zone must not make the shared isolate keep formatters for every zone of Intl's list.
    const at = '2026-11-24T19:41:00.000Z';
    for (const zone of zoneNames()) {
      for (const lang of ['pt-BR', 'en'] as const) localTime(at, lang, zone);
    }
    expect(cachedZones()).toBeLessThanOrEqual(MAX_CACHED_ZONES);
    // A zone dropped from the cache reads as before.
    expect(localTime(at, 'pt-BR', 'America/Sao_Paulo')).toBe('24/11/2026 16:41 (Horário Padrão de Brasília)');
    const settings = await page(await panel('/panel/settings', { cookie: 'tz=Asia/Tokyo; lang=en' }));
    expect(settings).toMatch(/\(GMT\+9\)<\/time>/);
  });
});

describe('a local day as a UTC range', () => {
  it('starts and ends at the zone’s midnights', () => {
    expect(dayRange('2026-11-24', 'America/Sao_Paulo')).toEqual({
      from: '2026-11-24T03:00:00.000Z',
      to: '2026-11-25T03:00:00.000Z',
    });
    expect(dayRange('2026-11-24', 'UTC')).toEqual({
      from: '2026-11-24T00:00:00.000Z',
      to: '2026-11-25T00:00:00.000Z',
    });
    expect(dayRange('2026-12-31', 'America/Sao_Paulo')).toEqual({
      from: '2026-12-31T03:00:00.000Z',
      to: '2027-01-01T03:00:00.000Z',
    });
    expect(dayRange('2028-02-29', 'Asia/Calcutta')).toEqual({
      from: '2028-02-28T18:30:00.000Z',
      to: '2028-02-29T18:30:00.000Z',
    });
    // The zones furthest from UTC, either way.
    expect(dayRange('2026-11-24', 'Pacific/Kiritimati')?.from).toBe('2026-11-23T10:00:00.000Z');
    expect(dayRange('2026-11-24', 'Pacific/Pago_Pago')?.from).toBe('2026-11-24T11:00:00.000Z');
  });

  it('gives a day a clock change shortens or lengthens its real length', () => {
    // New York springs forward on 2026-03-08 (23 h) and falls back on 2026-11-01 (25 h).
    expect(dayRange('2026-03-08', 'America/New_York')).toEqual({
      from: '2026-03-08T05:00:00.000Z',
      to: '2026-03-09T04:00:00.000Z',
    });
    expect(dayRange('2026-11-01', 'America/New_York')).toEqual({
      from: '2026-11-01T04:00:00.000Z',
      to: '2026-11-02T05:00:00.000Z',
    });
    // Brazil's last daylight saving began at midnight on 2018-11-04: that day began at 01:00.
    expect(dayRange('2018-11-04', 'America/Sao_Paulo')).toEqual({
      from: '2018-11-04T03:00:00.000Z',
      to: '2018-11-05T02:00:00.000Z',
    });
  });

  it('is undefined for a date that is not real or a zone that is not known', () => {
    for (const day of ['2026-02-30', '2026-13-01', '2026-1-1', '24/11/2026', '0099-01-01x', ''])
      expect(dayRange(day, 'UTC'), day).toBeUndefined();
    expect(dayRange('2026-11-24', 'Mars/Base')).toBeUndefined();
  });
});

describe('the zone setting', () => {
  const AT = Date.parse('2026-11-24T19:41:00.000Z');

  async function eventLog() {
    const { id, key } = await newAccount();
    const hook = await newWebhook(key);
    const row = {
      account_id: id,
      webhook_id: hook.id,
      mode: 'test',
      status: 'test',
      payload: '{}',
      headers: '{}',
    };
    await insertRow('inbound_events', { ...row, received_at: AT, queued_at: AT });
    return { cookie: await signIn(key), path: `/panel/webhooks/${hook.id}/events` };
  }

  it('defaults by language: Brasília in Portuguese, UTC in English; the datetime stays ISO', async () => {
    const { cookie, path } = await eventLog();
    const pt = await page(await panel(path, { cookie }));
    expect(pt).toContain(
      '<time datetime="2026-11-24T19:41:00.000Z">24/11/2026 16:41 (Horário Padrão de Brasília)</time>',
    );
    const en = await page(await panel(path, { cookie: `${cookie}; lang=en` }));
    expect(en).toContain('<time datetime="2026-11-24T19:41:00.000Z">Nov 24, 2026, 7:41 PM (UTC)</time>');
  });

  it('is set on the preferences page, and an unknown or hostile zone changes nothing', async () => {
    const { cookie, path } = await eventLog();
    const form = await page(await panel(`/panel/settings?next=${encodeURIComponent(path)}`, { cookie }));
    expect(form).toContain(
      '<option value="America/Sao_Paulo" selected>Horário de Brasília (São Paulo, Rio, BH, Brasília, Sul…)</option>',
    );
    expect(form).toContain(`<input type="hidden" name="next" value="${path}">`);
    const saved = await panel('/panel/settings', {
      cookie,
      form: { lang: 'en', zone: 'Asia/Tokyo', next: path },
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe(path);
    const set = saved.headers.getSetCookie().map((c) => c.split(';')[0]);
    expect(set).toEqual(['lang=en', 'tz=Asia%2FTokyo', 'prefs-saved=1']);
    const shown = await page(await panel(path, { cookie: `${cookie}; ${set.join('; ')}` }));
    expect(shown).toContain('Nov 25, 2026, 4:41 AM (GMT+9)');
    for (const zone of ['Mars/Base', 'UTC\r\nSet-Cookie: x=1', 'x'.repeat(100_000), '']) {
      const refused = await panel('/panel/settings', { cookie, form: { zone } });
      expect(refused.status).toBe(422);
      expect(refused.headers.get('Set-Cookie')).toBeNull();
      expect(await refused.text()).toContain('Fuso horário desconhecido');
    }
    // A cookie no form could have set falls back to the language's zone.
    for (const tz of ['Mars%2FBase', 'x'.repeat(4000), '%E0%A4%A']) {
      const res = await page(await panel(path, { cookie: `${cookie}; tz=${tz}` }));
      expect(res).toContain('(Horário Padrão de Brasília)');
    }
  });

  it('goes back only to a panel path: never away, never a header it cannot send', async () => {
    const targets = [
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example',
      '/panel\r\nX: 1',
      `/panel/${'a'.repeat(3000)}`,
    ];
    for (const next of targets) {
      const saved = await panel('/panel/settings', { form: { zone: 'UTC', next } });
      expect(saved.headers.get('Location'), next).toBe('/panel/settings');
      const lang = await panel(`/panel/lang/en?next=${encodeURIComponent(next)}`);
      expect(lang.headers.get('Location'), next).toBe('/panel/webhooks');
    }
    const back = await page(
      await panel('/panel/settings?next=https://evil.example/', { cookie: 'prefs-saved=1' }),
    );
    expect(back).toContain('Preferências salvas.');
    expect(back).not.toContain('name="next"');
  });
});
