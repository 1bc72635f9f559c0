import { describe, expect, it } from 'vitest';
import { customName, suggestTargets } from '../../src/webhooks/rules/target-guess';
import { mask, withCheckDigits } from '../cnpj';

const CNPJ = withCheckDigits('112223330001');
const one = (key: string, value: unknown) => suggestTargets([[key, value]])[0];

describe('suggestTargets', () => {
  it('maps the dealership example', () => {
    const guesses = suggestTargets([
      ['nome', 'Ana Souza'],
      ['telefone', '(11) 91234-5678'],
      ['email', 'ana@example.com'],
      ['veiculo', 'Onix LT'],
      ['data_compra', '15/03/2025'],
      ['cnpj', mask(CNPJ)],
    ]);
    expect(guesses).toEqual([
      { key: 'nome', target: 'contact.name', type: 'string' },
      { key: 'telefone', target: 'contact.phone', type: 'phone' },
      { key: 'email', target: 'contact.email', type: 'email' },
      { key: 'veiculo', target: 'deal.custom_fields.veiculo', type: 'string' },
      {
        key: 'data_compra',
        target: 'contact.custom_fields.data_compra',
        type: 'date',
        formats: 'DD/MM/YYYY',
      },
      { key: 'cnpj', target: 'company.cnpj', type: 'cnpj' },
    ]);
  });

  it.each([
    ['name', 'contact.name'],
    ['cliente', 'contact.name'],
    ['lead.Nome', 'contact.name'],
    ['celular', 'contact.phone'],
    ['whatsapp', 'contact.phone'],
    ['fone', 'contact.phone'],
    ['e-mail', 'contact.email'],
    ['E-Mail', 'contact.email'],
    ['empresa', 'company.name'],
    ['razao_social', 'company.name'],
    ['Razão-Social', 'company.name'],
  ])('reads the key %s as %s', (key, target) => {
    expect(one(key, 'x')?.target).toBe(target);
  });

  it.each([
    ['contato_1', '11 98765-4321', 'contact.phone', 'phone'],
    ['contato_2', 'bia@example.com', 'contact.email', 'email'],
    ['contato', 'bia@example.com', 'contact.email', 'email'],
    ['doc', CNPJ, 'company.cnpj', 'cnpj'],
    ['doc', mask(CNPJ), 'company.cnpj', 'cnpj'],
  ])('reads the value of %s (%s) as %s', (key, value, target, type) => {
    expect(one(key, value)).toMatchObject({ target, type });
  });

  it.each([
    ['veiculo', 'deal.custom_fields.veiculo'],
    ['Veículo', 'deal.custom_fields.veiculo'],
    ['modelo', 'deal.custom_fields.modelo'],
    ['carro_interesse', 'deal.custom_fields.carro_interesse'],
    ['produto', 'deal.custom_fields.produto'],
    ['interesse', 'deal.custom_fields.interesse'],
    ['cidade', 'contact.custom_fields.cidade'],
  ])('gives what the lead wants (%s) to the deal: %s', (key, target) => {
    expect(one(key, 'Onix LT')?.target).toBe(target);
  });

  it('reads a date, a Brazilian number and a yes/no by their value', () => {
    expect(one('visita', '25/12/2026 14:30')).toMatchObject({ type: 'date', formats: 'DD/MM/YYYY HH:mm' });
    expect(one('nascimento', '2024-03-05')).toMatchObject({ type: 'date' });
    expect(one('valor', 'R$ 89.900,00')).toEqual({
      key: 'valor',
      target: 'deal.value',
      type: 'number',
      locale: 'pt-BR',
    });
    expect(one('financiar', 'sim')).toMatchObject({ type: 'boolean', locale: 'pt-BR' });
    expect(one('ano', 2024)).toMatchObject({ type: 'number', target: 'contact.custom_fields.ano' });
  });

  it('gives each target to the first field that claims it', () => {
    const guesses = suggestTargets([
      ['nome', 'Ana'],
      ['cliente', 'Ana Souza'],
      ['telefone', '11 98765-4321'],
      ['celular', '11 98765-4322'],
    ]);
    expect(guesses.map((g) => g.target)).toEqual([
      'contact.name',
      'contact.custom_fields.cliente',
      'contact.phone',
      'contact.custom_fields.celular',
    ]);
  });

  it('never names a custom field by a reserved or empty key', () => {
    expect(one('__proto__', 'x')?.target).toBeUndefined();
    expect(one('a.constructor', 'x')?.target).toBeUndefined();
    expect(one('<script>', 'x')?.target).toBe('contact.custom_fields.script');
    expect(one('***', 'x')?.target).toBeUndefined();
    expect(customName('k'.repeat(500))).toHaveLength(100);
    // A key the configuration cannot declare (spaces, over 200 characters) gets no target at all.
    expect(one('Razão Social', 'x')?.target).toBeUndefined();
    expect(one('k'.repeat(201), 'x')?.target).toBeUndefined();
  });
});
