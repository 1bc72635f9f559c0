import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { localInstant, wallClock } from '../../src/core/zones';
import { accountsOnShard, call, insertRow, type Json, newAccount, newKey } from '../helpers';
import { deliveries, endpointWithBox, ping, plantEndpoint } from '../outbound/support';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// An endpoint's test send and delivery log through HTTP: the outcome of a ping, every attempt with
// its answer escaped, resend, and recover since a local time read in the person's zone.

const count = async (sql: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...params)
      .first<Json>()
  )?.n as number;
const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';

describe("an endpoint's test send", () => {
  it('sends a ping and shows the status, latency and the answer escaped, writing no record', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 200, body: HOSTILE }]);
    const cookie = await signIn(account.key);
    const journal = 'SELECT count(*) AS n FROM journal_entries WHERE account_id = ?';
    const entries = await count(journal, account.id);
    const html = await page(await panel(`/panel/endpoints/${endpoint.id}/test`, { cookie, form: {} }));
    expect(html).toContain('O endpoint aceitou o ping.');
    expect(html).toMatch(/<dt>Status HTTP<\/dt><dd>200<\/dd>/);
    expect(html).toMatch(/<dt>Tempo de resposta<\/dt><dd>\d+ ms<\/dd>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(await count(journal, account.id)).toBe(entries);
    expect((await deliveries(account.key, endpoint.id)).map((d) => d.type)).toEqual(['ping']);
  });

  it('says when the endpoint did not take it, in English too', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500, body: 'boom' }]);
    const cookie = `${await signIn(account.key)}; lang=en`;
    const html = await page(await panel(`/panel/endpoints/${endpoint.id}/test`, { cookie, form: {} }));
    expect(html).toContain('The endpoint did not accept the ping.');
    expect(html).toMatch(/<dt>HTTP status<\/dt><dd>500<\/dd>/);
    expect(html).toContain('boom');
  });
});

describe("an endpoint's delivery log", () => {
  it('lists every attempt with its time, status, latency and escaped answer, and resends one', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [
      { status: 503, body: HOSTILE },
      { status: 204 },
    ]);
    const failed = await ping(account.key, endpoint.id);
    const cookie = await signIn(account.key);
    const log = `/panel/endpoints/${endpoint.id}/deliveries`;
    const html = await page(await panel(log, { cookie }));
    expect(html).toContain('Teste (ping) <code>ping</code>');
    expect(html).toContain('<span class="badge failed">Falhou</span> 1 tentativa');
    expect(html).toMatch(/data-label="Status HTTP">503</);
    expect(html).toMatch(
      /<time datetime="[^"]+">\d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(Horário Padrão de Brasília\)/,
    );
    expect(html).toContain('&lt;script&gt;alert(1)');
    expect(html).not.toContain('<script>alert(1)');
    const res = await panel(`${log.replace('/deliveries', '')}/deliveries/${failed.id}/resend`, {
      cookie,
      form: {},
    });
    expect(res.headers.get('Location')).toBe(`${log}?done=resent`);
    const after = await page(await panel(`${log}?done=resent`, { cookie }));
    expect(after).toContain('Entrega reenviada');
    const [again] = await deliveries(account.key, endpoint.id);
    expect(again.id).toBe(failed.id);
    expect(again.status).not.toBe('failed');
  });

  it('counts attempts with real plurals, none as words', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    const at = Date.now();
    await insertRow('webhook_deliveries', {
      account_id: account.id,
      endpoint_id: endpoint.id,
      message_id: 'evt_none',
      type: 'deal.updated',
      body: '{}',
      created_at: at,
      updated_at: at,
    });
    const twice = await ping(account.key, endpoint.id);
    await env.DB.prepare(
      "INSERT INTO webhook_attempts (account_id, delivery_id, attempt, at, status, latency_ms, response) VALUES (?, ?, 2, ?, 500, 9, '')",
    )
      .bind(account.id, twice.id, at)
      .run();
    const cookie = await signIn(account.key);
    const log = `/panel/endpoints/${endpoint.id}/deliveries`;
    const pt = await page(await panel(log, { cookie }));
    expect(pt).toContain('<span class="badge pending">Pendente</span> nenhuma tentativa ainda');
    expect(pt).toContain('<span class="badge failed">Falhou</span> 2 tentativas');
    const en = await page(await panel(log, { cookie: `${cookie}; lang=en` }));
    expect(en).toContain('<span class="badge pending">Pending</span> no attempt yet');
    expect(en).toContain('<span class="badge failed">Failed</span> 2 attempts');
  });

  it("answers another account's delivery, or another endpoint's, with 404 and resends nothing", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const { endpoint: own } = await endpointWithBox(mine.key, [{ status: 500 }]);
    const { endpoint: other } = await endpointWithBox(mine.key, [{ status: 500 }]);
    const { endpoint: foreign } = await endpointWithBox(theirs.key, [{ status: 500 }]);
    const theirPing = await ping(theirs.key, foreign.id);
    const otherPing = await ping(mine.key, other.id);
    const cookie = await signIn(mine.key);
    for (const [endpointId, deliveryId] of [
      [own.id, theirPing.id],
      [foreign.id, theirPing.id],
      [own.id, otherPing.id],
    ]) {
      const res = await panel(`/panel/endpoints/${endpointId}/deliveries/${deliveryId}/resend`, {
        cookie,
        form: {},
      });
      expect(res.status, `${endpointId}/${deliveryId}`).toBe(404);
    }
    expect((await deliveries(theirs.key, foreign.id))[0].status).toBe('failed');
    expect((await deliveries(mine.key, other.id))[0].status).toBe('failed');
  });

  it('recovers the failures since a local time read in the person’s zone, after asking', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    const recent = await ping(account.key, endpoint.id);
    const old = await ping(account.key, endpoint.id);
    const now = Date.now();
    const setCreated = (id: number, ms: number) =>
      env.DB.prepare('UPDATE webhook_deliveries SET created_at = ? WHERE id = ?').bind(ms, id).run();
    await setCreated(recent.id, now - 20 * 3_600_000);
    await setCreated(old.id, now - 30 * 3_600_000);
    // Tokyo is 9 hours ahead of UTC: read as UTC, "24 hours ago in Tokyo" would be 15 hours ago
    // and take neither.
    const cookie = `${await signIn(account.key)}; tz=Asia/Tokyo; lang=en`;
    const since = wallClock(now - 24 * 3_600_000, 'Asia/Tokyo');
    const path = `/panel/endpoints/${endpoint.id}/recover`;
    const ask = await page(await panel(path, { cookie, form: { since } }));
    expect(ask).toContain('Resend the failed deliveries?');
    expect(ask).toContain('(GMT+9)');
    expect((await deliveries(account.key, endpoint.id)).every((d) => d.status === 'failed')).toBe(true);
    const res = await panel(path, { cookie, form: { since, confirm: 'yes' } });
    expect(res.headers.get('Location')).toBe(`/panel/endpoints/${endpoint.id}/deliveries?done=recovered&n=1`);
    const byId = new Map((await deliveries(account.key, endpoint.id)).map((d) => [d.id, d.status]));
    expect(byId.get(old.id)).toBe('failed');
    expect(byId.get(recent.id)).not.toBe('failed');
    const flash = await page(await panel(res.headers.get('Location') ?? '', { cookie }));
    expect(flash).toContain('1 delivery resent.');
    const none = await page(
      await panel(`/panel/endpoints/${endpoint.id}/deliveries?done=recovered&n=0`, { cookie }),
    );
    expect(none).toContain('No delivery to resend since then.');
  });

  it('enabling an endpoint the CRM turned off leads to the log, recover starting when the failures began', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    const began = Date.parse('2026-11-20T13:45:00.000Z');
    await plantEndpoint(endpoint.id, "enabled = 0, disabled_reason = 'failing', failing_since = ?", began);
    const cookie = await signIn(account.key);
    const shown = await page(await panel(`/panel/endpoints/${endpoint.id}`, { cookie }));
    expect(shown).toContain('name="failing_since" value="2026-11-20T13:45:00.000Z"');
    const res = await panel(`/panel/endpoints/${endpoint.id}/enabled`, {
      cookie,
      form: { enabled: 'true', failing_since: '2026-11-20T13:45:00.000Z' },
    });
    const log = `/panel/endpoints/${endpoint.id}/deliveries?done=enabled&from=2026-11-20T13%3A45%3A00.000Z`;
    expect(res.headers.get('Location')).toBe(log);
    const html = await page(await panel(log, { cookie }));
    // 13:45 UTC is 10:45 in Brasília.
    expect(html).toContain('value="2026-11-20T10:45"');
    expect(html).toContain('Endpoint ativado. Para reenviar o que falhou');
    const hostile = await panel(`/panel/endpoints/${endpoint.id}/deliveries?from=%22%3E%3Cscript%3E`, {
      cookie,
    });
    expect(await page(hostile)).not.toContain('<script>');
  });

  it('refuses a since that is no time or in the future, and resends nothing', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    await ping(account.key, endpoint.id);
    const cookie = await signIn(account.key);
    for (const since of [
      '',
      'ontem',
      '2026-02-30T10:00',
      wallClock(Date.now() + 86_400_000, 'America/Sao_Paulo'),
    ]) {
      const res = await panel(`/panel/endpoints/${endpoint.id}/recover`, {
        cookie,
        form: { since, confirm: 'yes' },
      });
      expect(await page(res, 422), since).toContain('Informe uma data e hora válidas, no passado.');
    }
    expect((await deliveries(account.key, endpoint.id))[0].status).toBe('failed');
  });

  it('shows a read-only key the log without resend or recover, and refuses them', async () => {
    const account = await newAccount();
    const { endpoint } = await endpointWithBox(account.key, [{ status: 500 }]);
    const failed = await ping(account.key, endpoint.id);
    const cookie = await signIn((await newKey(account.id, ['webhook_endpoints:read'])).key);
    const html = await page(await panel(`/panel/endpoints/${endpoint.id}/deliveries`, { cookie }));
    expect(html).toContain('Falhou');
    expect(html).not.toContain('/resend"');
    expect(html).not.toContain('/recover"');
    const res = await panel(`/panel/endpoints/${endpoint.id}/deliveries/${failed.id}/resend`, {
      cookie,
      form: {},
    });
    expect(res.status).toBe(403);
    expect((await deliveries(account.key, endpoint.id))[0].status).toBe('failed');
    const api = await call(`/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key: account.key });
    expect(api.status).toBe(200);
  });
});

describe('localInstant', () => {
  it('reads a wall-clock time in a zone, and refuses one that is not real', () => {
    expect(localInstant('2026-11-29T09:30', 'America/Sao_Paulo')).toBe(Date.parse('2026-11-29T12:30:00Z'));
    expect(localInstant('2026-11-29T09:30', 'Asia/Tokyo')).toBe(Date.parse('2026-11-29T00:30:00Z'));
    expect(localInstant('2026-07-01T12:00', 'Europe/London')).toBe(Date.parse('2026-07-01T11:00:00Z'));
    expect(localInstant('2026-02-30T10:00', 'UTC')).toBeUndefined();
    expect(localInstant('2026-11-29 09:30', 'UTC')).toBeUndefined();
    expect(localInstant('2026-11-29T09:30', 'Mars/Base')).toBeUndefined();
    const ms = Date.parse('2026-03-08T07:15:00Z');
    expect(localInstant(wallClock(ms, 'America/New_York'), 'America/New_York')).toBe(ms);
  });
});
