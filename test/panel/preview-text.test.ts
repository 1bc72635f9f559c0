import { describe, expect, it } from 'vitest';
import { cnpjText, phoneText, previewSentences } from '../../src/panel/preview-text';

const time = (iso: string) => `<${iso}>`;
const owners = new Map([
  [7, 'Ana Souza'],
  [8, 'Rita Alves'],
]);
const preview = {
  contact: { action: 'create', fields: { name: 'Exemplo', phone: '+5511912345678', owner_id: 7 } },
  deal: { action: 'create', fields: { name: 'Lead site - Exemplo', owner_id: 7 } },
  tasks: [{ action: 'create', fields: { name: 'Ligar', owner_id: 8, due_date: '2026-11-24T19:41:00.000Z' } }],
  skipped: [{ index: 4, action: 'create_task', reason: 'its condition does not hold' }],
};

describe('previewSentences', () => {
  it('lists the custom fields each record gets, so the summary shows every field, dates as people write them', () => {
    const custom = {
      contact: { action: 'create', fields: { name: 'Ana', custom_fields: { data_compra: '2025-03-15' } } },
      deal: {
        action: 'create',
        fields: {
          name: 'Ana - Onix',
          custom_fields: {
            veiculo: 'Onix LT',
            vazio: '',
            visita: '2025-03-10T15:30:00.000Z',
            ano: '2025-13-40',
          },
        },
      },
    };
    expect(previewSentences(custom, { lang: 'pt-BR', owners, time })).toEqual([
      "Cria o contato Ana (data_compra: 15/03/2025); um negócio 'Ana - Onix' (veiculo: Onix LT, visita: <2025-03-10T15:30:00.000Z>, ano: 2025-13-40).",
    ]);
    expect(previewSentences(custom, { lang: 'en', owners, time })[0]).toContain(
      '(data_compra: Mar 15, 2025)',
    );
  });

  it('writes what an event would do in Portuguese, owners by name', () => {
    expect(previewSentences(preview, { lang: 'pt-BR', owners, time })).toEqual([
      "Cria o contato Exemplo (+55 11 91234-5678) para Ana Souza; um negócio 'Lead site - Exemplo' para Ana Souza; uma tarefa 'Ligar' para Rita Alves, prazo <2026-11-24T19:41:00.000Z>.",
      'Ação 5 · Criar tarefa: não roda porque a condição dela não se cumpre.',
    ]);
  });

  it('writes it in English, and an unknown reason as given', () => {
    const skipped = [{ index: 0, action: 'upsert_company', reason: 'something new' }];
    expect(previewSentences({ ...preview, skipped }, { lang: 'en', owners, time })).toEqual([
      "Creates the contact Exemplo (+55 11 91234-5678) for Ana Souza; a deal 'Lead site - Exemplo' for Ana Souza; a task 'Ligar' for Rita Alves, due <2026-11-24T19:41:00.000Z>.",
      'Action 1 · Create or update company: does not run: something new.',
    ]);
  });

  it('says the verb again where it changes, names an update by number and an unknown owner by id', () => {
    const mixed = {
      contact: { action: 'update', id: 12, fields: { email: 'bia@example.com' } },
      company: { action: 'create', fields: { name: 'Acme', cnpj: '11222333000181' } },
      deal: { action: 'create', fields: { name: 'X', owner_id: 99 } },
      tasks: [],
    };
    expect(previewSentences(mixed, { lang: 'pt-BR', owners, time })).toEqual([
      "Atualiza o contato nº 12 (bia@example.com); cria a empresa Acme (CNPJ 11.222.333/0001-81); um negócio 'X' para usuário nº 99.",
    ]);
  });

  it('says when nothing would be written, and survives a preview of another shape', () => {
    expect(previewSentences({ tasks: [] }, { lang: 'en', owners, time })).toEqual([
      'Creates or updates no record.',
    ]);
    const odd = { contact: 'x', tasks: 'y', skipped: [null, { index: 'a' }], deal: [] };
    expect(previewSentences(odd, { lang: 'pt-BR', owners, time })).toEqual([
      'Não cria nem atualiza nenhum registro.',
    ]);
  });
});

describe('phoneText and cnpjText', () => {
  it('write Brazilian numbers as people do, and anything else as stored', () => {
    expect(phoneText('+5511912345678')).toBe('+55 11 91234-5678');
    expect(phoneText('+551132345678')).toBe('+55 11 3234-5678');
    expect(phoneText('+14155550100')).toBe('+14155550100');
    expect(cnpjText('11222333000181')).toBe('11.222.333/0001-81');
    expect(cnpjText('123')).toBe('123');
  });
});
