// `{{ key }}` or `{{ key|default }}`: a declared field's dot path, spaces around it allowed, and the
// text to put when the field is missing or empty. The first `|` starts the default, which may hold
// further `|` (`{{a|x|y}}` defaults to `x|y`) but no brace.
const PLACEHOLDER = /\{\{\s*([^{}|\s]+)\s*(?:\|([^{}]*))?\}\}/g;

/** The keys a template refers to. */
export const templateKeys = (template: string): string[] =>
  [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');

type Value = string | number | boolean | undefined;

// Marks an empty placeholder while separators are tidied. A lone surrogate: no well-formed text
// holds one, and a template or value that does is rendered without the tidying.
const EMPTY = '\uD800';
// The separators a name is made with: a spaced dash (`Lead - X`, not `Jean-Paul`), `/ , | :`.
// The spaces around one are bounded: a sender's value of 10,000 spaces would otherwise make each
// match try every start in it (measured: 460 ms per template unbounded, 2 ms bounded).
const BEFORE = String.raw`(?:\s{1,8}[-–—]\s{0,8}|\s{0,8}[/,|:]\s{0,8})`;
const AFTER = String.raw`(?:\s{0,8}[-–—]\s{1,8}|\s{0,8}[/,|:]\s{0,8})`;
const BETWEEN = new RegExp(`(${BEFORE})${EMPTY}${AFTER}`);
const LEADING = new RegExp(`^\\s*${EMPTY}${AFTER}`);
const TRAILING = new RegExp(`${BEFORE}${EMPTY}\\s*$`);
const RUN = new RegExp(`${EMPTY}(?:\\s*${EMPTY})+`, 'g');

/** Replaces `pattern` until it no longer matches (each pass removes one empty placeholder). */
function untilStable(text: string, pattern: RegExp, by: string): string {
  let out = text;
  for (let next = out.replace(pattern, by); next !== out; next = out.replace(pattern, by)) out = next;
  return out;
}

/**
 * The template with each placeholder replaced by its value, or its default when the value is
 * missing or blank, trimmed. A separator left dangling by an empty placeholder goes with it:
 * `Lead site - {{x}}` gives `Lead site`, `{{a}} / {{b}}` gives `A`, `A - {{x}} - B` gives `A - B`.
 */
export function render(template: string, value: (key: string) => Value): string {
  let tidy = !template.includes(EMPTY);
  const filled = template.replace(PLACEHOLDER, (_, key: string, fallback: string | undefined) => {
    const found = value(key);
    const text =
      found === undefined || String(found).trim() === '' ? (fallback?.trim() ?? '') : String(found);
    if (text.includes(EMPTY)) tidy = false;
    return text === '' ? EMPTY : text;
  });
  if (!tidy) return filled.replaceAll(EMPTY, '').trim();
  let out = filled.replace(RUN, EMPTY);
  out = untilStable(out, BETWEEN, '$1');
  out = untilStable(out, LEADING, '');
  out = untilStable(out, TRAILING, '');
  return out.replaceAll(EMPTY, '').trim();
}
