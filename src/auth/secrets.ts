import { toBase64url } from '../core/base64url';

const KEY_PREFIX = 'crm_';
const KEY_PATTERN = /^crm_[A-Za-z0-9_-]{43}$/;

/** A new API key: the `crm_` prefix and 256 random bits. Only its hash is ever stored. */
export function newApiKey(): string {
  return KEY_PREFIX + toBase64url(crypto.getRandomValues(new Uint8Array(32)));
}

export const looksLikeApiKey = (value: string): boolean => KEY_PATTERN.test(value);

/** Has the API keys' prefix: a key, perhaps cut short when pasted. */
export const hasApiKeyPrefix = (value: string): boolean => value.startsWith(KEY_PREFIX);

/** The two hex digits of each byte value, so a digest is written with one lookup per byte. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const encoder = new TextEncoder();

/** SHA-256 as lower-case hex. On every `/v1` and `/hooks` request (key, client and token hashes). */
export async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}

/** Constant-time comparison: both sides are hashed first so their lengths never leak either. */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer +([^\s]+) *$/i);
  return match?.[1];
}
