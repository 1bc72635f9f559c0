import { describe, expect, it } from 'vitest';
import { call, expectProblem, json, list, newAccount, newWebhook, postEvent } from '../helpers';
import { get, runEvent } from '../queue/webhook-support';

// A dealership's lead form: Brazilian prices and sim/não answers, and names with defaults.
const FIELDS = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'valor', type: 'number', locale: 'pt-BR', target: 'deal.value' },
  { key: 'financiar', type: 'boolean', locale: 'pt-BR', target: 'deal.custom_fields.financiar' },
  { key: 'troca', type: 'boolean', locale: 'pt-BR', required: true, target: 'contact.custom_fields.troca' },
  { key: 'veiculo.modelo', type: 'string' },
];
const FLOWS = [
  { action: 'upsert_contact', match_on: ['phone'] },
  { action: 'create_deal', name: 'Lead site - {{veiculo.modelo}}' },
  { action: 'create_task', name: 'Ligar: {{veiculo.modelo|sem modelo}}', category: 'Contato' },
];

async function dealership() {
  const { key } = await newAccount();
  return { key, hook: await newWebhook(key, { fields: FIELDS, flows: FLOWS }) };
}

describe('ingest: fields with locale pt-BR', () => {
  it('reads R$ 120.000, sim and não, and renders the names with a default and no dangling separator', async () => {
    const { key, hook } = await dealership();
    const event = await runEvent(key, hook, {
      nome: 'Ana',
      telefone: '11987654321',
      valor: 'R$ 120.000',
      financiar: 'sim',
      troca: 'não',
    });
    expect(event).toMatchObject({ status: 'processed', warnings: [] });
    const deal = await get(key, `/v1/deals/${event.result.deal_id}`);
    expect(deal).toMatchObject({ name: 'Lead site', value: 120000, custom_fields: { financiar: true } });
    const contact = await get(key, `/v1/contacts/${event.result.contact_id}`);
    expect(contact.custom_fields).toEqual({ troca: false });
    const task = await get(key, `/v1/tasks/${event.result.task_ids[0]}`);
    expect(task.name).toBe('Ligar: sem modelo');
  });

  it('reads 89.900,00 as 89900 and fills the template when the model is sent', async () => {
    const { key, hook } = await dealership();
    const event = await runEvent(key, hook, {
      nome: 'Caio',
      telefone: '11987654322',
      valor: '89.900,00',
      troca: 's',
      veiculo: { modelo: 'Onix' },
    });
    const deal = await get(key, `/v1/deals/${event.result.deal_id}`);
    expect(deal).toMatchObject({ name: 'Lead site - Onix', value: 89900 });
    expect((await get(key, `/v1/tasks/${event.result.task_ids[0]}`)).name).toBe('Ligar: Onix');
  });

  it('leaves out a wrong optional value with a warning, and refuses a wrong required one with 400', async () => {
    const { key, hook } = await dealership();
    const event = await runEvent(key, hook, {
      nome: 'Bia',
      telefone: '11987654323',
      valor: '1.5',
      troca: 'n',
    });
    expect(event.status).toBe('processed');
    expect(event.warnings).toEqual([
      {
        path: 'valor',
        code: 'dropped',
        params: { key: 'valor', type: 'number', expected: 'brazilian_number' },
        message: expect.stringContaining('Brazilian way'),
      },
    ]);
    expect((await get(key, `/v1/deals/${event.result.deal_id}`)).value).toBeNull();
    const problem = await expectProblem(
      await postEvent(hook.path, { telefone: '11987654324', troca: 'talvez' }),
      400,
      'invalid_fields',
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'troca', code: 'invalid_type' })]);
  });
});

describe('test mode: the preview renders the same', () => {
  it('previews the Brazilian value, the default and the name without its dangling separator', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test', fields: FIELDS, flows: FLOWS });
    const event = await runEvent(key, hook, {
      nome: 'Ana',
      telefone: '11987654325',
      valor: '89.900,00',
      troca: 'sim',
    });
    expect(event.status).toBe('test');
    expect(event.preview.deal.fields).toMatchObject({ name: 'Lead site', value: 89900 });
    expect(event.preview.tasks[0].fields.name).toBe('Ligar: sem modelo');
    expect(event.preview.contact.fields.custom_fields).toEqual({ troca: true });
  });
});

describe('webhook configuration: locale and template defaults', () => {
  const create = (key: string, body: Record<string, unknown>) =>
    call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'X', ...body } });

  it('stores a locale and shows it back; a field without one has none', async () => {
    const { key } = await newAccount();
    const res = await create(key, { fields: FIELDS, flows: FLOWS });
    expect(res.status).toBe(201);
    const stored = (await json(res)).data;
    expect(stored.fields[2]).toEqual({
      key: 'valor',
      type: 'number',
      required: false,
      locale: 'pt-BR',
      target: 'deal.value',
    });
    expect(stored.fields[0]).not.toHaveProperty('locale');
    expect(stored.flows[2].name).toBe('Ligar: {{veiculo.modelo|sem modelo}}');
  });

  it.each([
    [
      'a locale on a text field',
      { fields: [{ key: 'a', type: 'string', locale: 'pt-BR' }] },
      'fields.0.locale',
    ],
    ['an unknown locale', { fields: [{ key: 'a', type: 'number', locale: 'en-US' }] }, 'fields.0.locale'],
    [
      'a default after an undeclared key',
      { fields: [{ key: 'a', type: 'string' }], flows: [{ action: 'create_deal', name: '{{b|x}}' }] },
      'flows.0.name',
    ],
    [
      'a reserved key with a default',
      { fields: [{ key: 'a', type: 'string' }], flows: [{ action: 'create_deal', name: '{{__proto__|x}}' }] },
      'flows.0.name',
    ],
  ])('refuses %s with 422 at its path', async (_name, body, path) => {
    const { key } = await newAccount();
    const problem = await expectProblem(await create(key, body), 422, 'validation_failed');
    expect(problem.errors).toContainEqual(expect.objectContaining({ path }));
    expect((await list(key, '/v1/inbound-webhooks')).data).toEqual([]);
  });
});
