import { leaves } from '../core/json-paths';

/** How many different example values the fields table shows per key, and how long each may be. */
const PER_KEY = 3;
const MAX_CHARS = 60;

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
};

/**
 * The example values of each key (dot path) the latest test events hold, newest first, up to three
 * different ones per key, each cut to 60 characters: what the fields table shows beside a field.
 * A Map, so a key such as `constructor` is a key like any other.
 */
export function examplesByKey(samples: readonly { payload: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { payload } of samples) {
    for (const [key, value] of leaves(JSON.parse(payload) as unknown)) {
      const list = out.get(key) ?? [];
      const text = shown(value);
      if (list.length < PER_KEY && !list.includes(text)) out.set(key, [...list, text]);
    }
  }
  return out;
}
