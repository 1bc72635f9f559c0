import { type OutboundPolicy, outboundUrlRefusal } from '../core/outbound-url';
import { retryAfterSeconds } from './schedule';
import { signedHeaders } from './signing';

/** A receiver has this long to answer (Standard Webhooks suggests 15 to 30 s). */
export const SEND_TIMEOUT_MS = 15_000;
/** How much of an answer the delivery log keeps. */
export const RESPONSE_BYTES = 2048;

/** What one attempt came to: the answer's status (null: none came) and what decides the next step. */
export type AttemptOutcome = {
  at: number;
  status: number | null;
  latencyMs: number;
  response: string;
  error: string | null;
  ok: boolean;
  /** 410 Gone: the endpoint goes off. */
  gone: boolean;
  /** `webhook-delivery: abort-message`: no more tries of this message. */
  abort: boolean;
  retryAfterS: number | undefined;
};

/** The first RESPONSE_BYTES of a body, as text, reading no further. */
async function head(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < RESPONSE_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, RESPONSE_BYTES)).replace(/\uFFFD$/, '');
}

const failed = (at: number, started: number, error: string): AttemptOutcome => ({
  at,
  status: null,
  latencyMs: Date.now() - started,
  response: '',
  error,
  ok: false,
  gone: false,
  abort: false,
  retryAfterS: undefined,
});

/**
 * One signed POST of `body` to `url`. The URL policy is checked again first (a URL saved under an
 * older rule, or a flag since removed); no redirect is followed (a 3xx is a failure, as a redirect
 * could lead anywhere); only a 2xx is a success.
 */
export async function postMessage(
  url: string,
  message: { id: string; body: string; secrets: readonly string[] },
  policy: OutboundPolicy,
): Promise<AttemptOutcome> {
  const at = Date.now();
  const refused = outboundUrlRefusal(url, policy);
  if (refused) return failed(at, at, `URL refused: ${refused.message}`);
  const headers = await signedHeaders(message.secrets, message.id, Math.floor(at / 1000), message.body);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'CRM-Service-Webhooks/1' },
      body: message.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    const text = await head(response);
    const status = response.status;
    return {
      at,
      status,
      latencyMs: Date.now() - at,
      response: text,
      error: null,
      ok: status >= 200 && status < 300,
      gone: status === 410,
      abort: response.headers.get('webhook-delivery')?.trim().toLowerCase() === 'abort-message',
      retryAfterS:
        status === 429 || status === 503 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined,
    };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return failed(at, at, timedOut ? `No answer within ${SEND_TIMEOUT_MS / 1000} s` : 'Could not connect');
  }
}
