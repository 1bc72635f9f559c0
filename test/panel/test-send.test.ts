import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, BASE, call, create, json, newAccount, roundTrips } from '../helpers';
import { page, panel, signIn } from './browser';
import { asForm, submitForm } from './form-submit';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const FIELDS = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'tel', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'veiculo.modelo', type: 'string' },
  { key: 'valor', type: 'number', locale: 'pt-BR', target: 'deal.value' },
];
const FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead site - {{veiculo.modelo}}' },
];

const eventsOf = async (key: string, id: number) =>
  (await json(await call(`/v1/inbound-webhooks/${id}/events`, { key }))).data;

/** The text area's body on the test send page, as a browser holds it. */
const bodyOn = (html: string, id: number) =>
  asForm(submitForm(html, `/panel/webhooks/${id}/sample`)).body?.[0] ?? '';

async function setUp(mode: 'test' | 'production') {
  const { key, id: accountId } = await newAccount();
  const hook = await create(key, '/v1/inbound-webhooks', {
    name: 'Site',
    mode,
    fields: FIELDS,
    flows: FLOWS,
  });
  return { key, accountId, hook, cookie: await signIn(key), base: `/panel/webhooks/${hook.id}` };
}

const contacts = async (accountId: number) =>
  (
    await env.DB.prepare('select count(*) as n from contacts where account_id = ?')
      .bind(accountId)
      .first<{ n: number }>()
  )?.n;

describe('the test send with an editable body', () => {
  it('prefills the body from the fields and the examples of test events, drawing the phone, in one round trip', async () => {
    const { key, hook, cookie, base } = await setUp('test');
    const sent = { nome: 'Ana <b>', tel: '11987654321', veiculo: { modelo: 'Onix' }, valor: '89.900,00' };
    expect((await call(new URL(hook.url).pathname, { method: 'POST', body: sent })).status).toBe(204);
    const res = await panel(`${base}/sample`, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain('Ana &lt;b&gt;');
    const body = JSON.parse(bodyOn(html, hook.id));
    expect(body).toMatchObject({ nome: 'Ana <b>', veiculo: { modelo: 'Onix' }, valor: '89.900,00' });
    // A real sender's phone could match, and rename, a record: it is drawn afresh instead.
    expect(body.tel).not.toBe('11987654321');
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
  });

  it('prefills a webhook without test events with a plausible lead, its date in the field’s format', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Concessionária',
      mode: 'test',
      fields: [
        ...FIELDS,
        { key: 'data_compra', type: 'date', formats: ['DD/MM/YYYY'] },
        { key: 'email', type: 'email', target: 'contact.email' },
      ],
      flows: FLOWS,
    });
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}/sample`, { cookie }));
    const body = JSON.parse(bodyOn(html, hook.id));
    expect(body).toMatchObject({ nome: 'Ana Souza', veiculo: { modelo: 'Onix LT 1.0' }, valor: 89900 });
    expect(body.data_compra).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
    expect(body.tel).toMatch(/^\+55 11 9\d{4}-\d{4}$/);
    expect(JSON.stringify(body)).not.toContain('Exemplo');
    // As the sender's own would be, it is taken: its date read in the field's format.
    const form = asForm(submitForm(html, `/panel/webhooks/${hook.id}/sample`));
    expect((await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form })).status).toBe(303);
    const [event] = await eventsOf(key, hook.id);
    // A date ingest could not read would be left out with a warning.
    expect(event.status).toBe('pending');
    expect(event.warnings).toEqual([]);
    expect(event.payload.data_compra).toBe(body.data_compra);
  });

  it('sends the edited body as it is, and the webhook receives exactly that', async () => {
    const { key, hook, cookie, base } = await setUp('test');
    const edited = '{\r\n  "nome": "Bia",\r\n  "tel": "11912345678",\r\n  "valor": "R$ 120.000"\r\n}';
    const res = await panel(`${base}/sample`, { cookie, form: { body: edited } });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe(`${base}?done=sample`);
    const [event] = await eventsOf(key, hook.id);
    expect(event.payload).toEqual({ nome: 'Bia', tel: '11912345678', valor: 'R$ 120.000' });
  });

  it('refuses text that is not JSON beside the text area, and sends nothing', async () => {
    const { key, hook, cookie, base } = await setUp('test');
    const res = await panel(`${base}/sample`, { cookie, form: { body: '{"nome": "Ana",}' } });
    const html = await page(res, 422);
    expect(html).toMatch(
      /<textarea id="test-body"[^>]*aria-invalid="true">\n\{&quot;nome&quot;: &quot;Ana&quot;,\}<\/textarea>/,
    );
    expect(html).toContain(
      '<p id="test-body-error" class="error" role="alert">JSON inválido, nada foi enviado:',
    );
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it("shows the webhook's refusal beside the text area, the body kept", async () => {
    const { hook, cookie, base } = await setUp('test');
    const html = await page(
      await panel(`${base}/sample`, { cookie, form: { body: '{"nome": "Ana"}' } }),
      422,
    );
    expect(html).toContain('O webhook recusou o evento:');
    // In the page's language, from the problem's codes.
    expect(html).toContain(
      'O webhook recusou o evento: Faltam campos obrigatórios ou algum é inválido; veja os erros. tel: Este campo é obrigatório.',
    );
    expect(bodyOn(html, hook.id)).toBe('{"nome": "Ana"}');
  });

  it('refuses a body over the ingest limit with its message, storing nothing', async () => {
    const { key, hook, cookie, base } = await setUp('test');
    const huge = JSON.stringify({ tel: '11912345678', pad: 'x'.repeat(300 * 1024) });
    const html = await page(await panel(`${base}/sample`, { cookie, form: { body: huge } }), 422);
    expect(html).toContain('O webhook recusou o evento:');
    expect((await eventsOf(key, hook.id)).filter((e: { status: string }) => e.status !== 'rejected')).toEqual(
      [],
    );
  });

  it('asks before a production webhook writes real records, then sends the edited body once confirmed', async () => {
    const { key, accountId, hook, cookie, base } = await setUp('production');
    expect(await page(await panel(`${base}/sample`, { cookie }))).toContain(
      'em produção: antes de enviar, você confirma',
    );
    const edited = '{"nome": "Caio", "tel": "11955554444"}';
    const asked = await page(await panel(`${base}/sample`, { cookie, form: { body: edited } }));
    expect(asked).toContain('<h2>Corpo que será enviado</h2>');
    expect(await eventsOf(key, hook.id)).toEqual([]);
    expect(await contacts(accountId)).toBe(0);
    const confirm = asForm(submitForm(asked, `${base}/sample`));
    expect(confirm).toEqual({ body: [edited], confirm: ['yes'] });
    const res = await panel(`${base}/sample`, { cookie, form: confirm });
    expect(res.status).toBe(303);
    const [event] = await eventsOf(key, hook.id);
    expect(event.payload).toEqual({ nome: 'Caio', tel: '11955554444' });
  });

  it('refuses a file sent as the body, sending nothing', async () => {
    const { key, hook, cookie, base } = await setUp('test');
    const form = new FormData();
    form.append('body', new File(['{"tel": "11912345678"}'], 'body.json', { type: 'application/json' }));
    const res = await exports.default.fetch(
      new Request(`${BASE}${base}/sample`, {
        method: 'POST',
        body: form,
        headers: { Cookie: cookie, Origin: BASE },
      }),
    );
    expect(await page(res, 422)).toContain('JSON inválido, nada foi enviado:');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it("refuses a body nested 100,000 deep with the webhook's answer, never a 500", async () => {
    const { key, cookie, base, hook } = await setUp('test');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const html = await page(await panel(`${base}/sample`, { cookie, form: { body: deep } }), 422);
    expect(html).toContain('O webhook recusou o evento:');
    expect((await eventsOf(key, hook.id)).filter((e: { status: string }) => e.status !== 'rejected')).toEqual(
      [],
    );
  });

  it('prefills no reserved key a test event held, and the declared ones still', async () => {
    const { cookie, base, hook } = await setUp('test');
    const raw = '{"tel": "11987654321", "nome": "Ana", "constructor": "x", "__proto__": {"nome": "Eva"}}';
    const res = await call(new URL(hook.url).pathname, {
      method: 'POST',
      body: raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(204);
    const body = JSON.parse(bodyOn(await page(await panel(`${base}/sample`, { cookie })), hook.id));
    expect(Object.keys(body).sort()).toEqual(['nome', 'tel', 'valor', 'veiculo']);
    expect(body.nome).toBe('Ana');
    expect(({} as Record<string, unknown>).nome).toBeUndefined();
  });
});
