import { describe, expect, it } from 'vitest';
import { call, json, newAccount, newWebhook } from '../helpers';
import { deliver, eventOf, ingest, recordCounts } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';
import { asForm, submitForm } from './form-submit';

// The attacker's pass over the webhook console's pages (issue 23): another account's ids in every
// new path, every new write from another origin, hostile zone cookies on every new page, and
// "process for real" raced against itself. Each gets the panel's 4xx page (or the page as it would
// be), never a 500, never another account's data, never a write.

const fields = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
];
const flows = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead {{nome}}' },
];
const lead = { nome: 'Segredo Alheio', telefone: '21988887777', __fault: 'send' };

/** A webhook of a new account with one previewed test event, its webhook then put in production. */
async function promotable() {
  const account = await newAccount();
  const hook = await newWebhook(account.key, { name: 'Webhook alheio', mode: 'test', fields, flows });
  const eventId = await ingest(hook, lead);
  await deliver([eventId]);
  const put = await call(`/v1/inbound-webhooks/${hook.id}`, {
    method: 'PUT',
    key: account.key,
    body: { mode: 'production' },
  });
  expect(put.status).toBe(200);
  return { ...account, hook, eventId };
}

const eventCount = async (key: string, id: number) =>
  (await json(await call(`/v1/inbound-webhooks/${id}/events`, { key }))).data.length;

describe("the console's pages under attack", () => {
  it("another account's webhook and event are the 404 page on every new path, and nothing is written", async () => {
    const theirs = await promotable();
    const theirEvent = await eventOf(theirs.key, theirs.hook.id, theirs.eventId);
    const mine = await newAccount();
    const myHook = await newWebhook(mine.key, { mode: 'production', fields, flows });
    const cookie = await signIn(mine.key);
    const other = `/panel/webhooks/${theirs.hook.id}`;
    for (const path of [
      `${other}/sample`,
      `${other}/rotate`,
      `${other}/disable`,
      `${other}/events/${theirs.eventId}`,
    ]) {
      const html = await page(await panel(path, { cookie }), 404);
      expect(html, path).not.toMatch(/Webhook alheio|Segredo/);
    }
    const writes: [string, Record<string, string>][] = [
      [`${other}/sample`, { body: JSON.stringify(lead), confirm: 'yes' }],
      [`${other}/sample`, { confirm: 'yes' }],
      [`${other}/rotate`, { confirm: 'yes', grace: '86400' }],
      [`${other}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`${other}/events/${theirs.eventId}/process`, { confirm: 'yes' }],
      // Their event under my webhook's id: the event must be the webhook's, too.
      [`/panel/webhooks/${myHook.id}/events/${theirs.eventId}/process`, { confirm: 'yes' }],
    ];
    for (const [path, form] of writes) {
      const html = await page(await panel(path, { cookie, form }), 404);
      expect(html, path).not.toMatch(/Webhook alheio|Segredo/);
    }
    expect(await eventOf(theirs.key, theirs.hook.id, theirs.eventId)).toEqual(theirEvent);
    expect(await eventCount(theirs.key, theirs.hook.id)).toBe(1);
    const hook = (await json(await call(`/v1/inbound-webhooks/${theirs.hook.id}`, { key: theirs.key }))).data;
    expect(hook).toMatchObject({ url: theirs.hook.url, enabled: true, previous_url_expires_at: null });
  });

  it('every new write from another origin (or none) is refused and changes nothing', async () => {
    const { key, hook, eventId } = await promotable();
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const writes: [string, Record<string, string>][] = [
      ['/panel/settings', { lang: 'en', zone: 'Asia/Tokyo' }],
      [`${base}/sample`, { body: JSON.stringify(lead), confirm: 'yes' }],
      [`${base}/rotate`, { confirm: 'yes', grace: '0' }],
      [`${base}/enabled`, { enabled: 'false', confirm: 'yes' }],
      [`${base}/events/${eventId}/process`, { confirm: 'yes' }],
    ];
    for (const origin of ['http://evil.example', 'null', null]) {
      for (const [path, form] of writes) {
        const res = await panel(path, { cookie, form, origin });
        expect(res.status, `${path} ${origin}`).toBe(403);
        expect(res.headers.get('Set-Cookie'), path).toBeNull();
      }
    }
    expect((await eventOf(key, hook.id, eventId)).status).toBe('test');
    expect(await eventCount(key, hook.id)).toBe(1);
    const now = (await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data;
    expect(now).toMatchObject({ url: hook.url, enabled: true, previous_url_expires_at: null });
  });

  it('a hostile zone cookie is ignored on every new page: the default zone, never a 500', async () => {
    const { key, hook, eventId } = await promotable();
    const session = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    // Each page but the test send's shows a time, in the zone the cookie would have chosen.
    const timed = [base, `${base}/events/${eventId}`, `${base}/rotate`, '/panel/settings'];
    const hostile = ['__proto__', 'constructor', 'Etc/GMT+99', 'x'.repeat(64), 'Mars/Base', '%00', '"><b>'];
    for (const tz of hostile) {
      for (const path of [...timed, `${base}/sample`]) {
        const html = await page(await panel(path, { cookie: `${session}; tz=${encodeURIComponent(tz)}` }));
        expect(html, `${path} ${tz}`).not.toContain('<b>');
        if (timed.includes(path))
          expect(html, `${path} ${tz}`).toContain('(Horário Padrão de Brasília)</time>');
      }
    }
  });

  it("a sender's value that closes the test send's text area stays text, and round-trips unchanged through its confirmation", async () => {
    const { key } = await newAccount();
    const hostile = '</textarea><script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;';
    const hook = await newWebhook(key, { mode: 'test', fields, flows });
    await ingest(hook, { ...lead, nome: hostile });
    const cookie = await signIn(key);
    const action = `/panel/webhooks/${hook.id}/sample`;
    const form = await page(await panel(action, { cookie }));
    expect(form).not.toMatch(/<script>alert|<img src=x/);
    const body = asForm(submitForm(form, action)).body?.[0] ?? '';
    expect(JSON.parse(body).nome).toBe(hostile);

    const put = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key,
      body: { mode: 'production' },
    });
    expect(put.status).toBe(200);
    const ask = await page(await panel(action, { cookie, form: { body } }));
    expect(ask).not.toMatch(/<script>alert|<img src=x/);
    const confirmed = asForm(submitForm(ask, action));
    expect(confirmed.body).toEqual([body]);
    expect(confirmed.confirm).toEqual(['yes']);
  });

  it('processing a test event for real twice at once queues it once and writes its records once', async () => {
    const { id: accountId, key, hook, eventId } = await promotable();
    const cookie = await signIn(key);
    const path = `/v1/inbound-webhooks/${hook.id}/events/${eventId}/process`;
    const form = `/panel/webhooks/${hook.id}/events/${eventId}/process`;
    const answers = await Promise.all([
      call(path, { method: 'POST', key }),
      call(path, { method: 'POST', key }),
      panel(form, { cookie, form: { confirm: 'yes' } }),
    ]);
    const statuses = answers.slice(0, 2).map((r) => r.status);
    const panelWon = answers[2]?.headers.get('Location')?.endsWith('?done=processing') === true;
    // Exactly one of the three takes the event; the others are told it is no test event now.
    expect(statuses.filter((s) => s === 202).length + (panelWon ? 1 : 0)).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(panelWon ? 2 : 1);
    await deliver([eventId]);
    await deliver([eventId]);
    const event = await eventOf(key, hook.id, eventId);
    expect(event.history.map((m: { outcome: string }) => m.outcome)).toEqual([
      'previewed',
      'promoted',
      'processed',
    ]);
    expect(await recordCounts(accountId)).toMatchObject({ contacts: 1, deals: 1 });
  });
});
