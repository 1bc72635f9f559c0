// Senders' clocks drift; five minutes either way, as Stripe allows, still stops old replays.
const TOLERANCE_S = 300;
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

const hexBytes = (hex: string) =>
  Uint8Array.from(hex.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));

/**
 * Whether a webhook call is signed with `secret`: `X-Signature: sha256=<hex HMAC-SHA256 of
 * "<X-Timestamp>.<raw body>">`, with X-Timestamp in unix seconds within five minutes of now.
 * The comparison is crypto.subtle.verify, which takes the same time for any wrong signature.
 */
export async function validSignature(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  body: Uint8Array,
  nowMs = Date.now(),
): Promise<boolean> {
  const hex = signature?.trim().match(SIGNATURE)?.[1];
  if (!hex || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_S) return false;
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  return crypto.subtle.verify('HMAC', key, hexBytes(hex), signed);
}
