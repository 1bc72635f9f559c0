import type { FieldError } from './errors';
import { said } from './said';
import { MAX_STRING } from './webhook-fields';

// What ingest keeps of an accepted body: the declared fields whole (each a value a field may take:
// a number, a boolean or a text of at most MAX_STRING characters), and the rest of the body (what
// a mapping might read later, and what a sample shows) up to MAX_REMAINDER_BYTES, so that a URL
// posted 256 KiB bodies of junk stores a few KiB per call. A body within the bound is kept exactly
// as sent.

/** The bytes of a body's undeclared values an event keeps (a whole body this size is kept as is). */
export const MAX_REMAINDER_BYTES = 16 * 1024;

const utf8 = new TextEncoder();
const bytesOf = (text: string) => utf8.encode(text).length;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Whether `node` at `path` is a declared field's value that a field may take, kept whole. */
const declaredAt = (node: Json, path: string, declared: readonly string[]) =>
  declared.includes(path) &&
  (node === null || typeof node !== 'object') &&
  (typeof node !== 'string' || node.length <= MAX_STRING);

/** Whether some declared field lies inside `path` (so the walk must go into it). */
const holdsDeclared = (path: string, declared: readonly string[]) =>
  declared.some((key) => key.startsWith(`${path}.`));

type Pruning = { budget: number; left: string[] };

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

/** Takes `node`'s size from the budget when it fits; false (and nothing taken) when it does not. */
function fits(node: Json, path: string, state: Pruning): boolean {
  const cost = bytesOf(JSON.stringify(node)) + bytesOf(path) + 4;
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
  const state: Pruning = { budget: MAX_REMAINDER_BYTES, left: [] };
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
