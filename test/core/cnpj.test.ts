import { describe, expect, it } from 'vitest';
import { canonicalCnpj } from '../../src/core/cnpj';
import { mask, withCheckDigits } from '../cnpj';

/** A small deterministic generator, so the property cases are the same on every run. */
function* bases(count: number, alphabet: string): Generator<string> {
  let seed = 0x2f6b_1d3;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed >>> 8;
  };
  for (let n = 0; n < count; n++) {
    let base = '';
    for (let i = 0; i < 12; i++) base += alphabet[next() % alphabet.length];
    yield base;
  }
}

const DIGITS = '0123456789';
const ALNUM = `${DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZ`;

describe('the reference check digits used by these tests', () => {
  it.each([
    ['112223330001', '11222333000181'],
    ['123456780001', '12345678000195'],
    ['12ABC34501DE', '12ABC34501DE35'],
  ])('agree with the published example %s -> %s', (base, full) => {
    expect(withCheckDigits(base)).toBe(full);
  });
});

describe('canonicalCnpj: valid numeric CNPJs', () => {
  it.each([
    ['11222333000181', '11222333000181'],
    ['11.222.333/0001-81', '11222333000181'],
    ['12345678000195', '12345678000195'],
    ['12.345.678/0001-95', '12345678000195'],
    ['11444777000161', '11444777000161'],
    ['11.444.777/0001-61', '11444777000161'],
    // Leading zeros are part of the number, not padding to strip.
    ['00000000000191', '00000000000191'],
    ['00.000.000/0001-91', '00000000000191'],
    ['99999999000191', '99999999000191'],
    // A first check digit of 0 (remainder < 2) and a second one of 0.
    ['11222333000939', '11222333000939'],
  ])('accepts %j as %s', (input, canonical) => {
    expect(canonicalCnpj(input)).toBe(canonical);
  });

  it('accepts every generated numeric CNPJ, masked or not, and nothing with another check digit', () => {
    for (const base of bases(200, DIGITS)) {
      const cnpj = withCheckDigits(base);
      if (/^(.)\1*$/.test(cnpj)) continue;
      expect(canonicalCnpj(cnpj), cnpj).toBe(cnpj);
      expect(canonicalCnpj(mask(cnpj)), mask(cnpj)).toBe(cnpj);
      for (let d = 0; d <= 9; d++) {
        const wrongFirst = `${base}${d}${cnpj[13]}`;
        const wrongSecond = `${base}${cnpj[12]}${d}`;
        if (wrongFirst !== cnpj) expect(canonicalCnpj(wrongFirst), wrongFirst).toBeUndefined();
        if (wrongSecond !== cnpj) expect(canonicalCnpj(wrongSecond), wrongSecond).toBeUndefined();
      }
    }
  });
});

describe('canonicalCnpj: valid alphanumeric CNPJs', () => {
  it.each([
    ['12ABC34501DE35', '12ABC34501DE35'],
    ['12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['ABCDEFGHIJKL80', 'ABCDEFGHIJKL80'],
    ['AB.CDE.FGH/IJKL-80', 'ABCDEFGHIJKL80'],
    ['1A2B3C4D5E6F34', '1A2B3C4D5E6F34'],
    ['X1Y2Z3W4V5U610', 'X1Y2Z3W4V5U610'],
    ['ZZZZZZZZZZZZ62', 'ZZZZZZZZZZZZ62'],
  ])('accepts %j as %s', (input, canonical) => {
    expect(canonicalCnpj(input)).toBe(canonical);
  });

  it.each([
    ['12abc34501de35', '12ABC34501DE35'],
    ['12.abc.345/01de-35', '12ABC34501DE35'],
    ['12aBc34501dE35', '12ABC34501DE35'],
    ['12.Abc.345/01De-35', '12ABC34501DE35'],
    ['abcdefghijkl80', 'ABCDEFGHIJKL80'],
    ['x1y2z3w4v5u610', 'X1Y2Z3W4V5U610'],
  ])('accepts lower-case letters in %j and returns them upper-case: %s', (input, canonical) => {
    expect(canonicalCnpj(input)).toBe(canonical);
  });

  it('accepts every generated alphanumeric CNPJ in both cases, masked or not, and no other check digit', () => {
    for (const base of bases(200, ALNUM)) {
      const cnpj = withCheckDigits(base);
      expect(canonicalCnpj(cnpj), cnpj).toBe(cnpj);
      expect(canonicalCnpj(cnpj.toLowerCase()), cnpj.toLowerCase()).toBe(cnpj);
      expect(canonicalCnpj(mask(cnpj)), mask(cnpj)).toBe(cnpj);
      expect(canonicalCnpj(mask(cnpj).toLowerCase()), mask(cnpj).toLowerCase()).toBe(cnpj);
      for (let d = 0; d <= 9; d++) {
        const wrongFirst = `${base}${d}${cnpj[13]}`;
        const wrongSecond = `${base}${cnpj[12]}${d}`;
        if (wrongFirst !== cnpj) expect(canonicalCnpj(wrongFirst), wrongFirst).toBeUndefined();
        if (wrongSecond !== cnpj) expect(canonicalCnpj(wrongSecond), wrongSecond).toBeUndefined();
      }
    }
  });

  it('counts a letter as its ASCII code minus 48, not as its position in the alphabet', () => {
    // A counted as 1 (or 10) would give other check digits; only ASCII - 48 (A = 17) gives 35.
    expect(canonicalCnpj('12ABC34501DE35')).toBe('12ABC34501DE35');
    expect(withCheckDigits('12ABC34501DE')).toBe('12ABC34501DE35');
    // The lower-case spelling is checked as its upper case (a = 49 would give other digits).
    expect(withCheckDigits('12abc34501de').charAt(12)).not.toBe('3');
    expect(canonicalCnpj('12abc34501de35')).toBe('12ABC34501DE35');
  });
});

describe('canonicalCnpj: surrounding spaces', () => {
  it.each([
    [' 11222333000181', '11222333000181'],
    ['11222333000181 ', '11222333000181'],
    ['   11.222.333/0001-81   ', '11222333000181'],
    ['  12.abc.345/01de-35 ', '12ABC34501DE35'],
  ])('ignores them in %j', (input, canonical) => {
    expect(canonicalCnpj(input)).toBe(canonical);
  });
});

describe('canonicalCnpj: wrong check digits', () => {
  it.each([
    ['11222333000191', 'first'],
    ['11222333000171', 'first'],
    ['11.222.333/0001-91', 'first (masked)'],
    ['11222333000182', 'second'],
    ['11222333000180', 'second'],
    ['11.222.333/0001-82', 'second (masked)'],
    ['11222333000118', 'both swapped'],
    ['12345678000196', 'second'],
    ['12345678000185', 'first'],
    ['12ABC34501DE45', 'first (alphanumeric)'],
    ['12ABC34501DE36', 'second (alphanumeric)'],
    ['12.ABC.345/01DE-53', 'both swapped (alphanumeric, masked)'],
    ['12abc34501de34', 'second (lower case)'],
    // A valid base with one base character changed: the digits no longer fit.
    ['11222333000281', 'base changed'],
    ['12ABC34501DF35', 'base letter changed'],
  ])('rejects %j (%s check digit wrong)', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });
});

describe('canonicalCnpj: one repeated character', () => {
  it.each([
    ['00000000000000'],
    ['00.000.000/0000-00'],
    ['  00000000000000  '],
    ['11111111111111'],
    ['99999999999999'],
    ['AAAAAAAAAAAAAA'],
    ['aaaaaaaaaaaaaa'],
  ])('rejects %j', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });

  it('rejects 00000000000000 even though its check digits add up', () => {
    // The only repeated character whose own check digits match: the rule must reject it explicitly.
    expect(withCheckDigits('000000000000')).toBe('00000000000000');
    expect(canonicalCnpj('00000000000000')).toBeUndefined();
  });
});

describe('canonicalCnpj: letters where the check digits go', () => {
  it.each([
    ['12ABC34501DE3A'],
    ['12ABC34501DEA5'],
    ['12ABC34501DEAB'],
    ['1122233300018A'],
    ['112223330001A1'],
    ['12.ABC.345/01DE-3A'],
    ['12.ABC.345/01DE-A5'],
    ['12abc34501de3a'],
  ])('rejects %j', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });
});

describe('canonicalCnpj: wrong length', () => {
  it.each([
    [''],
    [' '],
    ['1'],
    ['1122233300018'],
    ['112223330001810'],
    ['011222333000181'],
    ['11222333000181011222333000181'],
    ['12ABC34501DE3'],
    ['12ABC34501DE355'],
    ['11.222.333/0001-8'],
    ['11.222.333/0001-811'],
    ['11.222.333/001-81'],
    ['011.222.333/0001-81'],
    ['1.222.333/0001-81'],
  ])('rejects %j', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });
});

describe('canonicalCnpj: partial or misplaced masks', () => {
  it.each([
    ['11.222.333000181'],
    ['11222333/0001-81'],
    ['11.222.333/000181'],
    ['11.222333/0001-81'],
    ['11222.333/0001-81'],
    ['112223330001-81'],
    ['11.222.333/0001.81'],
    ['11-222-333/0001-81'],
    ['11.222.333-0001/81'],
    ['11/222/333/0001/81'],
    ['112.223.330/001-81'],
    ['11.222.333//0001-81'],
    ['11..222.333/0001-81'],
    ['.11.222.333/0001-81'],
    ['11.222.333/0001-81.'],
    ['12.ABC.345/01DE35'],
    ['12ABC345/01DE-35'],
  ])('rejects %j', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });
});

describe('canonicalCnpj: inner spaces and other characters', () => {
  it.each([
    ['11 222 333 0001 81', 'spaces instead of the mask'],
    ['11222333 000181', 'an inner space'],
    ['11.222.333/ 0001-81', 'a space inside the mask'],
    ['11. 222.333/0001-81', 'a space after a dot'],
    ['11_222_333_0001_81', 'underscores'],
    ['11,222,333/0001-81', 'commas'],
    ['1122233300018!', 'punctuation'],
    ['+11222333000181', 'a sign'],
    ['-11222333000181', 'a sign'],
    ['1122233300\u00a00181', 'a no-break space inside'],
    ['11222333000181\u0000', 'a NUL character'],
    ['12ÇBC34501DE35', 'a letter outside A-Z'],
    ['12ÁBC34501DE35', 'an accented letter'],
    ['１１２２２３３３０００１８１', 'full-width digits'],
    ['١١٢٢٢٣٣٣٠٠٠١٨١', 'Arabic-Indic digits'],
    ['11222333000181'.replace('1', '١'), 'one Arabic-Indic digit'],
    ['1.1222333E13', 'a number in exponent notation'],
    ['0x11222333000181', 'a hex prefix'],
  ])('rejects %j (%s)', (input) => {
    expect(canonicalCnpj(input)).toBeUndefined();
  });

  it.each([
    // U+0131 (dotless i) upper-cases to I, U+017F (long s) to S, U+FB00 (ff ligature) to FF: none is A-Z.
    ['12ıBC34501DE10', '12IBC34501DE10'],
    ['12ſBC34501DE48', '12SBC34501DE48'],
    ['1ﬀ23456789093', '1FF23456789093'],
  ])('rejects %j, a non-ASCII letter that upper-cases into the valid %s', (input, asciiTwin) => {
    expect(canonicalCnpj(asciiTwin)).toBe(asciiTwin);
    expect(canonicalCnpj(input)).toBeUndefined();
  });
});
