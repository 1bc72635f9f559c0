import { describe, expect, it } from 'vitest';
import { MAX_REMAINDER_BYTES, storedBody } from '../../src/webhooks/ingest/stored-body';

// storedBody sizes what it keeps without stringifying each subtree again at every level of its
// walk. What it keeps must not change: these bodies (deep, wide, with every kind of value and key
// that JSON escapes or UTF-8 widens) gave this digest with the version that stringified each
// subtree, before that change.
const DIGEST = 'ef51d6c9f9e1373234940f35395c1783d8849a07b845b14621d6f40634b8e47b';

/** A small deterministic PRNG (mulberry32), so every run builds the same bodies. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ['João Magalhães', 'ç"\\/\n\t\u0001', '🙂 emoji', '\ud800 lone', 'ascii', '中文字符', ''];
const KEYS = ['a', 'b', 'lead', 'nome', '__proto__', 'constructor', 'chave "aspas"', 'ñ', '0', '10', 'x.y'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A body `depth` levels deep, up to `width` values at each level, about `budget` values in all. */
function body(random: () => number, depth: number, width: number, budget: number): Json {
  let left = budget;
  const leaf = (): Json => {
    const r = random();
    if (r < 0.1) return null;
    if (r < 0.2) return random() < 0.5;
    if (r < 0.4) return [1e21, -0, 0.1, 123456789, -7.5e-7][Math.floor(random() * 5)] ?? 0;
    const text = TEXTS[Math.floor(random() * TEXTS.length)] ?? '';
    return text.repeat(1 + Math.floor(random() * 40));
  };
  const node = (level: number): Json => {
    left--;
    if (level >= depth || left <= 0 || (level > 0 && random() < 0.1)) return leaf();
    // One child goes on down (so the body is as deep as asked); the others are mostly leaves.
    const n = 1 + Math.floor(random() * width);
    const child = (i: number) => (i === 0 || random() < 0.2 ? node(level + 1) : leaf());
    if (random() < 0.4) return Array.from({ length: n }, (_, i) => child(i));
    const object: Record<string, Json> = {};
    for (let i = 0; i < n; i++) {
      const key = `${KEYS[Math.floor(random() * KEYS.length)]}${random() < 0.5 ? i : ''}`;
      Object.defineProperty(object, key, {
        value: child(i),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  };
  return node(0);
}

/** Deep and narrow, shallow and wide, and in between (depth, width). */
const SHAPES: [number, number][] = [
  [31, 3],
  [3, 400],
  [12, 8],
  [31, 6],
];

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('storedBody', () => {
  it('keeps exactly what it kept before on deep and wide bodies, the declared fields whole', async () => {
    const random = prng(38);
    const outputs: unknown[] = [];
    let trimmed = 0;
    for (let i = 0; i < 40; i++) {
      const [depth, width] = SHAPES[i % SHAPES.length] ?? [1, 1];
      const value = { root: body(random, depth, width, 3000), tail: body(random, 4, 50, 500) };
      const text = JSON.stringify(value);
      const declared = [
        'root.0',
        'root.a0.b1',
        'tail.lead',
        'root.__proto__0',
        `root.${KEYS[i % KEYS.length]}${i % 3}`,
      ];
      const kept = storedBody(text, value, declared);
      if (kept.warnings.length) trimmed++;
      expect(new TextEncoder().encode(kept.text).length).toBeLessThanOrEqual(
        Math.max(text.length * 3, MAX_REMAINDER_BYTES) + 1,
      );
      // What is kept, and each warning's path, code and words (its params are the code's details).
      outputs.push({
        text: kept.text,
        warnings: kept.warnings.map(({ path, code, message }) => ({ path, code, message })),
      });
    }
    expect(trimmed).toBeGreaterThan(20);
    const digest = hex(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(outputs))),
    );
    expect(digest).toBe(DIGEST);
  });
});
