import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shownFormat, typedFormat } from '../../src/panel/format-words';
import { compileFormat } from '../../src/webhooks/rules/fields';

// A date format is shown as its reader writes it (AAAA in Portuguese) and read back as stored.

const TOKENS = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss'];
const SEPARATORS = ['/', '-', '.', ':', ',', 'T', ' '];
/** Formats made of the stored tokens and separators, valid or not. */
const formats = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.map(([t, s]) => t + s).join(''));

describe('a date format in words', () => {
  it('round trips: what a Portuguese page shows reads back to what is stored', () => {
    fc.assert(
      fc.property(formats, (f) => {
        const shown = shownFormat('pt-BR', f);
        expect(shown).not.toContain('YYYY');
        expect(typedFormat(shown)).toBe(f);
        expect(shownFormat('en', f)).toBe(f);
        expect(typedFormat(f)).toBe(f);
      }),
    );
  });

  it('reads DD/MM/AAAA (or aaaa) as DD/MM/YYYY, a format the rules take', () => {
    expect(typedFormat('DD/MM/AAAA')).toBe('DD/MM/YYYY');
    expect(typedFormat('aaaa-MM-DD HH:mm')).toBe('YYYY-MM-DD HH:mm');
    expect(compileFormat(typedFormat('DD/MM/AAAA'))).toHaveProperty('pattern');
    expect(compileFormat('DD/MM/AAAA')).toHaveProperty('error');
    expect(shownFormat('pt-BR', 'DD/MM/YYYY HH:mm')).toBe('DD/MM/AAAA HH:mm');
  });
});
