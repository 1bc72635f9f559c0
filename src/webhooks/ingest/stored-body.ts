import type { FieldError } from '../../core/errors';
import { said } from '../../core/said';
import { MAX_STRING } from '../rules/fields';

// What ingest keeps of an accepted body: the declared fields whole (each a value a field may take:
// a number, a boolean or a text of at most MAX_STRING characters), and the rest of the body (what
// a mapping might read later, and what a sample shows) up to MAX_REMAINDER_BYTES, so that a URL
// posted 256 KiB bodies of junk stores a few KiB per call. A body within the bound is kept exactly
// as sent.

/** The bytes of a body's undeclared values an event keeps (a whole body this size is kept as is). */
export const MAX_REMAINDER_BYTES = 16 * 1024;

/**
 * The length of `text` in UTF-8, as TextEncoder would write it (a lone surrogate as U+FFFD, 3
 * bytes), counted without encoding it: a trimmed body measures every value and path it walks, and
 * an encoder's copy of each short text cost more than the walk itself.
 */
function bytesOf(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else {
      bytes += 2;
      // A surrogate pair is 4 bytes for its 2 units; a lone surrogate becomes U+FFFD, 3 like the rest.
      const next = text.charCodeAt(i + 1);
      if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Whether `node` at `path` is a declared field's value that a field may take, kept whole. */
const declaredAt = (node: Json, path: string, declared: readonly string[]) =>
  declared.includes(path) &&
  (node === null || typeof node !== 'object') &&
  (typeof node !== 'string' || node.length <= MAX_STRING);

/** Whether some declared field lies inside `path` (so the walk must go into it). */
const holdsDeclared = (path: string, declared: readonly string[]) =>
  declared.some((key) => key.startsWith(`${path}.`));

type Pruning = { budget: number; left: string[]; sizes: WeakMap<object, number> };

/**
 * `node` (at `path`) without the undeclared values past the budget, walked in document order: a
 * value is kept if declared or if its key and value fit what is left of the budget. An array keeps
 * its positions (a value left out becomes null), so `answers.2.text` still names the same value.
 * Objects are rebuilt with Object.fromEntries, which makes `__proto__` an own key as JSON.parse did.
 */
function prune(node: Json, path: string, declared: readonly string[], state: Pruning): Json | undefined {
  if (path && declaredAt(node, path, declared)) return node;
  const container = node !== null && typeof node === 'object';
  // A value with no declared field inside is kept whole when it fits; a container that does not
  // fit is walked, so its first values still may.
  if (path && !holdsDeclared(path, declared)) {
    if (fits(node, path, state)) return node;
    if (!container) return dropped(path, state);
  }
  if (!container) return node;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (Array.isArray(node)) {
    const items = node.map((item, i) => prune(item, at(String(i)), declared, state) ?? null);
    while (items.length && items.at(-1) === null && node[items.length - 1] !== null) items.pop();
    return items.length || !node.length ? items : undefined;
  }
  const entries = Object.entries(node).flatMap(([key, value]) => {
    const kept = prune(value, at(key), declared, state);
    return kept === undefined ? [] : [[key, kept] as const];
  });
  return entries.length || !Object.keys(node).length ? Object.fromEntries(entries) : undefined;
}

/**
 * The bytes of `JSON.stringify(node)`, added up from its parts: each container's size is computed
 * once and remembered, so a walk into a container that did not fit reads its children's sizes
 * instead of stringifying every subtree again at each level (linear in the body, not size x depth).
 * A leaf or a key is stringified alone, which escapes it exactly as the whole text would.
 */
function sizeOf(node: Json, sizes: WeakMap<object, number>): number {
  if (node === null || typeof node !== 'object') return bytesOf(JSON.stringify(node));
  const known = sizes.get(node);
  if (known !== undefined) return known;
  const values: Json[] = Array.isArray(node) ? node : Object.values(node);
  // Brackets and commas, and an object's keys with their colons.
  let size = 2 + Math.max(values.length - 1, 0);
  for (const value of values) size += sizeOf(value, sizes);
  if (!Array.isArray(node)) for (const key of Object.keys(node)) size += bytesOf(JSON.stringify(key)) + 1;
  sizes.set(node, size);
  return size;
}

/** Takes `node`'s size from the budget when it fits; false (and nothing taken) when it does not. */
function fits(node: Json, path: string, state: Pruning): boolean {
  const cost = sizeOf(node, state.sizes) + bytesOf(path) + 4;
  if (cost > state.budget) return false;
  state.budget -= cost;
  return true;
}

function dropped(path: string, state: Pruning): undefined {
  state.left.push(path);
  return undefined;
}

/**
 * The text an accepted body is stored as: `text` itself when it is at most MAX_REMAINDER_BYTES,
 * else the declared fields (`declared`, dot paths) and as much of the rest as fits the bound, with
 * a `body_trimmed` warning naming what was left out.
 */
export function storedBody(
  text: string,
  value: object,
  declared: readonly string[],
): { text: string; warnings: FieldError[] } {
  const size = bytesOf(text);
  if (size <= MAX_REMAINDER_BYTES) return { text, warnings: [] };
  const state: Pruning = { budget: MAX_REMAINDER_BYTES, left: [], sizes: new WeakMap() };
  const kept = prune(value as Json, '', declared, state) ?? {};
  const params = {
    kib: Math.ceil(size / 1024),
    kept_kib: MAX_REMAINDER_BYTES / 1024,
    left: state.left.length,
    shown: state.left.slice(0, 5),
  };
  return {
    text: JSON.stringify(kept),
    warnings: [{ path: state.left[0] ?? '', ...said('body_trimmed', params) }],
  };
}
