import { exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { BASE, type Json, list, newAccount, newWebhook } from '../helpers';

// Shared by the ingest tests (test/routes/hooks*.test.ts): the webhook's log, raw posts, signing.

export const MAX = 256 * 1024;

export const logOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await list(key, `/v1/inbound-webhooks/${hookId}/events?limit=100`)).data;

/** The events ingest accepted: the log without the refused calls it keeps as `rejected`. */
export const eventsOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await logOf(key, hookId)).filter((e) => e.status !== 'rejected');

/** The refused calls of the log, newest first. */
export const rejectedOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await list(key, `/v1/inbound-webhooks/${hookId}/events?status=rejected&limit=100`)).data;

/** A POST with exactly these headers and body: no Content-Type unless given. */
export const rawPost = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`${BASE}${path}`, { method: 'POST', headers, body }));

/** A webhook of a new account, with its API key. */
export async function hookWith(config: Record<string, unknown> = {}): Promise<{ key: string; hook: Json }> {
  const { key } = await newAccount();
  return { key, hook: await newWebhook(key, config) };
}

/** Asserts the bare 204 a stored event gets. */
export async function expectStored(res: Response): Promise<void> {
  expect(res.status).toBe(204);
  expect(await res.text()).toBe('');
}

/** Asserts the bare 404 an unknown, rotated or disabled URL gets: no body, nothing to learn from. */
export async function expectNoHook(res: Response): Promise<void> {
  expect(res.status).toBe(404);
  expect(await res.text()).toBe('');
  expect(res.headers.get('Content-Type')).toBeNull();
}

export const encoder = new TextEncoder();

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** Hex HMAC-SHA256 of `message` under `secret`, computed the way a sender would. */
export async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}

/** The X-Signature header: `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const sign = async (secret: string, timestamp: string | number, body: string): Promise<string> =>
  `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;

export const unixNow = () => Math.floor(Date.now() / 1000);

/** A JSON object of exactly `bytes` bytes: `{"pad":"xxx…"}`. */
export const bodyOfSize = (bytes: number): string => `{"pad":"${'x'.repeat(bytes - '{"pad":""}'.length)}"}`;

/** The text as a stream of 10 KiB chunks, so its length is known only by reading it. */
export function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 10 * 1024));
      offset += 10 * 1024;
    },
  });
}

export const WELL_FORMED_UNKNOWN = `whk_${'A'.repeat(43)}`;
