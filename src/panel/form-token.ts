import { html } from 'hono/html';
import { sha256Hex } from '../auth/secrets';
import { toBase64url } from '../core/base64url';
import { logError } from '../core/log';
import type { KeyRef } from '../db/tenant';
import { KeyInUse } from '../http/idempotency-claim';
import type { C } from './page';

// A form whose POST must not run twice (a reload of its answer, a double click) carries a one-time
// token. The POST claims it as an idempotency key of the account, through the API's own claim
// (src/http/idempotency-claim.ts): inserted in the request's first batch and marked committed with
// its writes, so the guard costs no round trip; a second POST with the token fails that insert
// before it writes anything.

export const FORM_TOKEN = 'form_token';
const TOKEN = /^[A-Za-z0-9_-]{22}$/;
// A tab cannot appear in an Idempotency-Key header (printable ASCII only): the panel's tokens never
// meet the API's keys of the account.
const PREFIX = 'panel\t';

/** A fresh token, as a hidden field of the form it guards. */
export const tokenField = () =>
  html`<input type="hidden" name="${FORM_TOKEN}" value="${toBase64url(crypto.getRandomValues(new Uint8Array(16)))}">`;

/** What a guarded POST did: its answer, and the page that tells of it (kept for a repeat). */
export type Done = { res: Response | Promise<Response>; location: string };

/**
 * Runs `write` once per form token. A repeat of a POST that wrote gets `again(location)` (where
 * the first one's result is), or `again(undefined)` while the first is still running; a POST that
 * was refused lets its token go. A form without a token (a page opened before tokens existed) is
 * not guarded.
 */
export async function once(
  c: C,
  key: KeyRef,
  form: Record<string, unknown>,
  write: () => Promise<Done | Response>,
  again: (location: string | undefined) => Response | Promise<Response>,
): Promise<Response> {
  const token = form[FORM_TOKEN];
  if (typeof token !== 'string' || !TOKEN.test(token)) return answer(await write());
  const claim = c.get('claim');
  const path = c.req.path;
  claim.arm({
    db: c.get('db'),
    key: PREFIX + token,
    keyHash: key,
    fingerprint: () => sha256Hex(`panel ${path}`),
  });
  const keep = (stored: Promise<unknown>) =>
    c.executionCtx.waitUntil(stored.catch((err: unknown) => logError(err, c.get('requestId'))));
  let done: Done | Response;
  try {
    done = await write();
  } catch (err) {
    if (!(err instanceof KeyInUse)) {
      keep(claim.release());
      throw err;
    }
    const first = await claim.answerRetry();
    return again(first instanceof Response ? (first.headers.get('location') ?? undefined) : undefined);
  }
  if (!claim.committed || done instanceof Response) {
    keep(claim.release());
    return answer(done);
  }
  // Only where the result is: the answer itself may hold a secret shown once.
  const { stored } = await claim.record(
    new Response(null, { status: 303, headers: { location: done.location } }),
  );
  keep(stored);
  return done.res;
}

const answer = async (done: Done | Response) => (done instanceof Response ? done : done.res);
