import type { ZodError } from 'zod';
import type { FieldError } from '../core/errors';
import type { Params, Said } from '../core/said';

// A zod error as the API's field errors: one home below every user (the /v1 routes, the queue's
// flows, the panel), so none of them imports another's layer for it.

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const dotted = (path: PropertyKey[]) => path.map(String).join('.');

/**
 * A zod error as field errors, each path dotted; `data` tells a missing value from a wrong one.
 * `withParams`: zod's own codes (`too_big`, `too_small`, `invalid_value`, `invalid_type`,
 * `unknown_field`) carry params too, for the panel, which words them in the page's language;
 * `/v1`'s bodies keep these without params (their English message is their words).
 */
export function fieldErrors(error: ZodError, data: unknown, withParams = false): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: dotted([...issue.path, key]),
        code: 'unknown_field',
        message: `Unknown field "${key}".`,
        ...(withParams && { params: { key } }),
      }));
    }
    if (issue.code === 'invalid_key') return [keyError(issue.path, issue.issues[0])];
    const missing = issue.code === 'invalid_type' && valueAt(data, issue.path) === undefined;
    // A custom check's own params (saidIssue); zod's own codes' only when asked.
    const params =
      issue.code === 'custom'
        ? (issue.params?.params as Params | undefined)
        : withParams && !missing
          ? zodParams(issue, valueAt(data, issue.path))
          : undefined;
    return [
      {
        path: dotted(issue.path),
        code: missing
          ? 'required'
          : issue.code === 'custom'
            ? String(issue.params?.code ?? 'invalid')
            : issue.code,
        message: missing ? 'This field is required.' : issueWords(issue, valueAt(data, issue.path)),
        ...(withParams && missing && { params: {} }),
        ...(params && { params }),
      },
    ];
  });
}

type Issue = ZodError['issues'][number];

/** A message of src/core/said.ts as a zod custom issue: fieldErrors() gives back its code and params. */
export const saidIssue = ({ code, params, message }: Said, path?: PropertyKey[]) => ({
  code: 'custom' as const,
  message,
  params: { code, params },
  ...(path && { path }),
});

/** What a value of each type zod names is, as a person reads it. */
const KINDS: Readonly<Record<string, string>> = {
  string: 'text (a JSON string)',
  number: 'a number (a JSON number such as 89900.5, not in quotes)',
  int: 'a whole number (a JSON number such as 42, not in quotes)',
  boolean: 'true or false (not in quotes)',
  object: 'a JSON object',
  array: 'a list (a JSON array)',
  null: 'null',
};

// A number written the Brazilian way (`89.900,00`, `R$ 1.234,5`): the hint says how to send it.
const BRAZILIAN = /^\s*(?:R\$\s*)?[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+\s*$/i;

/** A number written the Brazilian way as JSON would take it (`89900.00`), else undefined. */
const brazilianPlain = (value: unknown) =>
  typeof value === 'string' && BRAZILIAN.test(value)
    ? value.replace(/R\$|\s|\./gi, '').replace(',', '.')
    : undefined;

const brazilianHint = (value: unknown) => {
  const plain = brazilianPlain(value);
  return plain === undefined
    ? ''
    : ` "${value}" is written the Brazilian way: send ${plain}, a number with a point for the decimals and no thousands separator.`;
};

const UNITS: Readonly<Record<string, [string, string]>> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
};

/** A size limit in words: "100 or less", "at most 255 characters". */
function limitWords(issue: { origin: string; inclusive?: boolean }, bound: unknown, big: boolean): string {
  const unit = UNITS[issue.origin];
  const n = Number(bound);
  if (unit) return `${big ? 'at most' : 'at least'} ${n} ${n === 1 ? unit[0] : unit[1]}`;
  if (issue.inclusive === false) return `${big ? 'less' : 'more'} than ${n}`;
  return `${n} or ${big ? 'less' : 'more'}`;
}

/** The nearest of `options` to `value` by edit distance, up to three. */
function nearest(value: string, options: readonly string[]): string[] {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next[j] = Math.min(
          (row[j] ?? 0) + 1,
          (next[j - 1] ?? 0) + 1,
          (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      row = next;
    }
    return row[b.length] ?? 0;
  };
  const short = value.slice(0, 100);
  return options
    .map((option) => ({ option, d: distance(short, option) }))
    .sort((x, y) => x.d - y.d)
    .slice(0, 3)
    .map((x) => x.option);
}

// How zod's own English messages start (its `en` locale).
const ZOD_DEFAULT = /^(?:Invalid input|Invalid option|Too big|Too small)\b/;

// Up to this many allowed values are listed; past it, the nearest ones.
const LISTED = 8;

/**
 * An issue in the API's words rather than zod's ("Invalid input: expected number, received
 * string"): what the field takes, a size limit as words, a few allowed values rather than forty.
 * Messages the API wrote itself (custom checks) pass as they are.
 */
function issueWords(issue: Issue, value: unknown): string {
  // A message a schema gave (`min(1, BLANK)`) is the API's already; only zod's own are reworded.
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `Expected ${KINDS[issue.expected] ?? issue.expected}.${issue.expected === 'number' ? brazilianHint(value) : ''}`;
    case 'too_big':
      return `Must be ${limitWords(issue, issue.maximum, true)}.`;
    case 'too_small':
      return `Must be ${limitWords(issue, issue.minimum, false)}.`;
    case 'invalid_value': {
      const options = issue.values.map(String);
      if (options.length <= LISTED) return `Expected one of: ${options.join(', ')}.`;
      const shown =
        typeof value === 'string'
          ? `"${value.slice(0, 100)}" is not one of the ${options.length} allowed values`
          : `Expected one of ${options.length} values`;
      return `${shown}; the nearest are ${nearest(String(value), options).join(', ')}.`;
    }
    default:
      return issue.message;
  }
}

/**
 * What a zod issue the API words itself names (issueWords): a limit and what it counts, the
 * allowed values or the nearest ones, the type expected; none for a message a schema gave.
 */
function zodParams(issue: Issue, value: unknown): Params | undefined {
  // The format a string missed (`email`): zod's message for it is its own either way.
  if (issue.code === 'invalid_format') return { format: issue.format };
  if (!ZOD_DEFAULT.test(issue.message)) return undefined;
  switch (issue.code) {
    case 'invalid_type': {
      const plain = issue.expected === 'number' ? brazilianPlain(value) : undefined;
      return { expected: issue.expected, ...(plain !== undefined && { sent: String(value), plain }) };
    }
    case 'too_big':
    case 'too_small': {
      const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
      return {
        [issue.code === 'too_big' ? 'max' : 'min']: bound,
        origin: issue.origin,
        inclusive: issue.inclusive !== false,
      };
    }
    case 'invalid_value': {
      const options = issue.values.map(String);
      if (options.length <= LISTED) return { values: options };
      return {
        count: options.length,
        nearest: nearest(String(value), options),
        ...(typeof value === 'string' && { sent: value.slice(0, 100) }),
      };
    }
    default:
      return undefined;
  }
}

/**
 * An object's key that breaks its rules (a `custom_fields` key): the error names the key, as
 * `custom_fields.<key>`, and says what is wrong with it in the API's words, not zod's "Invalid key in
 * record". A blank key has no name to add, so its error is on the object itself (no trailing dot).
 */
function keyError(path: PropertyKey[], cause: { code: string; maximum?: unknown } | undefined): FieldError {
  const key = String(path.at(-1) ?? '');
  const message =
    key === ''
      ? 'A key must not be blank.'
      : cause?.code === 'too_big'
        ? `The key "${key.slice(0, 40)}…" is over ${String(cause.maximum)} characters.`
        : `The key "${key}" is not allowed.`;
  return { path: dotted(key === '' ? path.slice(0, -1) : path), code: 'invalid_key', message };
}
