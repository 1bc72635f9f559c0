import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { overviewStart } from '../../src/webhooks/log/event-overview';
import { accountsOnShard, callWithDb, create, newAccount, recordingD1, roundTrips } from '../helpers';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The overview on a webhook's page: events per hour by status over 7 days (inline SVG), its text
// twin, the success rate and the last failure, all in the page's one round trip, on an index.

const HOUR = 3_600_000;
const MIN = 60_000;

type Seed = { status: string; at: number; error?: string; detail?: string };

async function seed(accountId: number, webhookId: number, events: Seed[]): Promise<number[]> {
  const rows = await env.DB.batch(
    events.map((e) =>
      env.DB.prepare(
        `INSERT INTO inbound_events (account_id, webhook_id, mode, status, error, payload, headers, received_at, queued_at, rejection)
         VALUES (?, ?, 'production', ?, ?, '{}', '{}', ?, ?, ?) RETURNING id`,
      ).bind(
        accountId,
        webhookId,
        e.status,
        e.error ?? null,
        e.at,
        e.at,
        e.detail
          ? JSON.stringify({ status: 400, code: 'invalid_fields', detail: e.detail, body: null })
          : null,
      ),
    ),
  );
  return rows.map((r) => (r.results[0] as { id: number }).id);
}

const times = (n: number, e: Seed): Seed[] => Array.from({ length: n }, () => e);

async function setUp(name = 'Leads do site') {
  const account = await newAccount();
  const hook = await create(account.key, '/v1/inbound-webhooks', { name });
  const cookie = await signIn(account.key);
  return { ...account, hook, cookie, base: `/panel/webhooks/${hook.id}` };
}

/** The chart's part of the page, its bars by hour index (x / 4) and their heights. */
function chartOf(html: string) {
  const figure = /<figure class="chart">[\s\S]*?<\/figure>/.exec(html)?.[0] ?? '';
  const bars = new Map<number, number[]>();
  for (const m of figure.matchAll(
    /<rect x="(\d+)" y="[\d.]+" width="3" height="([\d.]+)" fill="#[0-9a-f]{6}"\/>/g,
  )) {
    const hour = Number(m[1]) / 4;
    bars.set(hour, [...(bars.get(hour) ?? []), Number(m[2])]);
  }
  const start = Date.parse(/<figcaption><time datetime="([^"]+)">/.exec(figure)?.[1] ?? '');
  return { figure, bars, start };
}

/** The day table's rows: each cell's number by its column header. */
function dayRows(html: string): Record<string, number>[] {
  const table = /<details><summary>Totais por dia[\s\S]*?<\/details>/.exec(html)?.[0] ?? '';
  return [...table.matchAll(/<tr><td data-label="A partir de">[\s\S]*?<\/tr>/g)].map((row) =>
    Object.fromEntries(
      [...row[0].matchAll(/<td data-label="([^"]+)">(\d+)<\/td>/g)].map((c) => [c[1], Number(c[2])]),
    ),
  );
}

describe("a webhook's overview", () => {
  it('with no events: says so in the chart, the rate and the last failure, in one round trip', async () => {
    const { cookie, base } = await setUp();
    const res = await panel(base, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    const { figure, bars } = chartOf(html);
    expect(figure).toContain('role="img" aria-labelledby="chart-title chart-desc"');
    expect(figure).toContain('<desc id="chart-desc">Nenhum evento nos últimos 7 dias.</desc>');
    expect(bars.size).toBe(0);
    expect(html).toContain(
      '<span id="success-rate">Nenhum evento processado ou com falha nos últimos 7 dias.</span>',
    );
    expect(html).toContain('<dd id="last-failure">Nenhum evento com falha ou recusado.</dd>');
    const days = dayRows(html);
    // The person's local days: 8 unless the 7 days start at their midnight.
    expect(days.length === 7 || days.length === 8).toBe(true);
    for (const day of days) expect(day.Total).toBe(0);
    expect(html).not.toMatch(/style="/);
  });

  it("counts exactly the events stored in the last 7 days by hour and status: not older ones, another webhook's or account's", async () => {
    const { id: accountId, key, hook, cookie, base } = await setUp();
    const other = await create(key, '/v1/inbound-webhooks', { name: 'Outro' });
    const stranger = await setUp();
    const now = Date.now();
    const recent = now - MIN;
    const dayAgo = now - 30 * HOUR;
    const daysAgo = now - 3 * 24 * HOUR;
    await seed(accountId, hook.id, [
      ...times(2, { status: 'processed', at: recent }),
      { status: 'failed', at: recent, error: 'Falhou <b>X</b>' },
      ...times(4, { status: 'processed', at: dayAgo }),
      { status: 'test', at: daysAgo },
      { status: 'rejected', at: daysAgo, detail: 'Campo obrigatório' },
      { status: 'pending', at: daysAgo },
      ...times(5, { status: 'processed', at: now - 8 * 24 * HOUR }),
      { status: 'failed', at: now - 9 * 24 * HOUR, error: 'Antiga' },
    ]);
    await seed(accountId, other.id, times(3, { status: 'processed', at: recent }));
    const [strangerFailure] = await seed(stranger.id, stranger.hook.id, [
      { status: 'failed', at: now, error: 'De outra conta' },
    ]);

    const res = await panel(base, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    const { figure, bars, start } = chartOf(html);
    expect(start).toBe(
      overviewStart(Date.parse(/<figcaption>.*?–\s*<time datetime="([^"]+)">/.exec(figure)?.[1] ?? '')),
    );

    // What D1 holds for this webhook in the window, the chart's legend and its summary agree.
    const stored = await env.DB.prepare(
      'SELECT status, count(*) AS n FROM inbound_events WHERE webhook_id = ? AND received_at >= ? GROUP BY status',
    )
      .bind(hook.id, start)
      .all<{ status: string; n: number }>();
    const counts = Object.fromEntries(stored.results.map((r) => [r.status, r.n]));
    expect(counts).toEqual({ processed: 6, failed: 1, test: 1, rejected: 1, pending: 1 });
    const labels = {
      processed: 'Processados',
      failed: 'Com falha',
      test: 'De teste',
      rejected: 'Recusados',
      pending: 'Pendentes',
    };
    for (const [status, label] of Object.entries(labels)) {
      expect(html, status).toContain(`${label}: ${counts[status]}</li>`);
    }
    expect(figure).toContain(
      '<desc id="chart-desc">10 eventos nos últimos 7 dias: Processados: 6, De teste: 1, Pendentes: 1, Com falha: 1, Recusados: 1. Máximo numa hora: 4.</desc>',
    );

    // The bars: each seeded hour, its stack in proportion to the busiest hour (4 events).
    const slot = (at: number) => Math.floor((at - start) / HOUR);
    expect([...bars.keys()].sort((a, b) => a - b)).toEqual(
      [slot(daysAgo), slot(dayAgo), slot(recent)].sort((a, b) => a - b),
    );
    expect(bars.get(slot(dayAgo))).toEqual([100]);
    expect(bars.get(slot(recent))).toEqual([50, 25]);
    expect(bars.get(slot(daysAgo))).toEqual([25, 25, 25]);

    // The day table: the same totals, each event in the local day it arrived in.
    const days = dayRows(html);
    expect(days.reduce((n, d) => n + (d.Total ?? 0), 0)).toBe(10);
    expect(days.reduce((n, d) => n + (d.Processados ?? 0), 0)).toBe(6);
    expect(days.some((d) => d.Processados === 2 && d['Com falha'] === 1)).toBe(true);

    // 6 processed of 7 settled; the last failure is this webhook's newest, escaped, with its link.
    expect(html).toMatch(/<span id="success-rate">85,7\s?% \(6 de 7\)<\/span>/);
    const last = /<dd id="last-failure">([\s\S]*?)<\/dd>/.exec(html)?.[1] ?? '';
    expect(last).toContain('Com falha');
    expect(last).toContain('Falhou &lt;b&gt;X&lt;/b&gt;');
    expect(last).toMatch(new RegExp(`href="${base}/events/\\d+">Abrir o evento #\\d+</a>`));
    expect(html).not.toContain('De outra conta');
    expect(html).not.toContain(`events/${strangerFailure}"`);
  });

  it('success rate edge cases: only failures is 0 %, only test or rejected events is no rate; a rejection can be the last failure', async () => {
    const a = await setUp();
    await seed(a.id, a.hook.id, [{ status: 'failed', at: Date.now() - MIN, error: 'x' }]);
    expect(await page(await panel(a.base, { cookie: a.cookie }))).toMatch(
      /id="success-rate">0\s?% \(0 de 1\)</,
    );
    const b = await setUp();
    await seed(b.id, b.hook.id, [
      { status: 'test', at: Date.now() - MIN },
      { status: 'rejected', at: Date.now() - MIN, detail: 'O corpo não é JSON' },
    ]);
    const html = await page(await panel(b.base, { cookie: b.cookie }));
    expect(html).toContain('<span id="success-rate">Nenhum evento processado ou com falha');
    expect(/<dd id="last-failure">([\s\S]*?)<\/dd>/.exec(html)?.[1]).toContain(
      'Recusados · <span class="error-text">Faltam campos obrigatórios ou algum é inválido; veja os erros.</span>',
    );
  });

  it('escapes the webhook name in the SVG title', async () => {
    const { cookie, base } = await setUp('</title><script>alert(1)</script><svg onload=alert(2)>');
    const html = await page(await panel(base, { cookie }));
    expect(html).toContain(
      '<title id="chart-title">Eventos por hora, por status: &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;svg onload=alert(2)&gt;</title>',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<svg onload');
  });

  it('reads on the status index: each hour and status by seek, the latest failure backwards, no scan, no sort', async () => {
    const { id: accountId, key, hook } = await setUp();
    await seed(accountId, hook.id, times(3, { status: 'processed', at: Date.now() - HOUR }));
    const cookie = await signIn(key);
    const d1 = recordingD1(env.DB);
    const res = await callWithDb(d1.db, `/panel/webhooks/${hook.id}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const plans = await Promise.all(
      d1.statements
        .filter((s) => /from "inbound_events"/.test(s.sql) && /"status" in|"status" = \?/.test(s.sql))
        .map(async (s) => {
          const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
            .bind(...s.params)
            .all<{ detail: string }>();
          return results.map((r) => r.detail);
        }),
    );
    const all = plans.flat();
    // One seek per status into each hour's range, counted in the index: five correlated subqueries.
    const hourly = all.filter(
      (d) =>
        d ===
        'SEARCH inbound_events USING COVERING INDEX inbound_events_status_idx (account_id=? AND webhook_id=? AND status=? AND received_at>? AND received_at<?)',
    );
    expect(hourly, all.join('\n')).toHaveLength(5);
    const latest = all.filter(
      (d) =>
        d ===
        'SEARCH inbound_events USING INDEX inbound_events_status_idx (account_id=? AND webhook_id=? AND status=?)',
    );
    expect(latest, all.join('\n')).toHaveLength(2);
    expect(all.filter((d) => /^SCAN inbound_events|TEMP B-TREE/.test(d))).toEqual([]);
  });
});
