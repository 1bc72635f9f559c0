// The document's shapes against the API, for an outside conformance pass: a webhook date format
// carries its pattern, the phone pattern takes exactly what the API reads, and the scopes on the
// bearer scheme have the Spectral ruleset exception that answers them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import spectralRuleset from '../../.spectral.yaml?raw';
import { normalizePhone } from '../../src/core/phone';
import { CONCRETE_SCOPES, OPERATIONS, SCOPE_RESOURCES } from '../../src/core/scopes';
import { compileFormat } from '../../src/webhooks/rules/fields';
import { call, type Json, json, newAccount } from '../helpers';
import { settings, TIMEOUT } from '../properties/checks';

async function loadDocument(): Promise<Json> {
  const res = await call('/openapi.json');
  expect(res.status).toBe(200);
  return json(res);
}

const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

describe("a webhook field's date formats", () => {
  it('carry the pattern of a format: every format the API takes matches it', async () => {
    const doc = await loadDocument();
    const items = doc.components.schemas.WebhookField.properties.formats.items;
    expect(items.pattern).toEqual(expect.any(String));
    const piece = fc.constantFrom(
      'YYYY',
      'MM',
      'DD',
      'HH',
      'mm',
      'ss',
      '/',
      '-',
      '.',
      ':',
      ' ',
      'T',
      ',',
      'Y',
      'x',
      'é',
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (pieces) => {
        const format = pieces.join('');
        if (format.length <= 40 && !('error' in compileFormat(format))) {
          expect(matches(items.pattern, format), format).toBe(true);
        }
      }),
      settings(2000),
    );
    for (const refused of ['', 'dd/mm/yyyy', 'DD/MM/YY', 'DD_MM_YYYY', 'DD/MM/YYYY%']) {
      expect(matches(items.pattern, refused), refused).toBe(false);
    }
  });
});

describe('the phone pattern', () => {
  // Digits the rules care about (0, 5, 9, 1-8), every separator, `+`, and what is none of these.
  const char = fc.constantFrom(...'0005559912345678', '+', ' ', '-', '(', ')', '.', '\t', 'a', '٣', '+');

  it(
    'takes exactly what the API reads: nothing it refuses, nothing less than it takes',
    async () => {
      const doc = await loadDocument();
      const { pattern } = doc.components.schemas.ContactCreate.properties.phone;
      let read = 0;
      fc.assert(
        fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
          const text = chars.join('');
          const api = normalizePhone(text) !== undefined;
          if (api) read++;
          expect(matches(pattern, text), JSON.stringify(text)).toBe(api);
        }),
        settings(20_000),
      );
      // Phones as people write them, not only the generated strings that happen to read.
      fc.assert(
        fc.property(
          fc.constantFrom('', '+55 ', '0055 ', '0', '55 ', '+1 '),
          fc.stringMatching(/^[1-9]{2}$/),
          fc.stringMatching(/^9?[0-9]{4}-?[0-9]{4}$/),
          (prefix, area, number) => {
            const text = `${prefix}(${area}) ${number}`;
            expect(matches(pattern, text), text).toBe(normalizePhone(text) !== undefined);
          },
        ),
        settings(2000),
      );
      expect(read).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it('refuses, as the API does, what the old shape let through', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const { pattern } = doc.components.schemas.ContactCreate.properties.phone;
    // 8 bare digits, a country code 0, a mobile without its 9, an area code with a 0.
    for (const phone of ['12345678', '+0 11 98765-4321', '(11) 8765-43210', '(10) 98765-4321']) {
      expect(matches(pattern, phone), phone).toBe(false);
      const res = await call('/v1/contacts', { method: 'POST', key, body: { name: 'P', phone } });
      expect(res.status, phone).toBe(422);
    }
  });
});

describe('scopes on the bearer scheme, for Spectral', () => {
  it('state each operation scope on bearerAuth, which .spectral.yaml checks in place of oas3-operation-security-defined', async () => {
    const doc = await loadDocument();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // The rule is off (it wants each scope listed in an oauth2 flow, which a bearer scheme has not)...
    expect(spectralRuleset).toMatch(/^ {2}oas3-operation-security-defined: off$/m);
    // ...and the ruleset's own rules take its place: the schemes, and the scopes it knows.
    const schemes = /values: \[([^\]]*)\]/.exec(spectralRuleset)?.[1]?.split(', ');
    expect(schemes?.sort()).toEqual(Object.keys(doc.components.securitySchemes).sort());
    const scopeMatch = /match: '([^']*)'/.exec(spectralRuleset)?.[1] ?? '';
    // It takes exactly the concrete scopes: every resource and operation tried, wildcards too.
    const tried = ['*', ...SCOPE_RESOURCES].flatMap((r) => ['*', ...OPERATIONS].map((op) => `${r}:${op}`));
    expect(tried.filter((scope) => new RegExp(scopeMatch).test(scope))).toEqual([...CONCRETE_SCOPES]);
    let scoped = 0;
    for (const item of Object.values<Json>(doc.paths)) {
      for (const op of Object.values<Json>(item)) {
        for (const requirement of op.security ?? []) {
          for (const [scheme, scopes] of Object.entries<string[]>(requirement)) {
            expect(schemes).toContain(scheme);
            for (const scope of scopes) {
              expect(scope).toMatch(new RegExp(scopeMatch));
              scoped++;
            }
          }
        }
      }
    }
    expect(scoped).toBeGreaterThan(30);
  });
});
