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

/**
 * Every leaf of a JSON value with its dot path, depth-first, up to `limit` leaves (a sender's body
 * may be large; a sample needs its shape, not all of it).
 */
export function leaves(body: unknown, limit = 500): [path: string, value: Leaf][] {
  const found: [string, Leaf][] = [];
  const walk = (value: unknown, path: string) => {
    if (found.length >= limit) return;
    if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
    } else if (path) {
      found.push([path, value as Leaf]);
    }
  };
  walk(body, '');
  return found;
}
