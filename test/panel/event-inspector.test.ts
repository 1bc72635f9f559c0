import { describe, expect, it } from 'vitest';
import {
  adminHeaders,
  call,
  create,
  d1OfRow,
  json,
  newAccount,
  newWebhook,
  postEvent,
  roundTrips,
} from '../helpers';
import { deliver, eventOf, ingest, recordCounts } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';

// The event page as a request inspector (src/panel/views/event.ts): every part of the call and of
// what became of it, nothing a sender authenticates with, every text escaped, one round trip.

const XSS = '<img src=x onerror=alert(1)></script><script>alert(2)</script>]]>';
const fields = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'valor', type: 'number' },
];

async function leadHook(mode: 'test' | 'production', owner?: number) {
  const account = await newAccount();
  const user =
    owner ??
    (
      await create(account.key, '/v1/users', {
        name: 'Ana Souza',
        email: `ana-${crypto.randomUUID()}@example.com`,
      })
    ).id;
  const hook = await newWebhook(account.key, {
    mode,
    fields,
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: 'Lead site - {{nome}}', owner: { user_id: user } },
      {
        action: 'create_task',
        name: 'Ligar',
        category: 'Contato',
        due: { from: 'received_at', days: 1 },
        owner: { user_id: user },
      },
    ],
  });
  return { ...account, hook, cookie: await signIn(account.key) };
}

/** The event page, read in one round trip. */
async function inspect(cookie: string, hookId: number, eventId: number, lang = 'pt-BR'): Promise<string> {
  const res = await panel(`/panel/webhooks/${hookId}/events/${eventId}`, {
    cookie: `${cookie}; lang=${lang}`,
  });
  const body = await page(res);
  expect(roundTrips(res)).toBe(1);
  return body;
}

describe('the event page as a request inspector', () => {
  it('shows a processed event: result links to panel pages, history, warnings, headers and body', async () => {
    const { key, hook, cookie } = await leadHook('production');
    const res = await postEvent(
      hook.url,
      { nome: XSS, telefone: '11987654321', valor: 'muito', __fault: 'send' },
      {
        'User-Agent': 'RD Station/2.0',
        'Idempotency-Key': 'lead-42',
      },
    );
    expect(res.status).toBe(204);
    const [listed] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }))).data;
    await deliver([listed.id]);
    const event = await eventOf(key, hook.id, listed.id);
    const html = await inspect(cookie, hook.id, event.id);
    expect(html).toContain('<span class="badge processed">Processado</span>');
    expect(html).toContain(`href="/panel/contacts/${event.result.contact_id}"`);
    expect(html).toContain(`href="/panel/deals/${event.result.deal_id}"`);
    expect(html).toContain(`href="/panel/tasks/${event.result.task_ids[0]}"`);
    expect(html).not.toContain('href="/v1/');
    expect(html).toContain('Histórico de tentativas');
    expect(html).toContain('Processado: registros gravados');
    // The warning of the number left out, with its path.
    expect(html).toMatch(/<code>valor<\/code><\/td><td data-label="Mensagem">[^<]+/);
    expect(html).toContain('<code>application/json</code>');
    expect(html).toContain('RD Station/2.0');
    expect(html).toContain('lead-42');
    expect(html).toContain('&quot;telefone&quot;: &quot;11987654321&quot;');
    // Every text of the sender, escaped: no tag of theirs on the page.
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;');
  });

  it('never shows a credential header, even one stored by an older ingest', async () => {
    const { key, hook, cookie } = await leadHook('production');
    const id = await ingest(hook, { nome: 'Ana', telefone: '11987654321', __fault: 'send' });
    const headers = {
      'content-type': 'application/json',
      'x-signature': 'sha256=deadbeef',
      authorization: 'Bearer sk_live_x',
      cookie: 'session=abc',
      'x-api-key': 'k-123',
      'x-webhook-secret': 's3cr3t',
      'x-request-id': `<b>${XSS}</b>`,
    };
    await d1OfRow('inbound_events', id)
      .prepare('UPDATE inbound_events SET headers = ? WHERE id = ?')
      .bind(JSON.stringify(headers), id)
      .run();
    const html = await inspect(cookie, hook.id, id);
    for (const secret of [
      'deadbeef',
      'sk_live_x',
      'session=abc',
      'k-123',
      's3cr3t',
      'x-signature',
      'authorization',
    ]) {
      expect(html).not.toContain(secret);
    }
    expect(html).toContain('x-request-id');
    expect(html).toContain('&lt;b&gt;&lt;img');
    // Pending: the page asks panel.js to look again, and says so.
    expect(html).toContain('data-refresh="pending"');
    expect(html).toContain('esta página se atualiza sozinha');
    expect((await eventOf(key, hook.id, id)).status).toBe('pending');
  });

  it('shows a refused call: its status, code, each error, and the raw start of its body, escaped', async () => {
    const { hook, cookie, key } = await leadHook('production');
    const raw = `{"nome": "${XSS.replaceAll('"', '\\"')}", "extra": "]]>"}`;
    const res = await postEvent(hook.url, raw, { 'Content-Type': 'application/json' });
    expect(res.status, await res.clone().text()).toBe(400);
    const [event] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }))).data;
    const html = await inspect(cookie, hook.id, event.id, 'en');
    expect(html).toContain('Why the call was refused');
    expect(html).toContain('<code>400 invalid_fields</code>');
    expect(html).toContain('<code>telefone</code></td><td data-label="Message">This field is required.</td>');
    expect(html).toContain('Start of the refused body (up to 4 KiB), as it came');
    expect(html).toContain('&quot;extra&quot;: &quot;]]&gt;&quot;');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('data-refresh="pending"');
  });

  it('writes a test event preview as sentences with owner names, with the JSON in a details', async () => {
    const { key, hook, cookie } = await leadHook('test');
    const id = await ingest(hook, { nome: 'Exemplo', telefone: '11912345678', __fault: 'send' });
    await deliver([id]);
    const pt = await inspect(cookie, hook.id, id);
    expect(pt).toContain(
      'Cria o contato Exemplo (+55 11 91234-5678); um negócio &#39;Lead site - Exemplo&#39; para Ana Souza; uma tarefa &#39;Ligar&#39; para Ana Souza, prazo ',
    );
    expect(pt).toContain('<details><summary>Ver a pré-visualização em JSON</summary>');
    expect(pt).toContain('Pré-visualizado (modo de teste)');
    const en = await inspect(cookie, hook.id, id, 'en');
    expect(en).toContain(
      'Creates the contact Exemplo (+55 11 91234-5678); a deal &#39;Lead site - Exemplo&#39; for Ana Souza',
    );
    // In test mode there is nothing to process for real.
    expect(pt).not.toContain('/process"');
    expect((await eventOf(key, hook.id, id)).status).toBe('test');
  });
  it('shows a deep body of near the size limit as stored: trimmed at ingest, so no megabytes either way', async () => {
    const { hook, cookie } = await leadHook('production');
    let body: unknown = Array.from({ length: 100_000 }, () => 0);
    for (let depth = 0; depth < 25; depth++) body = { d: body };
    const id = await ingest(hook, { telefone: '11987654321', deep: body, __fault: 'send' });
    const html = await inspect(cookie, hook.id, id);
    // Ingest kept the declared field and 16 KiB of the rest (the body_trimmed warning says so).
    expect(html).toContain('&quot;telefone&quot;: &quot;11987654321&quot;,\n  &quot;deep&quot;: {');
    expect(html).toContain('o evento guarda os campos declarados e 16 KiB do resto');
    expect(html.length).toBeLessThan(300_000);
  });
});

describe('processing a test event for real from its page', () => {
  it('asks first, says it writes real records, then queues it as a production event', async () => {
    const { id: accountId, key, hook, cookie } = await leadHook('test');
    const id = await ingest(hook, { nome: 'Bia', telefone: '21988887777', __fault: 'send' });
    await deliver([id]);
    expect(
      (await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: { mode: 'production' } }))
        .status,
    ).toBe(200);
    const base = `/panel/webhooks/${hook.id}/events/${id}`;
    const html = await inspect(cookie, hook.id, id);
    expect(html).toContain(
      `<form method="post" action="${base}/process" class="inline"><button type="submit" class="danger">Processar de verdade</button>`,
    );

    const ask = await page(await panel(`${base}/process`, { cookie, form: {} }));
    expect(ask).toContain('Processar este evento de teste de verdade?');
    expect(ask).toContain('grava registros reais no CRM');
    expect(ask).toContain('name="confirm" value="yes"');
    expect((await eventOf(key, hook.id, id)).status).toBe('test');

    const done = await panel(`${base}/process`, { cookie, form: { confirm: 'yes' } });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe(`${base}?done=processing`);
    expect(await inspect(cookie, hook.id, id)).toContain('data-refresh="pending"');
    await deliver([id]);
    expect(await eventOf(key, hook.id, id)).toMatchObject({ status: 'processed' });
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, deals: 1, tasks: 1 });

    // Again: nothing to confirm, and the confirmed form is refused: back on its page, told why.
    const ask2 = await panel(`${base}/process`, { cookie, form: {} });
    expect(ask2.headers.get('Location')).toBe(`${base}?done=not-processed`);
    const again = await panel(`${base}/process`, { cookie, form: { confirm: 'yes' } });
    expect(again.headers.get('Location')).toBe(`${base}?done=not-processed`);
    const refused = await page(await panel(`${base}?done=not-processed`, { cookie }));
    expect(refused).toContain('só um evento de teste de um webhook em produção');
  });

  it("answers 404 for another account's event, and offers nothing to a read-only key", async () => {
    const theirs = await leadHook('test');
    const id = await ingest(theirs.hook, { nome: 'Bia', telefone: '21988887777', __fault: 'send' });
    await deliver([id]);
    await call(`/v1/inbound-webhooks/${theirs.hook.id}`, {
      method: 'PUT',
      key: theirs.key,
      body: { mode: 'production' },
    });
    const base = `/panel/webhooks/${theirs.hook.id}/events/${id}`;
    const mine = await signIn((await newAccount()).key);
    expect((await panel(base, { cookie: mine })).status).toBe(404);
    expect((await panel(`${base}/process`, { cookie: mine, form: { confirm: 'yes' } })).status).toBe(404);
    expect((await panel(`${base}/process`, { cookie: mine, form: {} })).status).toBe(404);

    const res = await call(`/admin/accounts/${theirs.id}/api-keys`, {
      method: 'POST',
      headers: adminHeaders(),
      body: { name: 'Reader', scopes: ['webhooks:read'] },
    });
    const reader = await signIn((await json(res)).data.key);
    expect(await inspect(reader, theirs.hook.id, id)).not.toContain('Processar de verdade');
    expect((await panel(`${base}/process`, { cookie: reader, form: { confirm: 'yes' } })).status).toBe(403);
    expect((await eventOf(theirs.key, theirs.hook.id, id)).status).toBe('test');
  });
});
