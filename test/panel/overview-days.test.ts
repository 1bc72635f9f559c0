import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { dayRange } from '../../src/core/zones';
import { overviewStart } from '../../src/webhooks/log/event-overview';
import { accountsOnShard, create, newAccount, roundTrips } from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The overview read in the person's days: the day totals start at their local midnight, and the
// chart names its days under its x-axis, in a version drawn for a phone's width too.

const HOUR = 3_600_000;

async function setUp() {
  const account = await newAccount();
  const hook = await create(account.key, '/v1/inbound-webhooks', { name: 'Site' });
  return { ...account, hook, cookie: await signIn(account.key) };
}

const seed = (accountId: number, webhookId: number, at: number[]) =>
  env.DB.batch(
    at.map((t) =>
      env.DB.prepare(
        `INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at)
         VALUES (?, ?, 'production', 'processed', '{}', '{}', ?, ?)`,
      ).bind(accountId, webhookId, t, t),
    ),
  );

/** Local midnight of the day before today in `zone` (ms). */
function yesterday(zone: string): number {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(Date.now());
  const noon = Date.parse(`${today}T12:00:00Z`) - 24 * HOUR;
  return Date.parse(dayRange(new Date(noon).toISOString().slice(0, 10), zone)?.from ?? '');
}

/** The day table's rows: when each starts and its total. */
const rows = (html: string) =>
  [
    ...html.matchAll(
      /<tr><td data-label="[^"]+"><time datetime="([^"]+)">[\s\S]*?<td data-label="Total">(\d+)<\/td><\/tr>/g,
    ),
  ].map((m) => ({ from: Date.parse(m[1] ?? ''), total: Number(m[2]) }));

const svgOf = (html: string, kind: 'wide' | 'narrow') =>
  new RegExp(`<svg class="${kind}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';

describe('the overview in the person’s days', () => {
  for (const zone of ['Asia/Tokyo', 'America/Sao_Paulo']) {
    it(`starts each day's row at local midnight in ${zone}: 23:30 and 00:30 fall in two rows`, async () => {
      const { id, hook, cookie } = await setUp();
      const midnight = yesterday(zone);
      await seed(id, hook.id, [midnight - HOUR / 2, midnight + HOUR / 2, midnight + HOUR / 2]);
      const res = await panel(`/panel/webhooks/${hook.id}`, {
        cookie: `${cookie}; tz=${encodeURIComponent(zone)}`,
      });
      expect(roundTrips(res)).toBe(1);
      const days = rows(await page(res)).reverse();
      const start = overviewStart(Date.now());
      expect(days[0]?.from).toBe(start);
      const hourOf = new Intl.DateTimeFormat('en-CA', {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      for (const d of days.slice(1)) expect(hourOf.format(d.from)).toBe('00:00');
      const i = days.findIndex((d) => d.from === midnight);
      expect(days[i]?.total).toBe(2);
      expect(days[i - 1]?.total).toBe(1);
      expect(days.reduce((n, d) => n + d.total, 0)).toBe(3);
    });
  }

  it('names the days under the chart in the page’s language and zone, and draws a phone-width chart', async () => {
    const { id, hook, cookie } = await setUp();
    const zone = 'Asia/Tokyo';
    const midnight = yesterday(zone);
    await seed(id, hook.id, [midnight + HOUR / 2]);
    const start = overviewStart(Date.now());
    const x = ((midnight - start) / HOUR) * 4 + 2;
    for (const lang of ['pt-BR', 'en'] as const) {
      const html = await page(
        await panel(`/panel/webhooks/${hook.id}`, { cookie: `${cookie}; tz=${zone}; lang=${lang}` }),
      );
      const wide = svgOf(html, 'wide');
      const long = new Intl.DateTimeFormat(lang, {
        timeZone: zone,
        weekday: 'short',
        day: '2-digit',
        month: '2-digit',
      });
      expect(wide).toContain(
        `<text x="${x}" y="125" font-size="10" fill="#344054">${long.format(midnight)}</text>`,
      );
      const narrow = svgOf(html, 'narrow');
      expect(narrow).toContain('role="img" aria-labelledby="chart-4h-title chart-4h-desc"');
      const short = new Intl.DateTimeFormat(lang, { timeZone: zone, day: '2-digit', month: '2-digit' });
      expect(narrow).toContain(`>${short.format(midnight)}</text>`);
      // 7 days in local 4-hour blocks: 42 bars, or 43 when the week starts inside a block.
      const width = Number(/viewBox="0 0 (\d+) /.exec(narrow)?.[1]);
      expect([42 * 8, 43 * 8]).toContain(width);
      // The one event fills its 4-hour bar to the top.
      expect(narrow).toMatch(/<rect x="\d+" y="14.00" width="6" height="150.00" fill="#067647"\/>/);
      expect(html).not.toMatch(/style="/);
    }
  });
});
