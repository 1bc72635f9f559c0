const SEPARATORS = /[\s().-]/g;

// Any run of separators, which normalizePhone drops wherever they are.
const S = '[\\s().-]*';
const digits = (n: string) => `(?:\\d${S}){${n}}`;

/**
 * Exactly what normalizePhone reads, as an OpenAPI pattern (a test holds the two equal on
 * generated strings): separators anywhere around `+` or `00` and 8 to 15 digits, the first not
 * 0; or a Brazilian national number, with an optional trunk `0` and country `55`, a 2-digit area
 * code (no 0) and an 8-digit landline (2-8 first) or a 9-digit mobile (9 first).
 */
export const PHONE_SHAPE = new RegExp(
  `^${S}(?:(?:\\+|0${S}0)${S}[1-9]${S}${digits('7,14')}|(?:0${S})?(?:5${S}5${S})?[1-9]${S}[1-9]${S}(?:9${S}${digits('8')}|[2-8]${S}${digits('7')}))$`,
);

/** A phone as stored and returned. */
export const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * A phone number in E.164 (`+5511987654321`), or undefined when it is not one we can read.
 * Accepted: international form (`+CC...` or `00CC...`, 8 to 15 digits) and Brazilian national
 * forms (`(11) 98765-4321`, `011 98765-4321`, `11 3456-7890`, `55 11 98765-4321`): a 2-digit
 * area code and an 8-digit landline or a 9-digit mobile starting with 9.
 */
export function normalizePhone(input: string): string | undefined {
  const compact = input.trim().replace(SEPARATORS, '');
  const international = compact.startsWith('+')
    ? compact.slice(1)
    : compact.startsWith('00')
      ? compact.slice(2)
      : null;
  if (international !== null) {
    return /^[1-9]\d{7,14}$/.test(international) ? `+${international}` : undefined;
  }
  if (!/^\d+$/.test(compact)) return undefined;
  const national = compact.replace(/^0/, '');
  const withoutCountry = /^55\d{10,11}$/.test(national) ? national.slice(2) : national;
  return /^[1-9][1-9](?:9\d{8}|[2-8]\d{7})$/.test(withoutCountry) ? `+55${withoutCountry}` : undefined;
}
