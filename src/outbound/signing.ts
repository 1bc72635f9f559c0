import { hmacKey } from '../auth/signatures';

/**
 * Standard Webhooks 1.0 (standardwebhooks.com): the secret is `whsec_` and base64 of random bytes;
 * the signature is `v1,` and base64 of HMAC-SHA256, keyed by those bytes, over
 * `<webhook-id>.<webhook-timestamp>.<body>`. Several signatures, space-separated, are one header:
 * during a rotation's grace both secrets sign, so a receiver holding either verifies.
 */

const PREFIX = 'whsec_';
const encoder = new TextEncoder();

const base64 = (bytes: Uint8Array) => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};

/** A new endpoint secret: 256 random bits. */
export const newSigningSecret = (): string => PREFIX + base64(crypto.getRandomValues(new Uint8Array(32)));

const secretBytes = (secret: string) =>
  Uint8Array.from(atob(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret), (c) =>
    c.charCodeAt(0),
  );

/** `v1,<signature>` of one message with one secret. */
export async function signMessage(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const key = await hmacKey(secretBytes(secret), 'sign');
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The three headers of a message signed by every secret given (the current one first). */
export async function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<Record<string, string>> {
  const signatures = await Promise.all(secrets.map((secret) => signMessage(secret, id, timestamp, body)));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
