import { shardedSecret } from '../core/sharded-secret';

const KEY_PREFIX = 'crm_';
const apiKeys = shardedSecret(KEY_PREFIX);

/**
 * A new API key of shard `shard`: `crm_` and 256 random bits (shard 0's, as every key made before
 * shards), or `crm_s<shard>_` and 256 random bits. Only its hash is ever stored.
 */
export const newApiKey = (shard: number): string => apiKeys.make(shard);

/** The shard an API key names, when it is shaped like one (src/core/sharded-secret.ts). */
export const apiKeyShard = (value: string): number | undefined => apiKeys.shardOf(value);

export const looksLikeApiKey = (value: string): boolean => apiKeys.shardOf(value) !== undefined;

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
