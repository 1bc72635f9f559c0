import type { FieldError } from '../core/errors';

// Senders' clocks drift; five minutes either way, as Stripe allows, still stops old replays.
const TOLERANCE_S = 300;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

const hexBytes = (hex: string) =>
  Uint8Array.from(hex.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));

const failure = (
  path: 'X-Signature' | 'X-Timestamp',
  code: string,
  message: string,
  params?: FieldError['params'],
): FieldError => ({ path, code, message, ...(params && { params }) });

/** An HMAC-SHA256 key: a text secret's UTF-8 (inbound), or raw bytes (Standard Webhooks' base64 secret). */
export const hmacKey = (secret: string | Uint8Array, usage: 'sign' | 'verify') =>
  crypto.subtle.importKey(
    'raw',
    typeof secret === 'string' ? new TextEncoder().encode(secret) : secret,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    [usage],
  );

/** The `X-Signature` a sender puts on `body` posted at unix second `timestamp`. */
export async function signatureOf(secret: string, timestamp: string, body: string): Promise<string> {
  const mac = await crypto.subtle.sign(
    'HMAC',
    await hmacKey(secret, 'sign'),
    new TextEncoder().encode(`${timestamp}.${body}`),
  );
  return `sha256=${Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Which check a webhook call fails, or undefined when it is signed with `secret`:
 * `X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<raw body>">`, with X-Timestamp in unix
 * seconds within five minutes of now. The answer names the check, never the expected digest. The
 * comparison is crypto.subtle.verify, which takes the same time for any wrong signature.
 */
export async function signatureFailure(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  body: Uint8Array,
  nowMs = Date.now(),
): Promise<FieldError | undefined> {
  if (!signature?.trim()) {
    return failure('X-Signature', 'missing_signature', 'X-Signature is missing: this webhook has a secret.');
  }
  const hex = signature.trim().match(SIGNATURE)?.[1];
  if (!hex) {
    return failure(
      'X-Signature',
      'malformed_signature',
      'X-Signature must be "sha256=" followed by 64 hexadecimal digits.',
    );
  }
  if (!timestamp) {
    return failure(
      'X-Timestamp',
      'missing_timestamp',
      'X-Timestamp is missing: send the unix time (seconds) you signed.',
    );
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    return failure(
      'X-Timestamp',
      'malformed_timestamp',
      'X-Timestamp must be unix time in whole seconds: up to 12 digits, not milliseconds.',
    );
  }
  const skew = nowMs / 1000 - Number(timestamp);
  if (Math.abs(skew) > TOLERANCE_S) {
    return failure(
      'X-Timestamp',
      'stale_timestamp',
      `X-Timestamp is ${Math.round(Math.abs(skew))} seconds ${skew > 0 ? 'old' : 'in the future'}; at most ${TOLERANCE_S} either way.`,
      { seconds: Math.round(Math.abs(skew)), direction: skew > 0 ? 'old' : 'future', max: TOLERANCE_S },
    );
  }
  const encoder = new TextEncoder();
  const key = await hmacKey(secret, 'verify');
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  return (await crypto.subtle.verify('HMAC', key, hexBytes(hex), signed))
    ? undefined
    : failure(
        'X-Signature',
        'digest_mismatch',
        'X-Signature does not match: it must be the HMAC-SHA256, under the webhook\'s secret, of "<X-Timestamp>.<raw body>", the body exactly as sent.',
      );
}
