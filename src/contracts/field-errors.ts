import type { ZodError } from 'zod';
import type { FieldError } from '../core/errors';

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

/** A zod error as field errors, each path dotted; `data` tells a missing value from a wrong one. */
export function fieldErrors(error: ZodError, data: unknown): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: dotted([...issue.path, key]),
        code: 'unknown_field',
        message: `Unknown field "${key}".`,
      }));
    }
    if (issue.code === 'invalid_key') return [keyError(issue.path, issue.issues[0])];
    const missing = issue.code === 'invalid_type' && valueAt(data, issue.path) === undefined;
    return [
      {
        path: dotted(issue.path),
        code: missing
          ? 'required'
          : issue.code === 'custom'
            ? String(issue.params?.code ?? 'invalid')
            : issue.code,
        message: missing ? 'This field is required.' : issue.message,
      },
    ];
  });
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
