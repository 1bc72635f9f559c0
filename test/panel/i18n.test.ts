import { describe, expect, it } from 'vitest';
import { eventStatuses, webhookModes } from '../../src/core/statuses';
import { chooseLang, langs, messages } from '../../src/panel/i18n';
import { allLabels, eventCodes, statusLabel, typeLabel } from '../../src/panel/labels';
import { actions } from '../../src/webhooks/actions';
import { MATCH_KEYS } from '../../src/webhooks/config/schema';
import { fixedTargets, whenOps } from '../../src/webhooks/rules/config';
import { fieldTypes } from '../../src/webhooks/rules/fields';

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

describe('enum labels', () => {
  const enums = {
    statusLabels: eventStatuses,
    modeLabels: webhookModes,
    typeLabels: fieldTypes,
    opLabels: whenOps,
    actionLabels: actions.map((m) => m.name),
    matchKeyLabels: MATCH_KEYS,
    kindLabels: ['string', 'number', 'boolean'],
    targetLabels: Object.keys(fixedTargets),
    pickedTargetLabels: Object.keys(fixedTargets),
    codeLabels: eventCodes,
  } satisfies Record<keyof typeof allLabels, readonly string[]>;

  it('labels every member of every enum in both languages, never as its API name', () => {
    for (const [table, members] of Object.entries(enums) as [keyof typeof allLabels, readonly string[]][]) {
      for (const lang of langs) {
        const labels: Record<string, string> = allLabels[table][lang];
        expect(Object.keys(labels).sort(), `${table} ${lang}`).toEqual([...members].sort());
        for (const member of members) {
          expect(labels[member]?.trim(), `${table} ${lang} ${member}`).toBeTruthy();
          expect(labels[member], `${table} ${lang} ${member}`).not.toBe(member);
        }
        expect(new Set(Object.values(labels)).size, `${table} ${lang}`).toBe(members.length);
      }
    }
  });

  it('shows an unknown value as it is, and no inherited property as a label', () => {
    expect(statusLabel({ lang: 'pt-BR' }, 'processed')).toBe('Processado');
    expect(statusLabel({ lang: 'en' }, 'archived')).toBe('archived');
    expect(statusLabel({ lang: 'en' }, 'constructor')).toBe('constructor');
    expect(typeLabel({ lang: 'pt-BR' }, '__proto__')).toBe('__proto__');
  });
});
