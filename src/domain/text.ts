/**
 * The searchable form of a text: Unicode-aware lower case (SQLite's lower() and NOCASE only fold
 * ASCII). Stored beside the original so equality and `__contains` filters run on it. Final sigma
 * folds to σ: toLowerCase() picks ς or σ by position, which would make `ΟΔΥΣ` miss `Οδυσσέας`.
 */
export const normalizeText = (value: string): string =>
  value.normalize('NFC').toLowerCase().replace(/ς/g, 'σ');

/** A name column and its searchable twin, always written together. */
export const nameColumns = (name: string) => ({ name, nameNorm: normalizeText(name) });
