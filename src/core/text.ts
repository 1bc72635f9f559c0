/**
 * The searchable form of a text: Unicode-aware lower case (SQLite's lower() and NOCASE only fold
 * ASCII). Stored beside the original so equality and `__contains` filters run on it. Final sigma
 * folds to σ: toLowerCase() picks ς or σ by position, which would make `ΟΔΥΣ` miss `Οδυσσέας`.
 */
export const normalizeText = (value: string): string =>
  value.normalize('NFC').toLowerCase().replace(/ς/g, 'σ');

/** A name column and its searchable twin, always written together. */
/**
 * Refuses strings with lone UTF-16 surrogates: D1 would store them as invalid UTF-8, which reads back
 * as U+FFFD, so two different inputs would look alike and sort apart from their cursors.
 */
export const wellFormed = [
  (value: string) => value.isWellFormed(),
  'Expected well-formed Unicode text (no lone surrogates).',
] as const;

export const nameColumns = (name: string) => ({ name, nameNorm: normalizeText(name) });

/** A text as a `__contains` search compares it: normalised and without the accents of `ACCENTED`. */
export const foldText = (value: string): string => withoutAccents(normalizeText(value));

/** The name columns of a searchable table (users, contacts, companies): with its folded twin. */
export const searchableName = (name: string) => ({ ...nameColumns(name), nameFold: foldText(name) });

/**
 * The OpenAPI pattern of a text that is trimmed and must not be empty: it holds a character `\s`
 * (the whitespace `trim()` removes) does not match.
 */
export const NOT_BLANK = '\\S';

/** What the API says of an empty or all-whitespace text, in place of zod's "Too small: …". */
export const BLANK = 'This field must not be blank.';

export const MAX_EMAIL = 254;
/**
 * The shape of an email address: zod's own `z.email()` pattern, held here so the pure rules (a
 * webhook's email field) and the /v1 schemas accept exactly the same addresses.
 */
export const EMAIL =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** An email address as the API accepts it, trimmed, or undefined when `raw` is none. */
export function parseEmail(raw: string): string | undefined {
  const value = raw.trim();
  return value.length <= MAX_EMAIL && EMAIL.test(value) ? value : undefined;
}

/**
 * The lower-case letters whose accents a `__contains` search ignores, each with its base letter
 * (`ã` -> `a`, `ç` -> `c`): Portuguese's 13, and Spanish's `ñ`. A subset of what SQLite's trigram
 * `remove_diacritics` folds, so the search index never misses a row the check accepts
 * (src/db/search.ts). These few only: SQL folds with one nested replace() per letter, and SQLite
 * refuses an expression deeper than 100 levels (the list queries' subqueries count), while D1 caps
 * a GLOB pattern at 50 bytes, too short for a class per letter.
 */
export const ACCENTED: readonly (readonly [string, string])[] = [...'áàâãçéêíóôõúüñ'].map(
  (letter) => [letter, letter.normalize('NFD').replace(/[\u0300-\u036f]/g, '')] as const,
);

const ACCENT_OF = new Map(ACCENTED);
const ACCENTS = new RegExp(`[${ACCENTED.map(([letter]) => letter).join('')}]`, 'g');

/** A normalised text without the accents of `ACCENTED`: what a `__contains` search compares. */
export const withoutAccents = (normalized: string): string =>
  normalized.replace(ACCENTS, (letter) => ACCENT_OF.get(letter) ?? letter);
