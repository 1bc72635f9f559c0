// "Find a lead" in the event log: the text a person types, turned into an FTS5 query of the
// inbound_event_text index (drizzle/0015_event_search.sql), whose `body` holds the payload's values
// and `digits` each phone-like value as its digits alone. Every term goes in as a quoted string, so
// nothing typed is FTS5 syntax: quotes, `NEAR`, `*`, `-`, `^`, `payload:` are text to find.

/** The shortest search: the trigram index finds substrings of 3 characters or more. */
export const MIN_SEARCH = 3;
/** The longest: a name, an email, a phone or two; longer text is no lead's. */
export const MAX_SEARCH = 200;

// What people put between a phone's digits; the index strips the same ones.
const PHONE_MARKS = /[\s()+./-]/g;
// The fewest digits a phone has (8: a Brazilian landline without its area code).
const PHONE_DIGITS = 8;

const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * The digits of `text` when it reads as a phone number (digits and the marks people put between
 * them, at least 8 digits), without a leading trunk 0 or Brazil's country code, so that the
 * number is found in a value written with or without them; else undefined.
 */
export function phoneDigits(text: string): string | undefined {
  if (!/^[\d\s()+./-]+$/.test(text)) return undefined;
  let digits = text.replace(PHONE_MARKS, '');
  if (digits.length < PHONE_DIGITS) return undefined;
  digits = digits.replace(/^0+/, '');
  if (digits.startsWith('55') && digits.length >= 12) digits = digits.slice(2);
  return digits.length >= PHONE_DIGITS ? digits : undefined;
}

/** One term: its text in `body`, or when it is a phone number, its digits in `digits` too. */
function termOf(text: string): string {
  const digits = phoneDigits(text);
  const inBody = `{body} : ${quoted(text)}`;
  return digits ? `(${inBody} OR {digits} : ${quoted(digits)})` : inBody;
}

/**
 * The FTS5 MATCH expression for `typed` (already trimmed, 3 to 200 characters): the whole text
 * when it is a phone number; else each word of 3 characters or more (all must be found, in any
 * order: "Souza Ana" finds Ana Souza), or the whole text when no word is that long ("a b").
 * Control characters count as spaces.
 */
export function eventMatch(typed: string): string {
  const text = typed
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (phoneDigits(text)) return termOf(text);
  const words = text.split(' ').filter((w) => [...w].length >= MIN_SEARCH);
  return words.length ? words.map(termOf).join(' AND ') : `{body} : ${quoted(text)}`;
}
