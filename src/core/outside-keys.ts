import type { FieldError } from './errors';
import { RESERVED_SEGMENTS } from './reserved-names';
import { said } from './said';

export { RESERVED_SEGMENTS };

const RESERVED = new Set(RESERVED_SEGMENTS);

export const isReservedSegment = (segment: string): boolean => RESERVED.has(segment);

/** The first reserved segment of a dot path (`lead.__proto__.x`), or undefined. */
export const reservedSegmentOf = (path: string): string | undefined =>
  path.split('.').find(isReservedSegment);

/** Why a key or path with `segment` in it is refused: the same words in every surface. */
export const reservedMessage = (segment: string): string => said('reserved_key', { key: segment }).message;

/** The stable code of that refusal, in a 422's `errors` and in an event's `warnings`. */
export const RESERVED_CODE = 'reserved_key';

/**
 * How many left-out keys a sender's body gets a warning each for; the rest are counted in one
 * more. A 256 KiB body can hold thousands, and its warnings must not outweigh it in storage.
 */
export const MAX_RESERVED_WARNINGS = 10;

/**
 * A sender's parsed body without any reserved key, at any depth, and a warning for each one left
 * out (its dot path), so the rest of the lead is still read. The body itself is never changed
 * (the event log shows it as sent): a body with a reserved key is copied onto null-prototype
 * objects. Without recursion: the body may nest as deep as ingest allows.
 */
export function withoutReservedKeys(body: unknown): { value: unknown; warnings: FieldError[] } {
  const warnings: FieldError[] = [];
  if (!holdsReservedKey(body)) return { value: body, warnings };
  const copy = (node: object): Record<string, unknown> =>
    Array.isArray(node) ? ([] as unknown as Record<string, unknown>) : Object.create(null);
  const stack: [child: unknown, parent: Record<string, unknown>, key: string, path: string][] = [];
  // Pushed in reverse, so keys are visited (and warned about) in document order.
  const push = (from: object, to: Record<string, unknown>, path: string) => {
    for (const [key, child] of Object.entries(from).reverse())
      stack.push([child, to, key, path ? `${path}.${key}` : key]);
  };
  let left = 0;
  const out = copy(body as object);
  push(body as object, out, '');
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [child, to, key, at] = item;
    if (isReservedSegment(key)) {
      left += 1;
      if (left <= MAX_RESERVED_WARNINGS)
        warnings.push({ path: at, ...said('reserved_key', { key, left_out: true }) });
    } else if (child === null || typeof child !== 'object') {
      to[key] = child;
    } else {
      const next = copy(child);
      to[key] = next;
      push(child, next, at);
    }
  }
  if (left > MAX_RESERVED_WARNINGS) {
    const more = left - MAX_RESERVED_WARNINGS;
    warnings.push({ path: '', ...said('reserved_key', { more }) });
  }
  return { value: out, warnings };
}

/** Whether any object in `value` has a reserved own key (without recursion). */
function holdsReservedKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      if (isReservedSegment(key)) return true;
      stack.push(child);
    }
  }
  return false;
}
