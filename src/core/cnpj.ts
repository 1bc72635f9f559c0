// The Receita Federal's layout: 12 base characters (digits, or since July 2026 letters A-Z too)
// and 2 check digits, bare or in the usual mask `XX.XXX.XXX/XXXX-XX`.
// ASCII letters only, matched before upper-casing: JavaScript upper-cases `ı` to `I` and `ſ` to `S`.
export const BARE = /^[0-9A-Za-z]{12}\d{2}$/;
export const MASKED = /^[0-9A-Za-z]{2}\.[0-9A-Za-z]{3}\.[0-9A-Za-z]{3}\/[0-9A-Za-z]{4}-\d{2}$/;

/** Modulo 11 check digit; each character counts as its ASCII code minus 48 (`A` is 17). */
export function checkDigit(base: string): number {
  let sum = 0;
  for (let i = 0; i < base.length; i++) {
    // Weights run 2..9 from the right, then start again at 2.
    const weight = ((base.length - 1 - i) % 8) + 2;
    sum += (base.charCodeAt(i) - 48) * weight;
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** The 14 characters of a CNPJ-shaped input, unmasked and upper-cased, or undefined. */
function bareCnpj(input: string): string | undefined {
  const value = input.trim();
  const bare = MASKED.test(value) ? value.replace(/[./-]/g, '') : value;
  return BARE.test(bare) ? bare.toUpperCase() : undefined;
}

/**
 * A CNPJ of one repeated character (`00.000.000/0000-00`): reserved, never a company's, although
 * the all-zero one's check digits add up.
 */
export function reservedCnpj(input: string): boolean {
  const cnpj = bareCnpj(input);
  return cnpj !== undefined && /^(.)\1*$/.test(cnpj);
}

/**
 * The canonical form of a CNPJ (14 characters, no mask, upper case), or undefined when it is not
 * a valid one: wrong characters or length, wrong check digits, or one repeated character.
 */
export function canonicalCnpj(input: string): string | undefined {
  const cnpj = bareCnpj(input);
  if (cnpj === undefined || reservedCnpj(cnpj)) return undefined;
  const first = checkDigit(cnpj.slice(0, 12));
  const second = checkDigit(cnpj.slice(0, 12) + first);
  return cnpj.endsWith(`${first}${second}`) ? cnpj : undefined;
}
