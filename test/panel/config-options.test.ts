import { describe, expect, it } from 'vitest';
import { call, create, json, newAccount, roundTrips } from '../helpers';
import { page, panel, signIn } from './browser';
import { asForm, submitForm } from './form-submit';

const configOf = async (key: string, id: number) =>
  (await json(await call(`/v1/inbound-webhooks/${id}`, { key }))).data;

/** The edit page's form as a browser would submit it, after `change` edits its entries. */
async function browserForm(cookie: string, id: number, change = (form: Record<string, string[]>) => form) {
  const path = `/panel/webhooks/${id}`;
  return change(asForm(submitForm(await page(await panel(path, { cookie })), path)));
}

/** The option boxes of flow block `i` on a page, with whether each is hidden. */
function optionBoxes(html: string, i: number | '__i__'): Record<string, boolean> {
  const start = html.indexOf(`name="flows.${i}.action"`);
  const end = html.indexOf('<fieldset class="flow">', start);
  const block = html.slice(start, end < 0 ? undefined : end);
  const out: Record<string, boolean> = {};
  for (const m of block.matchAll(
    /<div class="option" data-actions="[^"]*"( hidden)?>.*?name="flows\.(?:\d+|__i__)\.([a-z_]+)/gs,
  )) {
    out[m[2] ?? ''] = m[1] !== undefined;
  }
  return out;
}

const FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead site - {{modelo|sem modelo}}' },
  {
    action: 'create_task',
    name: 'Ligar',
    category: 'Contato',
    description: 'Primeiro contato',
    due: { from: 'received_at', days: 1, hours: 2 },
  },
];
const FIELDS = [
  { key: 'tel', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'modelo', type: 'string' },
  { key: 'valor', type: 'number', locale: 'pt-BR', target: 'deal.value' },
];

describe('the fields table', () => {
  it('shows the example values of the latest test events, escaped, in the one round trip', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Site',
      mode: 'test',
      fields: FIELDS,
      flows: FLOWS,
    });
    const path = new URL(hook.url).pathname;
    for (const modelo of ['Onix', '<script>alert(1)</script>', 'Onix'])
      expect(
        (await call(path, { method: 'POST', body: { tel: '11987654321', modelo, valor: '89.900,00' } }))
          .status,
      ).toBe(204);
    const cookie = await signIn(key);
    const res = await panel(`/panel/webhooks/${hook.id}`, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = await page(res);
    expect(html).toContain(
      '<li><code>Onix</code></li><li><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></li>',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('<li><code>89.900,00</code></li>');
    expect(html).toMatch(/name="fields\.2\.locale" value="pt-BR"[^>]* checked>/);
    expect(html).toContain('id="formats-hint"');
  });

  it('saves the Brazilian-format box, keeps it on an unchanged save, and refuses it on a text field', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows: FLOWS });
    const cookie = await signIn(key);
    const ticked = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'fields.3.key': ['troca'],
      'fields.3.type': ['boolean'],
      'fields.3.locale': ['pt-BR'],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: ticked })).status).toBe(303);
    const stored = await configOf(key, hook.id);
    expect(stored.fields[3]).toEqual({ key: 'troca', type: 'boolean', required: false, locale: 'pt-BR' });
    expect(stored.fields.slice(0, 3)).toEqual(hook.fields);
    const same = await browserForm(cookie, hook.id, (f) => ({ ...f, name: ['Site 2'] }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: same })).status).toBe(303);
    expect((await configOf(key, hook.id)).fields).toEqual(stored.fields);
    const wrong = await browserForm(cookie, hook.id, (f) => ({ ...f, 'fields.1.locale': ['pt-BR'] }));
    const refused = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie, form: wrong }), 422);
    expect(refused).toContain(
      'id="err-fields-1-locale">Só um campo do tipo Número ou Sim/não aceita o formato brasileiro.',
    );
    expect((await configOf(key, hook.id)).fields).toEqual(stored.fields);
  });
});

describe('filling from test events', () => {
  it('offers a Brazilian price as a number and sim as a boolean, each with the Brazilian format ticked', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', mode: 'test' });
    const sent = { preco: 'R$ 89.900,00', financiar: 'sim', nome: 'Ana' };
    expect((await call(new URL(hook.url).pathname, { method: 'POST', body: sent })).status).toBe(204);
    const cookie = await signIn(key);
    const path = `/panel/webhooks/${hook.id}`;
    const rows = asForm(submitForm(await page(await panel(`${path}?sample=1`, { cookie })), path));
    const row = (k: string) => {
      const i =
        rows['fields.0.key'] &&
        Object.keys(rows).find((n) => /^fields\.\d+\.key$/.test(n) && rows[n]?.[0] === k);
      const prefix = i?.replace(/key$/, '') ?? '';
      return { type: rows[`${prefix}type`]?.[0], locale: rows[`${prefix}locale`]?.[0] };
    };
    expect(row('preco')).toEqual({ type: 'number', locale: 'pt-BR' });
    expect(row('financiar')).toEqual({ type: 'boolean', locale: 'pt-BR' });
    expect(row('nome')).toEqual({ type: 'string', locale: undefined });
  });
});

describe('the flow blocks', () => {
  it("show only their action's options, a blank block all of them, and up/down buttons", async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows: FLOWS });
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    const all = { match_on: false, name: false, category: false, description: false, due: false };
    expect(optionBoxes(html, 0)).toEqual({
      ...all,
      name: true,
      category: true,
      description: true,
      due: true,
    });
    expect(optionBoxes(html, 1)).toEqual({
      ...all,
      match_on: true,
      category: true,
      description: true,
      due: true,
    });
    expect(optionBoxes(html, 2)).toEqual({ ...all, match_on: true });
    // No blank block: "Adicionar uma ação" adds one from the template, which shows them all.
    expect(html).not.toContain('name="flows.3.action"');
    expect(optionBoxes(html, '__i__')).toEqual(all);
    expect(html).toContain('Nome (modelo) (Criar negócio, Criar tarefa)');
    expect(html.match(/class="js-move" data-step="-1"/g)).toHaveLength(4);
  });

  it('keep every option of a stored flow on a save that changes another block', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows: FLOWS });
    const cookie = await signIn(key);
    const form = await browserForm(cookie, hook.id, (f) => ({ ...f, 'flows.1.name': ['Lead {{modelo|?}}'] }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form })).status).toBe(303);
    const flows = (await configOf(key, hook.id)).flows;
    expect(flows).toEqual([FLOWS[0], { action: 'create_deal', name: 'Lead {{modelo|?}}' }, FLOWS[2]]);
  });

  it('move by the position numbers without the script', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Site',
      fields: FIELDS,
      flows: [...FLOWS, { action: 'create_task', name: 'Depois', category: 'Contato' }],
    });
    const cookie = await signIn(key);
    const form = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'flows.2.position': ['4'],
      'flows.3.position': ['3'],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows.map((a: { name?: string }) => a.name)).toEqual([
      undefined,
      FLOWS[1]?.name,
      'Depois',
      'Ligar',
    ]);
  });

  it('take a round robin as boxes, round trip it, and change it when the ticks change', async () => {
    const { key } = await newAccount();
    const ana = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const bia = await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const caio = await create(key, '/v1/users', { name: 'Caio', email: 'caio@example.com' });
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows: FLOWS });
    const cookie = await signIn(key);
    const ticked = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'flows.1.round_robin': [String(caio.id), String(ana.id)],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: ticked })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows[1].owner).toEqual({ round_robin: [caio.id, ana.id] });
    const html = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(html).toContain(
      `name="flows.1.round_robin" value="${caio.id}" checked> Caio</label><label><input type="checkbox" name="flows.1.round_robin" value="${ana.id}" checked> Ana`,
    );
    expect(html).toContain(`name="flows.1.round_robin" value="${bia.id}"> Bia`);
    const same = await browserForm(cookie, hook.id, (f) => ({ ...f, name: ['Outro'] }));
    expect(same['flows.1.round_robin']).toEqual([String(caio.id), String(ana.id)]);
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: same })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows[1].owner).toEqual({ round_robin: [caio.id, ana.id] });
  });

  it('change a rotation that names a user twice only when its ticks change', async () => {
    const { key } = await newAccount();
    const ana = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const bia = await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const twice = { round_robin: [ana.id, bia.id, ana.id] };
    const flows = [FLOWS[0], { ...FLOWS[1], owner: twice }];
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows });
    const cookie = await signIn(key);
    // Another change to the flows half: the rotation is kept whole.
    const other = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'flows.1.name': ['Lead'],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: other })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows[1].owner).toEqual(twice);
    const unticked = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'flows.1.round_robin': [String(bia.id)],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: unticked })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows[1].owner).toEqual({ round_robin: [bia.id] });
  });

  it('ignore a forged rotation longer than any a webhook holds, taking the ticked users', async () => {
    const { key } = await newAccount();
    const ana = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Site', fields: FIELDS, flows: FLOWS });
    const cookie = await signIn(key);
    const forged = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      'flows.1.round_robin': [String(ana.id)],
      'flows.1.round_robin.kept': [Array(60_000).fill(ana.id).join(',')],
    }));
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form: forged })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows[1].owner).toEqual({ round_robin: [ana.id] });
  });
});
