/**
 * CSV read on bytes, not text (RFC 4180 with the habits of real files): quotes, the delimiter, CR
 * and LF are ASCII in UTF-8 and in Windows-1252 alike, so records are found before any decoding
 * and each record's byte offsets are exact: an import resumes at a byte (src/model/imports.ts).
 */
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const BOM = [0xef, 0xbb, 0xbf];

/** A record longer than this (bytes) fails alone, its cells unread. */
export const MAX_RECORD_BYTES = 32 * 1024;

export type RawRecord = {
  /** The physical line it starts on, 1-based. */
  line: number;
  cells: Uint8Array[];
  tooLong: boolean;
};

/** Bytes the file's BOM takes (0 without one). */
export const bomLength = (bytes: Uint8Array): number => (BOM.every((b, i) => bytes[i] === b) ? 3 : 0);

/** The delimiter the header line uses most among `;`, `,` and tab (`,` when none). */
export function detectDelimiter(bytes: Uint8Array): string {
  const end = bytes.indexOf(LF);
  const head = end < 0 ? bytes : bytes.subarray(0, end);
  let best = ',';
  let most = 0;
  for (const d of [',', ';', '\t']) {
    const code = d.charCodeAt(0);
    const count = head.reduce((n, b) => (b === code ? n + 1 : n), 0);
    if (count > most) [best, most] = [d, count];
  }
  return best;
}

type Field = { cell: Uint8Array; next: number } | undefined;

/** A quoted field from `at` (its opening quote), its `""` unescaped; undefined: it does not end here. */
function quoted(bytes: Uint8Array, at: number): Field {
  const out: number[] = [];
  for (let i = at + 1; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b !== QUOTE) out.push(b);
    else if (bytes[i + 1] === QUOTE) {
      out.push(QUOTE);
      i++;
    } else return { cell: Uint8Array.from(out), next: i + 1 };
  }
  return undefined;
}

/** One record from `at`: its cells and where the next starts; undefined: it does not end in `bytes`. */
function record(bytes: Uint8Array, at: number, delimiter: number, eof: boolean) {
  const cells: Uint8Array[] = [];
  let i = at;
  for (;;) {
    let field: Field;
    if (bytes[i] === QUOTE) field = quoted(bytes, i);
    else {
      let j = i;
      while (j < bytes.length && bytes[j] !== delimiter && bytes[j] !== CR && bytes[j] !== LF) j++;
      field = { cell: bytes.subarray(i, j), next: j };
    }
    if (!field) return undefined;
    cells.push(field.cell);
    // Anything between a closing quote and the delimiter is kept out, as spreadsheets do.
    let j = field.next;
    while (j < bytes.length && bytes[j] !== delimiter && bytes[j] !== CR && bytes[j] !== LF) j++;
    if (j >= bytes.length) return eof ? { cells, next: j } : undefined;
    if (bytes[j] === delimiter) {
      i = j + 1;
      continue;
    }
    if (bytes[j] === CR && j + 1 >= bytes.length && !eof) return undefined;
    return { cells, next: bytes[j] === CR && bytes[j + 1] === LF ? j + 2 : j + 1 };
  }
}

const lineBreaks = (bytes: Uint8Array, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] === LF) n++;
  return n;
};

const blank = (cells: Uint8Array[]) => cells.length === 1 && cells[0]?.length === 0;

/**
 * Up to `max` records of `bytes` (a window of the file from a record's start), blank lines
 * skipped; `used`: bytes read, up to the end of the last whole record; `lines`: line breaks in them.
 * A record that does not end in the window is left for the next one, unless the window is the
 * file's end (`eof`).
 */
export function readRecords(
  bytes: Uint8Array,
  delimiter: string,
  max: number,
  eof: boolean,
  firstLine: number,
) {
  const code = delimiter.charCodeAt(0);
  const records: RawRecord[] = [];
  let at = 0;
  let line = firstLine;
  while (records.length < max && at < bytes.length) {
    const found = record(bytes, at, code, eof);
    if (!found) break;
    const tooLong = found.next - at > MAX_RECORD_BYTES;
    if (!blank(found.cells)) records.push({ line, cells: tooLong ? [] : found.cells, tooLong });
    line += lineBreaks(bytes, at, found.next);
    at = found.next;
  }
  return { records, used: at, lines: line - firstLine };
}
