import { isReservedSegment } from './outside-keys';

/**
 * The value at a dot path (`lead.phone`, `answers.0.text`) of a parsed JSON body. Only own
 * properties are followed, so `constructor` or `__proto__` never reach the prototype.
 */
export function valueAt(body: unknown, path: string): unknown {
  let value = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    // Into an array only by index: `answers.length` is not a field of the sender's.
    if (
      Array.isArray(value) ? !/^\d+$/.test(key) || Number(key) >= value.length : !Object.hasOwn(value, key)
    ) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export type Leaf = string | number | boolean | null;

/** How deep a sender's body may nest; deeper ones are refused at ingest. */
export const MAX_DEPTH = 32;

/** How deeply `value` nests objects and arrays, counted without recursion (a body may be hostile). */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

// A key a mapping can name: no dot (the path separator), no whitespace, not empty, not reserved.
const NAMEABLE = /^[^.\s]+$/;
const nameable = (key: string) => NAMEABLE.test(key) && !isReservedSegment(key);

/**
 * Every leaf of a JSON value with its dot path, in document order, up to `limit` leaves (a sender's
 * body may be large; a sample needs its shape, not all of it). Keys a dot path cannot name are left
 * out, since a mapping could not use them; so is everything under a reserved key such as `__proto__`.
 */
export function leaves(body: unknown, limit = 500): [path: string, value: Leaf][] {
  const found: [string, Leaf][] = [];
  const stack: [unknown, string][] = [[body, '']];
  for (let item = stack.pop(); item && found.length < limit; item = stack.pop()) {
    const [value, path] = item;
    if (value !== null && typeof value === 'object') {
      const children = Object.entries(value).filter(([key]) => nameable(key));
      for (const [key, child] of children.reverse()) stack.push([child, path ? `${path}.${key}` : key]);
    } else if (path) {
      found.push([path, value as Leaf]);
    }
  }
  return found;
}
