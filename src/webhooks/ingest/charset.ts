// Text and form bodies decoded from their bytes, so that no byte turns silently into U+FFFD.

import type { FieldError } from '../../core/errors';
import { said } from '../../core/said';

/** The WHATWG labels of Windows-1252, which every Latin-1 label means on the web. */
const WINDOWS_1252 = new Set([
  'ansi_x3.4-1968',
  'ascii',
  'cp1252',
  'cp819',
  'csisolatin1',
  'ibm819',
  'iso-8859-1',
  'iso-ir-100',
  'iso8859-1',
  'iso88591',
  'iso_8859-1',
  'iso_8859-1:1987',
  'l1',
  'latin1',
  'us-ascii',
  'windows-1252',
  'x-cp1252',
]);

/**
 * How a body's bytes are read: `windows-1252` when its Content-Type declares a Latin-1 charset,
 * else `utf-8` (no charset, UTF-8, or one ingest does not know: the bytes decide then).
 */
export type Charset = 'utf-8' | 'windows-1252';

export function charsetOf(contentType: string | undefined): Charset {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return WINDOWS_1252.has(m?.[1]?.toLowerCase() ?? '') ? 'windows-1252' : 'utf-8';
}

// Stateless between calls that do not stream, so one of each serves every request.
const latin = new TextDecoder('windows-1252');
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
// A form value keeps a leading U+FEFF, as URLSearchParams does; only a whole body starts with a BOM.
const utf8KeepingBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as UTF-8, or undefined when they are not valid UTF-8. */
function strictUtf8(bytes: Uint8Array, decoder: TextDecoder): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The bytes as text in `charset`; bytes declared (or assumed) UTF-8 that are not are read as
 * Windows-1252, the charset old Latin-1 senders mean, and `guessed` says so. Never a U+FFFD that
 * the bytes did not hold.
 */
export function decodeText(
  bytes: Uint8Array,
  charset: Charset,
  decoder = utf8,
): { text: string; guessed: boolean } {
  if (charset === 'windows-1252') return { text: latin.decode(bytes), guessed: false };
  const text = strictUtf8(bytes, decoder);
  return text === undefined ? { text: latin.decode(bytes), guessed: true } : { text, guessed: false };
}

/**
 * The start of a body as text, for the record of a refused call: at most `max` bytes, never half a
 * UTF-8 character, and Windows-1252 when the body (as a whole) is not UTF-8.
 */
export function textPrefix(bytes: Uint8Array, charset: Charset, max: number): string {
  const head = bytes.subarray(0, max);
  if (charset === 'windows-1252' || strictUtf8(bytes, utf8) === undefined) return latin.decode(head);
  // Streaming leaves out a character cut in half at the limit (its own decoder: it keeps state).
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(head, { stream: true });
}

const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

const hexValue = (byte: number | undefined): number => {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
};

/** application/x-www-form-urlencoded percent-decoding on bytes: `+` is a space, `%XX` one byte. */
function percentDecode(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    const high = byte === PERCENT ? hexValue(bytes[i + 1]) : -1;
    const low = high < 0 ? -1 : hexValue(bytes[i + 2]);
    if (low >= 0) {
      out[n++] = high * 16 + low;
      i += 2;
    } else out[n++] = byte === PLUS ? SPACE : byte;
  }
  return out.subarray(0, n);
}

/** The byte ranges between each `separator`, without the empty ones. */
function split(bytes: Uint8Array, separator: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== separator) continue;
    if (i > start) parts.push(bytes.subarray(start, i));
    start = i + 1;
  }
  return parts;
}

const AMPERSAND = 0x26;
const EQUALS = 0x3d;

/**
 * A form body's name/value pairs, percent-decoded on bytes (URLSearchParams decodes `%E3` as
 * U+FFFD) and then read in `charset`, as the URL standard splits them. `guessed` names each pair
 * whose bytes were not UTF-8 and so were read as Windows-1252.
 */
export function formPairs(
  body: Uint8Array,
  charset: Charset,
): { pairs: [string, string][]; guessed: string[] } {
  const pairs: [string, string][] = [];
  const guessed: string[] = [];
  for (const part of split(body, AMPERSAND)) {
    const at = part.indexOf(EQUALS);
    const name = decodeText(percentDecode(at < 0 ? part : part.subarray(0, at)), charset, utf8KeepingBom);
    const value = decodeText(
      percentDecode(at < 0 ? new Uint8Array() : part.subarray(at + 1)),
      charset,
      utf8KeepingBom,
    );
    pairs.push([name.text, value.text]);
    if (name.guessed || value.guessed) guessed.push(name.text);
  }
  return { pairs, guessed };
}

/** How many form keys read as Windows-1252 are named one by one; the rest are counted. */
const MAX_NAMED = 10;

/**
 * The warnings of a body whose bytes were read as Windows-1252: one per form key (`paths`, each
 * named once, the first MAX_NAMED of them), or one with path '' for a JSON body or the keys beyond.
 */
export function latinWarnings(paths: readonly string[] | 'body'): FieldError[] {
  const latin = said('decoded_as_windows_1252');
  if (paths === 'body') return [{ path: '', ...latin }];
  const unique = [...new Set(paths)];
  const named = unique.slice(0, MAX_NAMED).map((path) => ({ path, ...latin }));
  const more = unique.length - named.length;
  return more > 0 ? [...named, { path: '', ...said('decoded_as_windows_1252', { more }) }] : named;
}
