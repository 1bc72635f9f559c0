import { describe, expect, it } from 'vitest';
import { type FieldSpec, readFields } from '../../src/core/webhook-fields';
import { issueText } from '../../src/panel/problem-text';

// Found walking the panel as a dealership's configurer (pt-BR, phone and desktop) from
// docs/panel.md alone.

describe('the Brazilian format’s messages, on the event page', () => {
  const specs: FieldSpec[] = [
    { key: 'valor', type: 'number', required: false, locale: 'pt-BR' },
    { key: 'financiar', type: 'boolean', required: false, locale: 'pt-BR' },
  ];
  const warnings = readFields({ valor: '1.5', financiar: 'talvez' }, specs).warnings.map((w) => w.message);

  it('says in Portuguese what a number written the Brazilian way looks like', () => {
    const pt = issueText({ lang: 'pt-BR' }, warnings[0] ?? '');
    expect(pt).toBe(
      'Ignorado: Esperado um número no formato brasileiro: 89.900,00, R$ 120.000, 1.234 (mil duzentos e trinta e quatro) ou 1,5.',
    );
  });

  it('names sim and não among the answers a Brazilian yes/no field takes, in both languages', () => {
    expect(issueText({ lang: 'pt-BR' }, warnings[1] ?? '')).toBe(
      'Ignorado: Esperado sim ou não: sim, não, s, n, true, false, 1 ou 0.',
    );
    expect(issueText({ lang: 'en' }, warnings[1] ?? '')).toContain('sim, não');
  });
});
