import { describe, expect, it } from 'vitest';
import { render, templateKeys } from '../../src/webhooks/rules/templates';

describe('templateKeys', () => {
  it.each([
    ['{{nome}} - {{veiculo}}', ['nome', 'veiculo']],
    ['{{ nome }}', ['nome']],
    ['{{  lead.phone\t}}', ['lead.phone']],
    ['{{answers.0.text}}', ['answers.0.text']],
    ['Revisão', []],
    ['{{nome}} e {{nome}}', ['nome', 'nome']],
    ['{{a}}{{b}}', ['a', 'b']],
    ['{{{a}}}', ['a']],
    ['{{veiculo.modelo|sem modelo}}', ['veiculo.modelo']],
    ['{{ a | x | y }}', ['a']],
    ['{{a|}}', ['a']],
  ])('finds the keys of %j', (template, keys) => {
    expect(templateKeys(template)).toEqual(keys);
  });

  it.each(['{{}}', '{{ }}', '{{a b}}', '{nome}', '{{nome}', 'nome}}', '{{ {nome} }}'])(
    'finds no key in %j, which has no placeholder',
    (template) => {
      expect(templateKeys(template)).toEqual([]);
    },
  );
});

describe('render', () => {
  const values: Record<string, string | number | boolean> = {
    nome: 'Ana',
    veiculo: 'Onix',
    'lead.phone': '+5511987654321',
    n: 0,
    ok: false,
  };
  const lookup = (key: string) => values[key];

  it.each([
    ['{{nome}} - {{veiculo}}', 'Ana - Onix'],
    ['{{ nome }}!', 'Ana!'],
    ['Ligar {{lead.phone}}', 'Ligar +5511987654321'],
    ['{{n}} itens, ok={{ok}}', '0 itens, ok=false'],
    ['Sem placeholder', 'Sem placeholder'],
    ['{{nome}}{{nome}}', 'AnaAna'],
  ])('renders %j as %j', (template, expected) => {
    expect(render(template, lookup)).toBe(expected);
  });

  it('renders an absent value as empty and trims the result', () => {
    expect(render('{{falta}} - {{nome}}', lookup)).toBe('Ana');
    expect(render('  {{nome}} {{falta}}  ', lookup)).toBe('Ana');
    expect(render('{{falta}}', lookup)).toBe('');
  });

  it('leaves text that is not a placeholder as it is', () => {
    expect(render('{nome} {{a b}} {{}}', lookup)).toBe('{nome} {{a b}} {{}}');
  });

  it('inserts values literally, never as further placeholders or replacement patterns', () => {
    const tricky: Record<string, string> = { a: '{{b}}', b: 'B', c: '$& $1 $$' };
    expect(render('{{a}} {{c}}', (key) => tricky[key])).toBe('{{b}} $& $1 $$');
  });
});

describe('render: defaults', () => {
  const values: Record<string, string | number | boolean> = {
    nome: 'Ana',
    branco: '  ',
    zero: 0,
    nao: false,
  };
  const lookup = (key: string) => values[key];

  it.each([
    ['{{veiculo.modelo|sem modelo}}', 'sem modelo'],
    ['{{ veiculo.modelo | sem modelo }}', 'sem modelo'],
    ['{{nome|sem nome}}', 'Ana'],
    ['{{branco|vazio}}', 'vazio'],
    ['{{zero|nada}}', '0'],
    ['{{nao|nada}}', 'false'],
    ['{{falta|a|b}}', 'a|b'],
    ['Lead {{falta|}}', 'Lead'],
  ])('renders %j as %j', (template, expected) => {
    expect(render(template, lookup)).toBe(expected);
  });

  it('inserts a default literally', () => {
    expect(render('{{falta|$&}}', lookup)).toBe('$&');
  });
});

describe('render: no dangling separator', () => {
  const values: Record<string, string> = { nome: 'Ana', carro: 'Onix', vazio: '' };
  const lookup = (key: string) => values[key];

  it.each([
    ['Lead site - {{falta}}', 'Lead site'],
    ['Lead site – {{vazio}}', 'Lead site'],
    ['Lead site — {{vazio}}', 'Lead site'],
    ['{{falta}} - {{nome}}', 'Ana'],
    ['{{nome}} / {{falta}}', 'Ana'],
    ['{{nome}}, {{falta}}', 'Ana'],
    ['{{nome}} | {{falta}}', 'Ana'],
    ['Lead: {{falta}}', 'Lead'],
    ['{{nome}} - {{falta}} - {{carro}}', 'Ana - Onix'],
    ['{{nome}} - {{falta}} - {{vazio}} - {{carro}}', 'Ana - Onix'],
    ['{{nome}} - {{falta}} {{vazio}}', 'Ana'],
    ['{{falta}} / {{vazio}}', ''],
    ['Lead - {{nome}}', 'Lead - Ana'],
  ])('renders %j as %j', (template, expected) => {
    expect(render(template, lookup)).toBe(expected);
  });

  it('keeps a separator the template writes next to a filled value, and a hyphen inside a word', () => {
    expect(render('Lead: {{nome}} -', lookup)).toBe('Lead: Ana -');
    expect(render('Jean-{{falta}}', lookup)).toBe('Jean-');
    expect(render('{{nome}}-{{falta}}', lookup)).toBe('Ana-');
  });

  it('tidies next to a value of 10,000 spaces', () => {
    const spaced = (key: string) => (key === 'x' ? `A${' '.repeat(10_000)}B` : undefined);
    expect(render('{{x}} - {{falta}}', spaced)).toBe(`A${' '.repeat(10_000)}B`);
    expect(render('{{x}}', spaced)).toBe(`A${' '.repeat(10_000)}B`);
  });

  it('renders without tidying a value that holds a lone surrogate, never mistaking it for a gap', () => {
    const odd = (key: string) => (key === 'x' ? '\uD800' : undefined);
    expect(render('A - {{x}}', odd)).toBe('A -');
  });
});
