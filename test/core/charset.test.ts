import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charsetOf, decodeText, formPairs, textPrefix } from '../../src/webhooks/ingest/charset';

const encoder = new TextEncoder();

describe('formPairs', () => {
  it('splits and decodes any UTF-8 form exactly as URLSearchParams does', () => {
    // Form-ish text: the separators, escapes (valid, stray and cut short) and non-ASCII text.
    const piece = fc.constantFrom(
      '&',
      '=',
      '+',
      '%',
      '%2',
      '%2B',
      '%C3%A3',
      '%zz',
      'a',
      'ç',
      '€',
      '\ufeff',
      ' ',
      '😀',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const body = pieces.join('');
        const { pairs } = formPairs(encoder.encode(body), 'utf-8');
        // A sequence URLSearchParams decodes as U+FFFD is one formPairs reads as Windows-1252 instead.
        const expected = [...new URLSearchParams(body)];
        if (expected.some(([k, v]) => `${k}${v}`.includes('\ufffd'))) return;
        expect(pairs).toEqual(expected);
      }),
    );
  });

  it('reads a percent-encoded Latin-1 byte as Windows-1252 and names the pair', () => {
    const { pairs, guessed } = formPairs(encoder.encode('nome=Jo%E3o&cidade=S%C3%A3o+Paulo&x=%80'), 'utf-8');
    expect(pairs).toEqual([
      ['nome', 'João'],
      ['cidade', 'São Paulo'],
      ['x', '€'],
    ]);
    expect(guessed).toEqual(['nome', 'x']);
  });

  it('reads every pair as Windows-1252 when the charset says so, without guessing', () => {
    expect(formPairs(encoder.encode('a=%C3%A3'), 'windows-1252')).toEqual({
      pairs: [['a', 'Ã£']],
      guessed: [],
    });
  });
});

describe('charsetOf', () => {
  it.each([
    ['application/json', 'utf-8'],
    ['application/json; charset=utf-8', 'utf-8'],
    ['application/json; charset=UTF-16', 'utf-8'],
    ['application/json; charset=ISO-8859-1', 'windows-1252'],
    ['application/x-www-form-urlencoded;charset="latin1"', 'windows-1252'],
    ['application/json; foo=bar; charset = cp1252', 'windows-1252'],
    [undefined, 'utf-8'],
  ])('%s is read as %s', (type, charset) => {
    expect(charsetOf(type)).toBe(charset);
  });
});

describe('decodeText and textPrefix', () => {
  it('never makes a U+FFFD from bytes that are not UTF-8, whole or as a prefix', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(64), (bytes, max) => {
        let strict: string | undefined;
        try {
          strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
        } catch {
          strict = undefined;
        }
        const { text, guessed } = decodeText(bytes, 'utf-8');
        expect(guessed).toBe(strict === undefined);
        expect(text).toBe(strict ?? new TextDecoder('windows-1252').decode(bytes));
        if (strict === undefined) expect(textPrefix(bytes, 'utf-8', max)).not.toContain('\ufffd');
        else expect(strict.startsWith(textPrefix(bytes, 'utf-8', max))).toBe(true);
      }),
    );
  });

  it('cuts a prefix at a character boundary, never half a UTF-8 character', () => {
    expect(textPrefix(encoder.encode('aé'), 'utf-8', 2)).toBe('a');
    expect(textPrefix(Uint8Array.of(0x61, 0xe3, 0x62), 'utf-8', 2)).toBe('aã');
  });
});
