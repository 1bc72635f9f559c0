import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { readLimited } from '../../src/http/body-limit';
import worker from '../../src/index';
import { BASE, capturingLogs, expectProblem, list, newAccount, newWebhook } from '../helpers';
import { signIn } from '../panel/browser';

// The one body reader with a limit: webhook ingest reads its raw bytes with it, and limitedBody
// (every other body) is built on it; the 413s themselves are in conventions.test.ts and
// hooks-guards.test.ts.

const KIB = 1024;

/** A body of `chunks` chunks of 1 KiB (endless if Infinity), counting what the reader pulls. */
function counted(chunks: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(KIB).fill(seen.pulled % 256));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { seen, request: (headers: Record<string, string> = {}) => post(stream, headers) };
}

const post = (body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
  new Request('http://crm.test/', { method: 'POST', body, headers });

describe('readLimited', () => {
  it('gives the bytes of a body within the limit as sent, however it is chunked', async () => {
    const { request } = counted(4);
    const body = await readLimited(request(), 4 * KIB);
    expect(body?.byteLength).toBe(4 * KIB);
    expect([body?.[0], body?.[KIB], body?.[4 * KIB - 1]]).toEqual([1, 2, 4]);
    expect(await readLimited(new Request('http://crm.test/'), 10)).toEqual(new Uint8Array());
  });

  it('stops reading an endless body just past the limit, and cancels the rest', async () => {
    const { seen, request } = counted(Number.POSITIVE_INFINITY);
    expect(await readLimited(request(), 8 * KIB)).toBeUndefined();
    expect(seen.cancelled).toBe(true);
    // The chunk that crosses the limit, and whatever the stream had queued ahead: never the rest.
    expect(seen.pulled).toBeLessThanOrEqual(12);
  });

  it('reads a body whose Content-Length is within the limit in one go, as the chunk loop reads it', async () => {
    const sized = counted(4).request({ 'Content-Length': String(4 * KIB) });
    expect(await readLimited(sized, 4 * KIB)).toEqual(await readLimited(counted(4).request(), 4 * KIB));
    const empty = new Request('http://crm.test/', {
      method: 'POST',
      body: '',
      headers: { 'Content-Length': '0' },
    });
    expect(await readLimited(empty, 10)).toEqual(new Uint8Array());
  });

  it('refuses a body whose stream outruns a Content-Length within the limit', async () => {
    // Only a request made in JavaScript can: the network's bodies end where their length says.
    const { request } = counted(12);
    expect(await readLimited(request({ 'Content-Length': String(KIB) }), 8 * KIB)).toBeUndefined();
  });

  it('reads nothing of a body whose Content-Length is over the limit', async () => {
    const { seen, request } = counted(20);
    expect(await readLimited(request({ 'Content-Length': String(20 * KIB) }), 8 * KIB)).toBeUndefined();
    expect(seen.pulled).toBeLessThanOrEqual(1);
  });
});

// A body whose stream fails half way (the client went away, a chunked body cut short) is the
// sender's failure: a 400 on every route that reads a body, never a 500 logged as the Worker's.
describe('a body that breaks off', () => {
  const broken = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
      },
      pull(controller) {
        controller.error(new Error('Network connection lost.'));
      },
    });
  const send = (path: string, headers: Record<string, string>) =>
    worker.fetch(
      new Request(`${BASE}${path}`, { method: 'POST', body: broken(), headers }),
      env,
      createExecutionContext(),
    );

  it('is a 400 body_unreadable on /v1, ingest and the panel, and nothing is logged as an error', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'nome', type: 'string' }] });
    const cookie = await signIn(key);
    const json = { 'Content-Type': 'application/json' };
    const api = { ...json, Authorization: `Bearer ${key}` };
    // With a length, the body is read in one go; without, chunk by chunk: the same 400 either way.
    const sized = { 'Content-Length': '64' };
    const { value: answers, logged } = await capturingLogs(async () => [
      await send('/v1/users', api),
      await send('/v1/users', { ...api, ...sized }),
      await send('/v1/users', { ...api, 'Idempotency-Key': 'broken-1' }),
      await send('/v1/users', { ...api, ...sized, 'Idempotency-Key': 'broken-2' }),
      await send(hook.path, json),
      await send(hook.path, { ...json, ...sized }),
      await send('/panel/webhooks', {
        Cookie: cookie,
        Origin: BASE,
        'Content-Type': 'application/x-www-form-urlencoded',
      }),
    ]);
    for (const res of answers) await expectProblem(res, 400, 'body_unreadable');
    expect(logged).toEqual([]);
    expect(await list(key, '/v1/users')).toMatchObject({ data: [] });
    const [event] = (await list(key, `/v1/inbound-webhooks/${hook.id}/events`)).data;
    expect(event).toMatchObject({ status: 'rejected', rejection: { code: 'body_unreadable' } });
  });
});
