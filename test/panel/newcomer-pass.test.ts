import { describe, expect, it } from 'vitest';
import { withoutReservedKeys } from '../../src/core/outside-keys';
import { saidText } from '../../src/panel/said-words';
import { configIssues } from '../../src/webhooks/actions';
import { latinWarnings } from '../../src/webhooks/ingest/charset';
import { type FieldSpec, guessDateFormat, readFields } from '../../src/webhooks/rules/fields';
import { create, newAccount, postEvent } from '../helpers';
import { page, panel, signIn } from './browser';
import { DEALERSHIP } from './dealership';

// Found walking the panel as a dealership's configurer (pt-BR, phone and desktop) from
// docs/panel.md alone.

describe('the Brazilian format’s messages, on the event page', () => {
  const specs: FieldSpec[] = [
    { key: 'valor', type: 'number', required: false, locale: 'pt-BR' },
    { key: 'financiar', type: 'boolean', required: false, locale: 'pt-BR' },
  ];
  const { warnings } = readFields({ valor: '1.5', financiar: 'talvez' }, specs);

  it('says in Portuguese what a number written the Brazilian way looks like', () => {
    const pt = saidText({ lang: 'pt-BR' }, warnings[0] ?? { code: '', message: '' });
    expect(pt).toBe(
      'Ignorado: deveria ser um número no formato brasileiro: 89.900,00, R$ 120.000, 1.234 (mil duzentos e trinta e quatro) ou 1,5.',
    );
  });

  it('names sim and não among the answers a Brazilian yes/no field takes, in both languages', () => {
    const second = warnings[1] ?? { code: '', message: '' };
    expect(saidText({ lang: 'pt-BR' }, second)).toBe(
      'Ignorado: deveria ser sim ou não: sim, não, s, n, true, false, 1 ou 0.',
    );
    expect(saidText({ lang: 'en' }, second)).toContain('sim, não');
  });
});

describe('the Brazilian format ticked on a text field', () => {
  it('is refused in the page’s language, naming the types that take it', () => {
    const [issue] = configIssues([{ key: 'nome', type: 'string', required: false, locale: 'pt-BR' }], []);
    if (!issue) throw new Error('no issue');
    expect(saidText({ lang: 'pt-BR' }, issue)).toBe(
      'Só um campo do tipo Número ou Sim/não aceita o formato brasileiro.',
    );
    expect(saidText({ lang: 'en' }, issue)).toBe(
      'Only a field of type Number or Yes/no takes the Brazilian format.',
    );
  });
});

describe('a form sent in Latin-1', () => {
  it('warns in the page’s language, the count of further keys included', () => {
    const [one] = latinWarnings(['nome']);
    if (!one) throw new Error('no warning');
    expect(saidText({ lang: 'pt-BR' }, one)).toBe(
      'Não era UTF-8 válido: lido como Windows-1252 (Latin-1). Declare o charset no Content-Type ou envie UTF-8.',
    );
    const many = latinWarnings(Array.from({ length: 13 }, (_, i) => `k${i}`)).at(-1);
    if (!many) throw new Error('no warning');
    expect(saidText({ lang: 'pt-BR' }, many)).toMatch(/O mesmo com mais 3 chaves\.$/);
    expect(saidText({ lang: 'en' }, many)).toBe(many.message);
  });
});

describe('a body with many reserved keys', () => {
  it('counts the keys past the named ones in the page’s language', () => {
    const list = Array.from({ length: 13 }, (_, i) => JSON.parse(`{"__proto__": {"x": ${i}}}`));
    const last = withoutReservedKeys({ list }).warnings.at(-1);
    if (!last) throw new Error('no warning');
    expect(saidText({ lang: 'pt-BR' }, last)).toBe(
      'Ignoradas: mais 3 chaves chamadas __proto__, prototype ou constructor.',
    );
    expect(saidText({ lang: 'en' }, last)).toBe(last.message);
  });
});

describe('the one-click settings say what they did', () => {
  it('names the mode, enable and the secret in the flash, not a bare "Salvo."', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads do site', mode: 'test' });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const flashAfter = async (path: string, form: Record<string, string>) => {
      const res = await panel(`${base}/${path}`, { cookie, form });
      expect(res.status, path).toBe(303);
      const html = await page(await panel(res.headers.get('Location') ?? '', { cookie }));
      return /<p class="flash ok"[^>]*>([^<]*)</.exec(html)?.[1];
    };
    // Not the banner's words again: what going live leaves to do (the test leads are not recorded).
    expect(await flashAfter('mode', { mode: 'production' })).toBe(
      'Em produção. Os eventos de teste que já chegaram não foram gravados: para ter esses leads no CRM, peça ao remetente um novo envio.',
    );
    expect(await flashAfter('mode', { mode: 'test' })).toContain('Webhook em teste');
    expect(await flashAfter('enabled', { enabled: 'false', confirm: 'yes' })).toContain('desativado');
    expect(await flashAfter('enabled', { enabled: 'true' })).toBe(
      'Webhook ativado: a URL volta a receber eventos.',
    );
    expect(await flashAfter('secret', { secret: 'x'.repeat(32) })).toBe('Segredo de assinatura salvo.');
    expect(await flashAfter('secret', { secret: '' })).toContain('Segredo de assinatura removido');
  });
});

describe('a disabled webhook in its grace period', () => {
  it('does not claim the previous URL still works: both URLs answer 404', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads do site' });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    expect((await panel(`${base}/rotate`, { cookie, form: { grace: '86400', confirm: 'yes' } })).status).toBe(
      303,
    );
    expect(await page(await panel(base, { cookie }))).toContain('id="grace-end"');
    expect(
      (await panel(`${base}/enabled`, { cookie, form: { enabled: 'false', confirm: 'yes' } })).status,
    ).toBe(303);
    expect((await postEvent(hook.url, { nome: 'Ana' })).status).toBe(404);
    expect(await page(await panel(base, { cookie }))).not.toContain('id="grace-end"');
  });
});

describe('the overview’s last failure', () => {
  it('gives the reason in the page’s language', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: 'Leads do site',
      fields: [{ key: 'telefone', type: 'phone', required: true, target: 'contact.phone' }],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    expect((await postEvent(hook.url, { nome: 'Sem telefone' })).status).toBe(400);
    const html = await page(await panel(`/panel/webhooks/${hook.id}`, { cookie: await signIn(key) }));
    const last = /<dd id="last-failure">([\s\S]*?)<\/dd>/.exec(html)?.[1] ?? '';
    expect(last).toContain('Faltam campos obrigatórios ou algum é inválido; veja os erros.');
    expect(last).not.toContain('Some required fields');
  });
});

describe('a date a date field wrote to a custom field', () => {
  it('shows on the deal’s page as the page’s language writes a day', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Ana' });
    const deal = await create(key, '/v1/deals', {
      name: 'Lead site - Onix',
      contact_id: contact.id,
      custom_fields: { visita: '2027-01-02', placa: '2027-01-02x' },
    });
    const cookie = await signIn(key);
    const pt = await page(await panel(`/panel/deals/${deal.id}`, { cookie }));
    expect(pt).toContain('02/01/2027');
    expect(pt).not.toMatch(/>2027-01-02</);
    expect(pt).toContain('2027-01-02x');
    const en = await page(
      await panel(`/panel/deals/${deal.id}`, { cookie, headers: { 'Accept-Language': 'en' } }),
    );
    expect(en).toContain('Jan 2, 2027');
  });
});

describe('fields from test events, a day-first date among them', () => {
  it('guesses the format only for a real day-first date', () => {
    expect(guessDateFormat('25/12/2026')).toBe('DD/MM/YYYY');
    expect(guessDateFormat('25/12/2026 14:30')).toBe('DD/MM/YYYY HH:mm');
    expect(guessDateFormat('12/25/2026')).toBeUndefined();
    expect(guessDateFormat('2026-12-25')).toBeUndefined();
    expect(guessDateFormat('Onix')).toBeUndefined();
  });

  it('offers `25/12/2026` as a date with the DD/MM/YYYY format ticked in', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads do site', mode: 'test' });
    expect((await postEvent(hook.url, { nome: 'Ana', data_visita: '25/12/2026' })).status).toBe(204);
    const html = await page(
      await panel(`/panel/webhooks/${hook.id}?sample=1`, { cookie: await signIn(key) }),
    );
    const row =
      /<tr>\s*<td[^>]*><input name="(fields\.\d+)\.key" value="data_visita"[\s\S]*?<\/tr>/.exec(html)?.[0] ??
      '';
    expect(row).toMatch(/<option value="date" selected>/);
    expect(row).toMatch(/<textarea name="fields\.\d+\.formats"[^>]*>\s*DD\/MM\/AAAA<\/textarea>/);
  });
});

describe('fill from test events suggests targets', () => {
  it('maps the dealership example to the records its keys and values name', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Concessionária', mode: 'test' });
    const body = DEALERSHIP;
    expect((await postEvent(hook.url, body)).status).toBe(204);
    const base = `/panel/webhooks/${hook.id}`;
    const html = await page(await panel(`${base}?sample=1`, { cookie: await signIn(key) }));
    const target = (k: string) =>
      new RegExp(
        `name="(fields\\.\\d+)\\.key" value="${k}"[\\s\\S]*?name="\\1\\.target" value="([^"]*)"`,
      ).exec(html)?.[2];
    expect(Object.keys(body).map(target)).toEqual([
      'contact.name',
      'contact.phone',
      'contact.email',
      'deal.custom_fields.veiculo',
      'contact.custom_fields.data_compra',
      'company.cnpj',
    ]);
  });
});

describe('changes not saved on the configuration form', () => {
  it('are guarded by panel.js: a fresh page is saved, a refused save’s draft is not', async () => {
    const { key } = await newAccount();
    const hook = await create(key, '/v1/inbound-webhooks', { name: 'Leads do site', mode: 'test' });
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    expect(await page(await panel(base, { cookie }))).toMatch(
      /<form method="post" action="[^"]+" class="card" novalidate data-guard="saved">/,
    );
    const refused = await page(await panel(base, { cookie, form: { name: '' } }), 422);
    expect(refused).toContain('data-guard="unsaved"');
    // Rows added from test events are not stored until saved.
    expect((await postEvent(hook.url, { nome: 'Ana' })).status).toBe(204);
    expect(await page(await panel(`${base}?sample=1`, { cookie }))).toContain('data-guard="unsaved"');
    const script = await (await panel('/panel/static/panel.js')).text();
    expect(script).toContain('document.querySelectorAll("form[data-guard]")');
    expect(script).toContain('addEventListener("beforeunload"');
  });
});
