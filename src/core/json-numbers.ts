import type { FieldError } from './errors';
import { said } from './said';

// JSON.parse reads every number as a double, so a whole number beyond ±2^53 - 1 comes back rounded
// (9007199254740993 as 9007199254740992) with nothing to tell it was: only the text still holds the
// digits that were sent. This finds them there.

/** Text with no 16 digits in a row holds no whole number beyond Number.MAX_SAFE_INTEGER. */
const LONG_DIGITS = /\d{16}/;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/** A whole number of a JSON text that JSON.parse rounds: where it is and the digits sent. */
export type UnsafeInteger = { path: string; sent: string };

/**
 * The whole numbers (written with digits only) beyond ±Number.MAX_SAFE_INTEGER in `text`, valid
 * JSON, with the dot path of each (`custom_fields.order`, `items.2`). Read without recursion (a body
 * may nest 100,000 levels), and only when the text has 16 digits in a row.
 */
export function unsafeIntegers(text: string): UnsafeInteger[] {
  if (!LONG_DIGITS.test(text)) return [];
  const found: UnsafeInteger[] = [];
  // The path to the value being read: an object's current key, an array's current index.
  const path: (string | number)[] = [];
  const inObject: boolean[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; ) {
    const ch = text[i] as string;
    if (ch === '{' || ch === '[') {
      path.push(ch === '{' ? '' : 0);
      inObject.push(ch === '{');
      keyNext = ch === '{';
      i++;
    } else if (ch === '}' || ch === ']') {
      path.pop();
      inObject.pop();
      i++;
    } else if (ch === ',') {
      if (inObject.at(-1)) keyNext = true;
      else path[path.length - 1] = (path.at(-1) as number) + 1;
      i++;
    } else if (ch === '"') {
      STRING.lastIndex = i;
      const token = STRING.exec(text)?.[0] ?? text.slice(i);
      if (keyNext) path[path.length - 1] = JSON.parse(token) as string;
      keyNext = false;
      i += token.length;
    } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      NUMBER.lastIndex = i;
      const [token = ch, fraction, exponent] = NUMBER.exec(text) ?? [];
      if (!fraction && !exponent && !Number.isSafeInteger(Number(token))) {
        found.push({ path: path.join('.'), sent: token });
      }
      i += token.length;
    } else i++;
  }
  return found;
}

/** What a person reads about an unsafe whole number, refused (`/v1`) or read rounded (ingest). */
export function unsafeIntegerError(
  { path, sent }: UnsafeInteger,
  outcome: 'refused' | 'rounded',
): FieldError {
  const read = Number(sent);
  const params = { sent, outcome };
  return {
    path,
    ...said('unsafe_integer', Number.isFinite(read) ? { ...params, becomes: `${BigInt(read)}` } : params),
  };
}
