import { describe, expect, it } from 'vitest';
import { fromBase64url, textToBase64url, toBase64url } from '../../src/core/base64url';

/** The encoding as first written (an array of one-char strings, joined), which the fast one keeps. */
const reference = (bytes: Uint8Array) =>
  btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

describe('base64url', () => {
  it('writes every byte value and every padding length as before, and reads them back', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    for (let length = 0; length <= all.length; length++) {
      const bytes = all.subarray(0, length);
      const text = toBase64url(bytes);
      expect(text).toBe(reference(bytes));
      expect([...fromBase64url(text)]).toEqual([...bytes]);
    }
  });

  it('writes a text as the base64url of its UTF-8, ASCII or not', () => {
    const encoder = new TextEncoder();
    const texts = [
      '',
      'a',
      '["-created_at",1764000000000,42]',
      '["name","Magalhães & Cia 🚀",7]',
      '\u007f\u0080',
      'tab\there',
      '~~>?',
    ];
    for (const text of texts) expect(textToBase64url(text)).toBe(reference(encoder.encode(text)));
  });
});
