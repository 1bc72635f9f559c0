import { describe, expect, it } from 'vitest';
import { call, json, newAccount, newUser, postEvent, roundTrips } from '../helpers';
import { deliver } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';
import { DEALERSHIP } from './dealership';
import { asForm, submitForm } from './form-submit';

// The guided start of a new webhook (issue 41): each step through the panel as a browser uses it.

const hookOf = async (key: string, id: number) =>
  (await json(await call(`/v1/inbound-webhooks/${id}`, { key }))).data;

/** The option a step 3 select has chosen for `key`. */
const picked = (html: string, key: string) => {
  const i = new RegExp(`name="key\\.(\\d+)" value="${key}"`).exec(html)?.[1];
  const select = new RegExp(`<select name="to\\.${i}"[\\s\\S]*?</select>`).exec(html)?.[0] ?? '';
  return /<option value="([^"]*)" selected>([^<]*)</.exec(select)?.slice(1);
};

async function started(name = 'Formulário da loja') {
  const account = await newAccount();
  const cookie = await signIn(account.key);
  const res = await panel('/panel/webhooks/start', { cookie, form: { name } });
  expect(res.status).toBe(303);
  const id = Number(/\/panel\/webhooks\/(\d+)\/start\/2$/.exec(res.headers.get('Location') ?? '')?.[1]);
  const hook = await hookOf(account.key, id);
  return { ...account, cookie, id, hook, base: `/panel/webhooks/${id}/start` };
}

describe('the guided start', () => {
  it('creates a webhook by its name in test mode, then waits for its first event', async () => {
    const { key, cookie, hook, base } = await started();
    expect(hook).toMatchObject({ name: 'Formulário da loja', mode: 'test', fields: [], flows: [] });
    const waiting = await page(await panel(`${base}/2`, { cookie }));
    expect(waiting).toContain('aria-current="step"');
    expect(waiting).toContain('Passo 2 de 6');
    expect(waiting).toContain(hook.url);
    expect(waiting).toContain('data-refresh="pending"');
    // Says that a test lead is not recorded, and what to do about it.
    expect(waiting).toContain(
      'não gravam nada no CRM. Depois de passar para produção (passo 6), peça ao remetente um novo envio.',
    );
    // The curl keeps its lines whole (the box scrolls), one field a line.
    expect(waiting).toContain(`>curl -X POST \\\n  '${hook.url}' \\\n`);
    expect(waiting).toContain('\n    &quot;veiculo&quot;: &quot;Onix LT&quot;,\n');
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const arrived = await page(await panel(`${base}/2`, { cookie }));
    expect(arrived).not.toContain('data-refresh="pending"');
    expect(arrived).toContain('<code>data_compra</code>');
    expect(arrived).toContain('<code>15/03/2025</code>');
    expect(await page(await panel('/panel/webhooks', { cookie }))).toContain('href="/panel/webhooks/start"');
    expect((await hookOf(key, hook.id)).fields).toEqual([]);
  });

  it('refuses a blank name beside its box, creating nothing', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const html = await page(await panel('/panel/webhooks/start', { cookie, form: { name: '' } }), 422);
    expect(html).toContain('id="name-error"');
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toEqual([]);
  });

  it('suggests each target of the dealership example, in words, and saves the fields only', async () => {
    const { key, cookie, hook, base } = await started();
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const html = await page(await panel(`${base}/3`, { cookie }));
    expect(picked(html, 'nome')).toEqual(['contact.name', 'Contato › Nome']);
    expect(picked(html, 'telefone')).toEqual(['contact.phone', 'Contato › Telefone']);
    expect(picked(html, 'email')).toEqual(['contact.email', 'Contato › E-mail']);
    // What the lead wants to buy is the deal's, not the contact's.
    expect(picked(html, 'veiculo')).toEqual(['deal.custom_fields.veiculo', 'Negócio › Campo personalizado']);
    expect(picked(html, 'data_compra')).toEqual([
      'contact.custom_fields.data_compra',
      'Contato › Campo personalizado',
    ]);
    expect(picked(html, 'cnpj')).toEqual(['company.cnpj', 'Empresa › CNPJ']);
    // The date format only beside the date, in Portuguese letters.
    expect(html.match(/Data no formato/g)).toHaveLength(1);
    expect(html).toContain('Data no formato DD/MM/AAAA');
    const path = `${base}/3`;
    const saved = await panel(path, { cookie, form: asForm(submitForm(html, path)) });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe(`${base}/4`);
    const after = await hookOf(key, hook.id);
    expect(after.flows).toEqual([]);
    // No company name mapped: a new CNPJ could make no company, so the sentence says so, unticked.
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    expect(step4).toMatch(
      /<input type="checkbox" name="company" value="on"> Ligar o contato à empresa do CNPJ/,
    );
    expect(after.fields).toEqual([
      { key: 'nome', type: 'string', target: 'contact.name', required: false },
      { key: 'telefone', type: 'phone', target: 'contact.phone', required: false },
      { key: 'email', type: 'email', target: 'contact.email', required: false },
      { key: 'veiculo', type: 'string', target: 'deal.custom_fields.veiculo', required: false },
      {
        key: 'data_compra',
        type: 'date',
        target: 'contact.custom_fields.data_compra',
        formats: ['DD/MM/YYYY'],
        required: false,
      },
      { key: 'cnpj', type: 'cnpj', target: 'company.cnpj', required: false },
    ]);
  });

  it('changes only the fields the person changed: an expert’s settings stay', async () => {
    const { key, cookie, hook, base } = await started();
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const fields = [
      { key: 'telefone', type: 'phone', target: 'contact.phone', required: true },
      { key: 'origem', type: 'string' },
    ];
    await call(`/v1/inbound-webhooks/${hook.id}`, { key, method: 'PUT', body: { fields } });
    const html = await page(await panel(`${base}/3`, { cookie }));
    expect(picked(html, 'telefone')).toEqual(['contact.phone', 'Contato › Telefone']);
    const form = asForm(submitForm(html, `${base}/3`));
    const i = Object.keys(form)
      .find((n) => form[n]?.[0] === 'veiculo')
      ?.split('.')[1];
    form[`to.${i}`] = ['deal.custom_fields.veiculo'];
    expect((await panel(`${base}/3`, { cookie, form })).status).toBe(303);
    const after = await hookOf(key, hook.id);
    expect(after.fields.find((f: { key: string }) => f.key === 'telefone')).toMatchObject({ required: true });
    expect(after.fields.find((f: { key: string }) => f.key === 'origem')).toEqual({
      key: 'origem',
      type: 'string',
      required: false,
    });
    expect(after.fields.find((f: { key: string }) => f.key === 'veiculo')).toMatchObject({
      target: 'deal.custom_fields.veiculo',
    });
  });

  it('escapes hostile keys and values of the example event, and declares no reserved key', async () => {
    const { key, cookie, hook, base } = await started();
    const long = 'k'.repeat(300);
    const body = { '<script>alert(1)</script>': '<img src=x onerror=alert(1)>', [long]: 'v'.repeat(5000) };
    expect(
      (await postEvent(hook.url, JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(body).slice(1)}`))).status,
    ).toBe(204);
    for (const step of [2, 3]) {
      const html = await page(await panel(`${base}/${step}`, { cookie }));
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).not.toContain('__proto__');
      expect(html).not.toContain('v'.repeat(61));
    }
    const html = await page(await panel(`${base}/3`, { cookie }));
    const res = await panel(`${base}/3`, { cookie, form: asForm(submitForm(html, `${base}/3`)) });
    expect(res.status).toBe(303);
    const keys = (await hookOf(key, hook.id)).fields.map((f: { key: string }) => f.key);
    // The key over 200 characters is offered as "not used" only, and so not declared.
    expect(keys).toEqual(['<script>alert(1)</script>']);
    expect(html).toContain('Esta chave não pode ser usada');
  });

  it('turns the ticked sentences into flows, previews a test event and goes live', async () => {
    const { key, cookie, hook, base, id } = await started();
    const ana = await newUser(key, 'Ana');
    const sent = { ...DEALERSHIP, empresa: 'Auto Center Centro' };
    expect((await postEvent(hook.url, sent)).status).toBe(204);
    const map = await page(await panel(`${base}/3`, { cookie }));
    await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    expect(step4).toContain('Criar ou atualizar o contato, encontrado');
    expect(step4).toContain(
      '<label><input type="radio" name="match" value="phone,email" checked> pelo telefone ou, se o lead vier sem telefone, pelo e-mail</label>',
    );
    expect(step4).toContain('Criar ou atualizar a empresa pelo CNPJ');
    // The deal's name: a template of the event's fields, shown with what the example makes of it.
    expect(step4).toContain('name="deal_name" value="{{nome}} - {{veiculo}}"');
    expect(step4).toContain('<code class="chip">{{veiculo}}</code>');
    // panel.js makes each field a button that inserts it, and renders the name again from these values.
    expect(step4).toContain('<button type="button" class="secondary chip" data-insert="{{veiculo}}">');
    expect(step4).toContain('&quot;veiculo&quot;:&quot;Onix LT&quot;');
    expect(step4).toContain('Com o evento de teste: criar o negócio “Ana Souza - Onix LT”.');
    expect(step4).toContain('Responsável: <select name="deal_owner">');
    // Before the flows are saved, step 5 says nothing was tested with them (the step 2 event is older).
    const before = await page(await panel(`${base}/5`, { cookie }));
    expect(before).toContain('Nada foi testado ainda com a configuração atual');
    expect(before).not.toContain('Mandamos de novo');
    const form = { ...asForm(submitForm(step4, `${base}/4`)), deal_owner: [String(ana.id)] };
    const saved = await panel(`${base}/4`, { cookie, form });
    expect(saved.headers.get('Location')).toBe(`${base}/5`);
    const { flows, fields } = await hookOf(key, id);
    expect(fields).toHaveLength(7);
    expect(flows).toEqual([
      { action: 'upsert_contact', match_on: ['phone', 'email'] },
      { action: 'upsert_company' },
      { action: 'create_deal', name: '{{nome}} - {{veiculo}}', owner: { user_id: ana.id } },
    ]);
    // Flows made already are never replaced from here.
    await panel(`${base}/4`, { cookie, form: { contact: 'on' } });
    expect((await hookOf(key, id)).flows).toEqual(flows);
    // The test: the example sent again in test mode, previewed in sentences, nothing written.
    expect((await panel(`${base}/5`, { cookie, form: {} })).status).toBe(303);
    const [newest] = (await json(await call(`/v1/inbound-webhooks/${id}/events`, { key }))).data;
    expect(newest.status).toBe('pending');
    expect(await page(await panel(`${base}/5`, { cookie }))).toContain('data-refresh="pending"');
    await deliver([newest.id]);
    const preview = await page(await panel(`${base}/5`, { cookie }));
    expect(preview).toContain('para Ana');
    expect(preview).toContain('Ana Souza - Onix LT');
    // The summary lists the custom fields too: the vehicle on the deal, the purchase date on the
    // contact, as a person in Brazil writes a date.
    expect(preview).toContain('(veiculo: Onix LT)');
    expect(preview).toContain('data_compra: 15/03/2025');
    expect((await json(await call('/v1/contacts', { key }))).data).toEqual([]);
    // Live.
    const live = await page(await panel(`${base}/6`, { cookie }));
    const path = `/panel/webhooks/${id}/mode`;
    const golive = await panel(path, { cookie, form: asForm(submitForm(live, path)) });
    expect(golive.status).toBe(303);
    expect((await hookOf(key, id)).mode).toBe('production');
    // Back to the last step, now a summary: what is left to do, the URL for the sender, where to
    // watch and change it. The mode banner alone says it is live, not a second sentence alike.
    expect(golive.headers.get('Location')).toBe(`${base}/6`);
    const done = await page(await panel(golive.headers.get('Location') ?? '', { cookie }));
    expect(done.match(/grava registros no CRM/g)).toHaveLength(1);
    expect(done).toContain('<p class="banner production"');
    expect(done).not.toContain('class="flash');
    expect(done).toContain('peça ao remetente um novo envio');
    expect(done).toContain('O remetente envia cada lead para este endereço:');
    expect(done).toContain((await hookOf(key, id)).url);
    expect(done).toContain(`<a href="/panel/webhooks/${id}/events">Ver os eventos que chegarem`);
    expect(done).toContain(`<a href="/panel/webhooks/${id}">Visão geral, configurações e modo de teste</a>`);
  });

  it('after a save on the full form of a webhook not live yet, links back to the steps', async () => {
    const { key, cookie, id } = await started();
    const path = `/panel/webhooks/${id}`;
    const full = await page(await panel(path, { cookie }));
    const saved = await panel(path, { cookie, form: asForm(submitForm(full, path)) });
    expect(saved.status).toBe(303);
    const after = await page(await panel(saved.headers.get('Location') ?? '', { cookie }));
    expect(after).toContain(`Salvo. <a href="/panel/webhooks/${id}/start/5">Voltar ao passo a passo`);
    const step6 = await page(await panel(`${path}/start/6`, { cookie }));
    const mode = `${path}/mode`;
    // The page to come back to is a panel path or nothing: another site's is never followed.
    for (const next of ['//evil.example/x', 'https://evil.example/panel', '/panel\\evil']) {
      const form = { ...asForm(submitForm(step6, mode)), next };
      const back = await panel(mode, { cookie, form });
      expect(back.headers.get('Location'), next).toBe(`${path}?done=production`);
    }
    expect((await panel(mode, { cookie, form: asForm(submitForm(step6, mode)) })).status).toBe(303);
    expect((await hookOf(key, id)).mode).toBe('production');
    const live = await panel(path, { cookie, form: asForm(submitForm(full, path)) });
    const shown = await page(await panel(live.headers.get('Location') ?? '', { cookie }));
    expect(shown).toContain('Salvo.');
    expect(shown).not.toContain('Voltar ao passo a passo');
  });

  it('finds the contact as the person picked and names the deal as they typed it', async () => {
    const { key, cookie, hook, base, id } = await started();
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const map = await page(await panel(`${base}/3`, { cookie }));
    await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    expect(step4).toContain('<label><input type="radio" name="match" value="phone"> pelo telefone</label>');
    expect(step4).toContain('<label><input type="radio" name="match" value="email"> pelo e-mail</label>');
    const form = {
      ...asForm(submitForm(step4, `${base}/4`)),
      match: ['phone'],
      deal_name: ['{{veiculo}} para {{nome}}'],
    };
    expect((await panel(`${base}/4`, { cookie, form })).headers.get('Location')).toBe(`${base}/5`);
    expect((await hookOf(key, id)).flows).toEqual([
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: '{{veiculo}} para {{nome}}' },
    ]);
  });

  it('keeps a refused deal name in its box with the error in words', async () => {
    const { key, cookie, hook, base, id } = await started();
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const map = await page(await panel(`${base}/3`, { cookie }));
    await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    const form = { ...asForm(submitForm(step4, `${base}/4`)), deal_name: ['{{modelo}} <b>'] };
    const refused = await page(await panel(`${base}/4`, { cookie, form }), 422);
    expect(refused).toContain('value="{{modelo}} &lt;b&gt;"');
    expect(refused).toMatch(/<li>Ação \d · Criar negócio: [^<]+<\/li>/);
    expect((await hookOf(key, id)).flows).toEqual([]);
  });

  it('saves each step in at most two round trips: the read the page shows, then the write', async () => {
    const { key, cookie, hook, base, id } = await started();
    const ana = await newUser(key, 'Ana');
    const created = await panel('/panel/webhooks/start', { cookie, form: { name: 'Outro' } });
    expect(roundTrips(created)).toBe(2);
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const map = await page(await panel(`${base}/3`, { cookie }));
    const mapped = await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    expect(mapped.headers.get('Location')).toBe(`${base}/4`);
    expect(roundTrips(mapped)).toBe(2);
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    const form = { ...asForm(submitForm(step4, `${base}/4`)), task: ['on'], task_owner: [String(ana.id)] };
    const flowed = await panel(`${base}/4`, { cookie, form });
    expect(flowed.headers.get('Location')).toBe(`${base}/5`);
    expect(roundTrips(flowed)).toBe(2);
    const { flows } = await hookOf(key, id);
    expect(flows.at(-1)).toMatchObject({ action: 'create_task', owner: { user_id: ana.id } });
    // Nothing changed: the read alone.
    const again = await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    expect(roundTrips(again)).toBe(1);
  });

  it('names the action of a refused owner, never its path', async () => {
    const { key, cookie, hook, base, id } = await started();
    const ana = await newUser(key, 'Ana');
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    const map = await page(await panel(`${base}/3`, { cookie }));
    await panel(`${base}/3`, { cookie, form: asForm(submitForm(map, `${base}/3`)) });
    const step4 = await page(await panel(`${base}/4`, { cookie }));
    // Picked on a page loaded before she was put in the trash.
    expect((await call(`/v1/users/${ana.id}`, { method: 'DELETE', key })).status).toBe(204);
    const form = { ...asForm(submitForm(step4, `${base}/4`)), deal: ['on'], deal_owner: [String(ana.id)] };
    const refused = await page(await panel(`${base}/4`, { cookie, form }), 422);
    expect(refused).toMatch(/<li>Ação \d · Criar negócio: Nenhum usuário \d+ nesta conta\.<\/li>/);
    expect(refused).not.toContain('flows.');
    expect((await hookOf(key, id)).flows).toEqual([]);
  });

  it('is another account’s webhook: not found at every step', async () => {
    const { id, cookie } = await started();
    const other = await signIn((await newAccount('B')).key);
    for (const step of [2, 3, 4, 5, 6])
      expect((await panel(`/panel/webhooks/${id}/start/${step}`, { cookie: other })).status).toBe(404);
    expect(
      (await panel(`/panel/webhooks/${id}/start/3`, { cookie: other, form: { 'key.0': 'x', 'to.0': '' } }))
        .status,
    ).toBe(404);
    // The owner's own webhook: only the steps' numbers are pages.
    for (const step of ['1', '7', '02', '2.0', '1e0'])
      expect((await panel(`/panel/webhooks/${id}/start/${step}`, { cookie })).status, step).toBe(404);
  });

  it('reads each step in one round trip, and refuses a post from another site, changing nothing', async () => {
    const { key, cookie, hook, base, id } = await started();
    expect((await postEvent(hook.url, DEALERSHIP)).status).toBe(204);
    for (const step of [2, 3, 4, 5, 6]) {
      const res = await panel(`${base}/${step}`, { cookie });
      await page(res);
      expect(roundTrips(res), `step ${step}`).toBe(1);
    }
    const html = await page(await panel(`${base}/3`, { cookie }));
    const form = asForm(submitForm(html, `${base}/3`));
    for (const origin of ['https://evil.example', null]) {
      expect((await panel(`${base}/3`, { cookie, form, origin })).status).toBe(403);
      expect((await panel(`${base}/4`, { cookie, form: { contact: 'on', deal: 'on' }, origin })).status).toBe(
        403,
      );
      expect((await panel(`${base}/5`, { cookie, form: {}, origin })).status).toBe(403);
    }
    expect(await hookOf(key, id)).toMatchObject({ fields: [], flows: [] });
    expect((await json(await call(`/v1/inbound-webhooks/${id}/events`, { key }))).data).toHaveLength(1);
  });
});
