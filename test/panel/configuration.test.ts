import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { bodyOf, changedOnly, draftFromForm } from '../../src/panel/form';
import { accountsOnShard, call, create, json, newAccount } from '../helpers';
import { deliver, eventLog, get } from '../queue/webhook-support';
import { page, panel, signIn } from './browser';
import { asForm, submitForm } from './form-submit';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const configOf = async (key: string, id: number) => {
  const { data } = await json(await call(`/v1/inbound-webhooks/${id}`, { key }));
  return { name: data.name, fields: data.fields, flows: data.flows, updated_at: data.updated_at };
};

/** The edit page's form as a browser would submit it, after `change` edits its entries. */
async function browserForm(cookie: string, id: number, change = (form: Record<string, string[]>) => form) {
  const path = `/panel/webhooks/${id}`;
  return change(asForm(submitForm(await page(await panel(path, { cookie })), path)));
}

describe('saving the edit page', () => {
  it('shows the date formats box on a date field only, hidden (still sent) on the others', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Agenda',
      fields: [
        { key: 'nome', type: 'string' },
        { key: 'visita', type: 'date' },
      ],
    });
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie: await signIn(key) }));
    const box = (i: number | '__i__') =>
      new RegExp(`<textarea name="fields\\.${i}\\.formats"[^>]*>`).exec(edit)?.[0] ?? '';
    expect(box(0)).toContain(' hidden');
    expect(box(1)).not.toContain(' hidden');
    // A row added (the template of "Adicionar um campo") is text until its type is changed, so
    // its box waits for panel.js too; no blank row is shown before it is asked for.
    expect(box('__i__')).toContain(' hidden');
    expect(box(2)).toBe('');
    expect(submitForm(edit, `/panel/webhooks/${hook.id}`).map(([n]) => n)).toContain('fields.0.formats');
  });

  it('adds a field or an action without JS: the form again with one more row, all typed kept, nothing saved', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Agenda',
      fields: [{ key: 'nome', type: 'email', target: 'contact.email' }],
      flows: [{ action: 'upsert_contact', match_on: ['email'] }],
    });
    const cookie = await signIn(key);
    const path = `/panel/webhooks/${hook.id}`;
    const before = await configOf(key, hook.id);
    const edit = await page(await panel(path, { cookie }));
    // No fixed blank rows: one row per stored field and action, then the buttons.
    expect(edit).not.toContain('name="fields.1.key"');
    expect(edit).not.toContain('name="flows.1.action"');
    expect(edit).toContain('>Adicionar um campo</button>');
    expect(edit).toContain('>Adicionar uma ação</button>');
    // Enter in a box saves: the form's first submit button is the save, not an add button.
    const form = edit.slice(edit.indexOf(`<form method="post" action="${path}"`));
    expect(/<button type="submit"([^>]*)>([^<]*)</.exec(form)?.slice(1)).toEqual([
      ' class="visually-hidden" tabindex="-1" aria-hidden="true"',
      'Salvar',
    ]);
    const typed = await browserForm(cookie, hook.id, (f) => ({
      ...f,
      name: ['Agenda da loja'],
      'fields.0.key': ['nome_completo'],
      add: ['field'],
    }));
    const once = await panel(path, { cookie, form: typed });
    const more = await page(once);
    expect(await configOf(key, hook.id)).toEqual(before);
    expect(more).toContain('value="Agenda da loja"');
    expect(more).toContain('name="fields.0.key" value="nome_completo"');
    expect(more).toMatch(/<input name="fields\.1\.key" value="" aria-label="Chave 2" autofocus>/);
    // A second add, of an action: both new rows there, the field still blank.
    const twice = asForm(submitForm(more, path));
    const actions = await page(await panel(path, { cookie, form: { ...twice, add: ['flow'] } }));
    expect(actions).toContain('name="fields.1.key"');
    expect(actions).toMatch(/<select name="flows\.1\.action" class="js-action" autofocus>/);
    expect(await configOf(key, hook.id)).toEqual(before);
    // Filled and saved: the new rows are written, the blank action left out.
    const filled = {
      ...asForm(submitForm(actions, path)),
      'fields.1.key': ['telefone'],
      'fields.1.type': ['phone'],
    };
    expect((await panel(path, { cookie, form: filled })).status).toBe(303);
    const after = await configOf(key, hook.id);
    expect(after.name).toBe('Agenda da loja');
    expect(after.fields.map((f: { key: string }) => f.key)).toEqual(['nome_completo', 'telefone']);
    expect(after.flows).toEqual(before.flows);
  });

  it('adds rows to a new webhook without JS, creating nothing until it is saved', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const blank = await page(await panel('/panel/webhooks/new', { cookie }));
    expect(blank).toContain('name="fields.0.key"');
    expect(blank).not.toContain('name="fields.1.key"');
    expect(blank).not.toContain('name="flows.0.action"');
    const form = { ...asForm(submitForm(blank, '/panel/webhooks')), name: ['Site'], add: ['flow'] };
    const more = await page(await panel('/panel/webhooks', { cookie, form }));
    expect(more).toContain('value="Site"');
    expect(more).toContain('name="flows.0.action"');
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toEqual([]);
  });

  it('a format left on a field no longer a date (no JS to hide it): said beside the box, kept, nothing saved', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Agenda',
      fields: [{ key: 'visita', type: 'date', formats: ['DD/MM/YYYY'] }],
    });
    const cookie = await signIn(key);
    const before = await configOf(key, hook.id);
    const form = await browserForm(cookie, hook.id, (f) => ({ ...f, 'fields.0.type': ['string'] }));
    const html = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie, form }), 422);
    expect(html).toMatch(
      /<textarea name="fields\.0\.formats"[^>]*aria-invalid="true"[^>]*>\nDD\/MM\/AAAA<\/textarea>/,
    );
    expect(html).toContain('id="err-fields-0-formats">Só um campo do tipo Data aceita formatos.');
    expect(await configOf(key, hook.id)).toEqual(before);
  });

  it('keeps the date formats of an unchanged page, and DD/MM/YYYY leads are taken after it', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Agenda',
      mode: 'test',
      fields: [{ key: 'visita', type: 'date', required: true, formats: ['DD/MM/YYYY', 'DD-MM-YYYY HH:mm'] }],
    });
    const cookie = await signIn(key);
    // Shown as a Portuguese speaker writes it (AAAA, ano), stored as YYYY.
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toMatch(
      /<textarea name="fields\.0\.formats"[^>]*placeholder="DD\/MM\/AAAA"[^>]*>\nDD\/MM\/AAAA\nDD-MM-AAAA HH:mm<\/textarea>/,
    );
    expect(edit).toContain('por exemplo DD/MM/AAAA ou DD/MM/AAAA HH:mm');
    expect(edit).not.toContain('YYYY');
    const english = await page(
      await panel(`/panel/webhooks/${hook.id}`, { cookie, headers: { 'Accept-Language': 'en' } }),
    );
    expect(english).toMatch(/>\nDD\/MM\/YYYY\nDD-MM-YYYY HH:mm<\/textarea>/);
    // An unchanged page matches its digest as shown: nothing is written.
    const unchanged = await browserForm(cookie, hook.id);
    expect(unchanged['fields.0.formats']).toEqual(['DD/MM/AAAA\r\nDD-MM-AAAA HH:mm']);
    const { body } = bodyOf(draftFromForm(unchanged));
    expect(await changedOnly(body, unchanged)).toEqual({ name: 'Agenda' });
    const form = await browserForm(cookie, hook.id, (f) => {
      // A page whose fields half changed elsewhere still sends the formats as shown.
      delete f['was.fields'];
      return f;
    });
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form })).status).toBe(303);
    expect((await configOf(key, hook.id)).fields).toEqual(hook.fields);
    const sent = await call(new URL(hook.url).pathname, { method: 'POST', body: { visita: '25/12/2026' } });
    expect(sent.status).toBe(204);
  });

  it('edits the formats one per line, and shows a refused one next to its box', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Agenda',
      fields: [{ key: 'd', type: 'date' }],
    });
    const cookie = await signIn(key);
    const typed = (formats: string) =>
      browserForm(cookie, hook.id, (f) => ({ ...f, 'fields.0.formats': [formats] }));
    const res = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: await typed('MM/DD/AAAA\r\n\r\nYYYY.MM.DD'),
    });
    expect(res.status).toBe(303);
    expect((await configOf(key, hook.id)).fields).toEqual([
      { key: 'd', type: 'date', required: false, formats: ['MM/DD/YYYY', 'YYYY.MM.DD'] },
    ]);
    const bad = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: await typed('DD/MM/AAAA\r\nDD/MM/QQQQ'),
    });
    expect(await page(bad, 422)).toMatch(
      /aria-describedby="err-fields-0-formats">\nDD\/MM\/AAAA\nDD\/MM\/QQQQ<\/textarea><span class="error" id="err-fields-0-formats">Parte desconhecida “QQQQ”: use AAAA \(ano\)/,
    );
    const twice = await panel(`/panel/webhooks/${hook.id}`, { cookie, form: await typed('AAAA/MM/DD AAAA') });
    expect(await page(twice, 422)).toContain('AAAA aparece duas vezes.');
  });

  it('shows an owner in the trash as such and keeps them on an unchanged save', async () => {
    const { key } = await newAccount();
    const ana = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const bia = await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const flows = [
      { action: 'upsert_contact', match_on: ['email', 'phone'], owner: { user_id: bia.id } },
      { action: 'create_deal', name: 'Lead', owner: { round_robin: [bia.id, ana.id, bia.id] } },
    ];
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Leads',
      fields: [
        { key: 'tel', type: 'phone', target: 'contact.phone' },
        { key: 'mail', type: 'email', target: 'contact.email' },
      ],
      flows,
    });
    expect((await call(`/v1/users/${bia.id}`, { method: 'DELETE', key })).status).toBe(204);
    const cookie = await signIn(key);
    const before = await configOf(key, hook.id);
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toContain(`<option value="${bia.id}" selected>Bia (na lixeira)</option>`);
    const english = await page(
      await panel(`/panel/webhooks/${hook.id}`, { cookie, headers: { 'Accept-Language': 'en' } }),
    );
    expect(english).toContain(`<option value="${bia.id}" selected>Bia (in the trash)</option>`);
    const form = await browserForm(cookie, hook.id);
    expect(form['flows.0.match_on']).toEqual(['email', 'phone']);
    // Boxes cannot hold Bia twice: the rotation travels whole, and the page says so.
    expect(form['flows.1.round_robin']).toEqual([bia.id, ana.id].map(String));
    expect(form['flows.1.round_robin.kept']).toEqual([[bia.id, ana.id, bia.id].join(',')]);
    expect(edit).toContain('Aparecem mais de uma vez: Bia (na lixeira).');
    expect(
      (await panel(`/panel/webhooks/${hook.id}`, { cookie, form: { ...form, name: ['Leads 2'] } })).status,
    ).toBe(303);
    const after = await configOf(key, hook.id);
    expect(after).toMatchObject({ name: 'Leads 2', fields: before.fields, flows });
    // A change to the flows with her still in them is refused at her select, and changes nothing.
    const changed = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: { ...form, 'flows.1.name': ['Lead novo'] },
    });
    // She is named as the page knows her, never by her id.
    const refusedPage = await page(changed, 422);
    expect(refusedPage).toMatch(
      /aria-describedby="err-flows-0-owner">.*<span class="error" id="err-flows-0-owner">Bia está na lixeira: escolha outro responsável\.</,
    );
    // Named twice in the rotation, said once.
    expect(refusedPage).toContain(
      '<span class="error" id="err-flows-1-round_robin">Bia está na lixeira: escolha outro responsável.</span>',
    );
    expect(refusedPage).not.toMatch(new RegExp(`usuário #?${bia.id}\\b`));
    const refusedEn = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      headers: { 'Accept-Language': 'en' },
      form: { ...form, 'flows.1.name': ['Lead novo'] },
    });
    expect(await page(refusedEn, 422)).toContain('Bia is in the trash: pick another owner.');
    expect((await configOf(key, hook.id)).flows).toEqual(flows);
  });

  it('leaves a half the API stored with CR line breaks alone on an unchanged save', async () => {
    // The API takes any JSON string: a client may store CRLF (or a lone CR), which no browser
    // sends back as such. An unchanged save must still match the digest and write nothing.
    const { key } = await newAccount();
    const bia = await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
    const flows = [
      { action: 'create_deal', name: 'Lead' },
      {
        action: 'create_task',
        name: 'Ligar\rhoje',
        category: 'Lead',
        description: 'Linha 1\r\nLinha 2\rLinha 3',
        owner: { user_id: bia.id },
      },
    ];
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads', flows });
    expect((await call(`/v1/users/${bia.id}`, { method: 'DELETE', key })).status).toBe(204);
    const cookie = await signIn(key);
    const form = await browserForm(cookie, hook.id);
    const res = await panel(`/panel/webhooks/${hook.id}`, { cookie, form: { ...form, name: ['Leads 2'] } });
    expect(res.status).toBe(303);
    expect((await configOf(key, hook.id)).flows).toEqual(flows);
  });

  it('names an owner past the first 500 users the selects list', async () => {
    const { id: accountId, key } = await newAccount();
    const now = Date.now();
    await env.DB.prepare(
      `insert into users (account_id, name, name_norm, email, email_norm, created_at, updated_at)
       with recursive n(i) as (select 1 union all select i + 1 from n where i < 500)
       select ?1, 'Aa ' || i, 'aa ' || i, 'u' || i || '@x.com', 'u' || i || '@x.com', ?2, ?2 from n`,
    )
      .bind(accountId, now)
      .run();
    const ze = await create(key, '/v1/users', { name: 'Zé', email: 'ze@example.com' });
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Leads',
      fields: [{ key: 'nome', type: 'string', target: 'deal.name' }],
      flows: [{ action: 'create_deal', owner: { user_id: ze.id } }],
    });
    const cookie = await signIn(key);
    const edit = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie }));
    expect(edit).toContain(`<option value="${ze.id}" selected>Zé</option>`);
  });

  it('keeps a when value of another kind than its field, and an exists with a value', async () => {
    const { key } = await newAccount();
    const fields = [
      { key: 'valor', type: 'number', required: false },
      { key: 'nome', type: 'string', required: false, target: 'deal.name' },
    ];
    const flows = [
      { action: 'create_deal', when: { field: 'valor', op: 'contains', value: '10' } },
      { action: 'create_task', name: 'a', category: 'b', when: { field: 'nome', op: 'contains', value: 7 } },
      { action: 'create_task', name: 'a', category: 'b', when: { field: 'nome', op: 'exists', value: true } },
      { action: 'create_task', name: 'a', category: 'b', when: { field: 'nome', op: 'equals', value: '' } },
    ];
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Kinds', fields, flows });
    const cookie = await signIn(key);
    const form = await browserForm(cookie, hook.id, ({ 'was.flows': _, ...f }) => f);
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form })).status).toBe(303);
    expect((await configOf(key, hook.id)).flows).toEqual(flows);
    const wrong = await panel(`/panel/webhooks/${hook.id}`, {
      cookie,
      form: { ...form, 'flows.0.when.kind': ['number'], 'flows.0.when.value': ['dez'] },
    });
    expect(await page(wrong, 422)).toMatch(/aria-describedby="err-flows-0-when-value"/);
  });
});

describe('fill from test events', () => {
  it('adds keys only up to the 100 fields a webhook holds, and says some did not fit', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Largo', mode: 'test' });
    const body = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, 'v']));
    expect((await call(new URL(hook.url).pathname, { method: 'POST', body })).status).toBe(204);
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/webhooks/${hook.id}?sample=1`, { cookie }));
    expect(html).toContain('Alguns campos não couberam');
    expect(html.match(/name="fields\.\d+\.key" value="k\d+"/g)).toHaveLength(100);
  });
});

describe('an empty task description', () => {
  it('is stored as none, as a task stores it, so a form reads the flow back as it was', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Vazio',
      fields: [{ key: 'nome', type: 'string', target: 'deal.name' }],
      flows: [
        { action: 'create_deal' },
        { action: 'create_task', name: 'a', category: 'b', description: '' },
      ],
    });
    expect(hook.flows[1]).toEqual({ action: 'create_task', name: 'a', category: 'b' });
  });
});

describe('a form with more rows than a webhook holds', () => {
  const rows = (n: number, row: (i: number) => Record<string, string>) =>
    Object.assign({}, ...Array.from({ length: n }, (_, i) => row(i)));
  const fieldRows = (n: number) =>
    rows(n, (i) => ({ [`fields.${i}.key`]: `k${i}`, [`fields.${i}.type`]: 'string' }));
  const flowRows = (n: number) =>
    rows(n, (i) => ({
      [`flows.${i}.action`]: 'create_task',
      [`flows.${i}.name`]: 'x',
      [`flows.${i}.category`]: 'y',
    }));

  it('is refused before its rows are shown again: 1,000 rows, 1,000 flow blocks, or 1,000 blank ones', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads' });
    const cookie = await signIn(key);
    for (const [path, form] of [
      [`/panel/webhooks/${hook.id}`, { name: 'x', ...fieldRows(1000), ...flowRows(1000) }],
      [`/panel/webhooks/${hook.id}`, { name: 'x', ...fieldRows(101) }],
      [`/panel/webhooks/${hook.id}`, { name: 'x', ...flowRows(21) }],
      [
        `/panel/webhooks/${hook.id}`,
        { name: 'x', ...rows(1000, (i) => ({ [`fields.${i}.type`]: 'string' })) },
      ],
      ['/panel/webhooks', { name: 'x', ...fieldRows(1000), ...flowRows(1000) }],
    ] as const) {
      const res = await panel(path, { cookie, form });
      const html = await page(res, 422);
      expect(html).toContain('no máximo 100 campos e 20 ações');
      expect(html.length).toBeLessThan(5000);
    }
    expect((await configOf(key, hook.id)).name).toBe('Leads');
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toHaveLength(1);
  });

  it('is refused before it is read when one control sends more values than it takes: a round robin repeated 40,000 times, match_on thrice', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads' });
    const cookie = await signIn(key);
    const base = {
      name: 'x',
      'fields.0.key': 'telefone',
      'fields.0.type': 'phone',
      'fields.0.target': 'contact.phone',
      'flows.0.action': 'upsert_contact',
    };
    const extras: Record<string, string[]>[] = [
      { 'flows.0.round_robin': Array.from({ length: 40_000 }, () => '1') },
      { 'flows.0.round_robin': Array.from({ length: 101 }, (_, i) => String(i + 1)) },
      { 'flows.0.match_on': ['phone', 'email', 'phone'] },
      { 'flows.0.name': Array.from({ length: 1000 }, () => 'x'.repeat(100)) },
    ];
    for (const extra of extras) {
      for (const path of [`/panel/webhooks/${hook.id}`, '/panel/webhooks']) {
        const res = await panel(path, { cookie, form: { ...base, ...extra } });
        const html = await page(res, 422);
        expect(html).toContain('no máximo 100 campos e 20 ações');
        expect(html.length).toBeLessThan(5000);
      }
    }
    expect((await configOf(key, hook.id)).name).toBe('Leads');
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toHaveLength(1);
  });

  it('is taken up to the limits', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads' });
    const cookie = await signIn(key);
    const form = {
      name: 'Cheio',
      ...fieldRows(100),
      'fields.0.target': 'deal.name',
      ...rows(3, (i) => ({ [`fields.${100 + i}.key`]: '', [`fields.${100 + i}.type`]: 'string' })),
      'flows.0.action': 'create_deal',
      ...rows(19, (i) => ({
        [`flows.${i + 1}.action`]: 'create_task',
        [`flows.${i + 1}.name`]: 'x',
        [`flows.${i + 1}.category`]: 'y',
      })),
    };
    expect((await panel(`/panel/webhooks/${hook.id}`, { cookie, form })).status).toBe(303);
    const saved = await configOf(key, hook.id);
    expect([saved.fields.length, saved.flows.length]).toEqual([100, 20]);
  });
});

describe('a sample event', () => {
  const OLD_CNPJ = '11.222.333/0001-81';
  const OLD_PHONE = '+55 11 91234-5678';

  async function productionHook(key: string) {
    return create(key, '/v1/inbound-webhooks', {
      name: 'Produção',
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'tel', type: 'phone', target: 'contact.phone' },
        { key: 'mail', type: 'email', target: 'contact.email' },
        { key: 'empresa', type: 'string', target: 'company.name' },
        { key: 'cnpj', type: 'string', target: 'company.cnpj' },
      ],
      flows: [{ action: 'upsert_contact' }, { action: 'upsert_company' }],
    });
  }

  it('in production asks first, saying it writes real records, and sends nothing until confirmed', async () => {
    const { key } = await newAccount();
    const hook = await productionHook(key);
    const cookie = await signIn(key);
    const ask = await page(await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form: {} }));
    expect(ask).toContain('grava registros reais no CRM');
    // The confirming POST draws new values: the page must not promise this very body.
    expect(ask).toContain('o envio sorteia de novo o telefone, o e-mail e o CNPJ');
    expect(ask).not.toContain('Corpo a enviar');
    expect(ask).toMatch(
      /<input type="hidden" name="confirm" value="yes"><button type="submit">Enviar e gravar registros<\/button>/,
    );
    expect(await eventLog(key, hook.id)).toEqual([]);
    // The confirmation is a POST like any other: from another site it is refused.
    const forged = await panel(`/panel/webhooks/${hook.id}/sample`, {
      cookie,
      form: { confirm: 'yes' },
      origin: 'https://evil.example',
    });
    expect(forged.status).toBe(403);
    expect(await eventLog(key, hook.id)).toEqual([]);
    const sent = await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form: { confirm: 'yes' } });
    expect(sent.headers.get('Location')).toBe(`/panel/webhooks/${hook.id}?done=sample`);
    expect(await eventLog(key, hook.id)).toHaveLength(1);
  });

  it('never matches real rows: the company and contact of the old fixed values keep their names', async () => {
    const { id: accountId, key } = await newAccount();
    const company = await create(key, '/v1/companies', { name: 'Auto Lima', cnpj: OLD_CNPJ });
    const contact = await create(key, '/v1/contacts', {
      name: 'Bruno Lima',
      phone: OLD_PHONE,
      email: 'exemplo@example.com',
    });
    const hook = await productionHook(key);
    const cookie = await signIn(key);
    for (let i = 0; i < 2; i++) {
      const sent = await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form: { confirm: 'yes' } });
      expect(sent.status).toBe(303);
    }
    const events = await eventLog(key, hook.id);
    await deliver(events.map((e: { id: number }) => e.id));
    const [first, second] = events.map((e: { payload: Record<string, string> }) => e.payload);
    expect(first?.tel).not.toBe(second?.tel);
    expect(first?.cnpj).not.toBe(second?.cnpj);
    expect((await get(key, `/v1/companies/${company.id}`)).name).toBe('Auto Lima');
    expect((await get(key, `/v1/contacts/${contact.id}`)).name).toBe('Bruno Lima');
    const count = async (table: string) =>
      (
        await env.DB.prepare(`select count(*) as n from ${table} where account_id = ?`)
          .bind(accountId)
          .first<{ n: number }>()
      )?.n;
    expect([await count('contacts'), await count('companies')]).toEqual([3, 3]);
  });
});
