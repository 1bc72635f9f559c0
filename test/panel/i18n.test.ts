import { describe, expect, it } from 'vitest';
import { chooseLang, messages } from '../../src/panel/i18n';

describe('panel language', () => {
  it('takes the lang cookie first, then the most preferred known language, else pt-BR', () => {
    expect(chooseLang(undefined, undefined)).toBe('pt-BR');
    expect(chooseLang(undefined, 'fr-FR,fr;q=0.9')).toBe('pt-BR');
    expect(chooseLang(undefined, 'fr,en;q=0.5')).toBe('en');
    expect(chooseLang(undefined, 'en;q=0.4,pt;q=0.8')).toBe('pt-BR');
    expect(chooseLang(undefined, 'pt-PT;q=0,en-GB')).toBe('en');
    expect(chooseLang('pt-BR', 'en')).toBe('pt-BR');
    expect(chooseLang('en', 'pt-BR')).toBe('en');
    expect(chooseLang('de', 'en')).toBe('en');
  });

  it('has every message in both languages, none empty', () => {
    const keys = Object.keys(messages['pt-BR']).sort();
    expect(Object.keys(messages.en).sort()).toEqual(keys);
    for (const lang of ['pt-BR', 'en'] as const) {
      for (const key of keys) expect(messages[lang][key as keyof (typeof messages)['en']], key).not.toBe('');
    }
  });
});
