// The CNPJ check digits exactly as the Receita Federal publishes them, written independently of the
// code under test: weights 5,4,3,2,9,8,7,6,5,4,3,2 then 6,5,4,3,2,9,8,7,6,5,4,3,2; each character
// counts as its ASCII code minus 48; remainder < 2 gives 0, else 11 - remainder.
const FIRST_WEIGHTS = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const SECOND_WEIGHTS = [6, ...FIRST_WEIGHTS];

function referenceDigit(chars: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < chars.length; i++) sum += (chars.charCodeAt(i) - 48) * (weights[i] as number);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** A full 14-character CNPJ from a 12-character base (digits or A-Z). */
export function withCheckDigits(base: string): string {
  const first = referenceDigit(base, FIRST_WEIGHTS);
  const second = referenceDigit(`${base}${first}`, SECOND_WEIGHTS);
  return `${base}${first}${second}`;
}

/** The masked form `AA.AAA.AAA/AAAA-DD` of a bare 14-character CNPJ. */
export const mask = (cnpj: string): string =>
  `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12, 14)}`;
