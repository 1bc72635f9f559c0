import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Json, json, postEvent, roundTrips } from '../helpers';
import {
  bodyOfSize,
  encoder,
  eventsOf,
  expectNoHook,
  expectStored,
  hmacHex,
  hookWith,
  MAX,
  rawPost,
  sign,
  streamOf,
  unixNow,
  WELL_FORMED_UNKNOWN,
} from './hooks-support';

// Ingest's guards before anything is stored: the 404 of a URL, the 413 of a size, the 401 of a
// signature; and what the route costs in round trips and says in the OpenAPI document.

describe('ingest: 404 with no content', () => {
  it('answers an unknown or malformed token with a bare 404, even with a valid body', async () => {
    const tokens = [
      WELL_FORMED_UNKNOWN,
      'abc',
      'whk_short',
      `whk_${'A'.repeat(44)}`,
      `WHK_${'A'.repeat(43)}`,
      `crm_${'A'.repeat(43)}`,
      `whk_${'A'.repeat(42)}%21`,
    ];
    for (const token of tokens) await expectNoHook(await postEvent(`/hooks/${token}`, { a: 1 }));
    await expectNoHook(await postEvent(`/hooks/${WELL_FORMED_UNKNOWN}`, bodyOfSize(MAX + 1)));
    await expectNoHook(
      await rawPost(`/hooks/${WELL_FORMED_UNKNOWN}`, 'not json', { 'Content-Type': 'text/plain' }),
    );
  });

  it('answers a rotated or disabled URL with a bare 404 and stores nothing', async () => {
    const { key, hook } = await hookWith();
    const rotated = await json(
      await call(`/v1/inbound-webhooks/${hook.id}/rotate-token`, { method: 'POST', key }),
    );
    await expectNoHook(await postEvent(hook.url, { a: 1 }));
    expect((await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'DELETE', key })).status).toBe(204);
    await expectNoHook(await postEvent(rotated.data.url, { a: 1 }));
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it("does not let one webhook's token reach another's", async () => {
    const a = await hookWith({ fields: [{ key: 'a', type: 'string', required: true }] });
    const b = await hookWith({ fields: [{ key: 'b', type: 'string', required: true }] });
    await expectStored(await postEvent(a.hook.url, { a: 'x', __fault: 'send' }));
    await expectStored(await postEvent(b.hook.url, { b: 'y', __fault: 'send' }));
    expect((await eventsOf(a.key, a.hook.id)).map((e) => e.payload)).toEqual([{ a: 'x', __fault: 'send' }]);
    expect((await eventsOf(b.key, b.hook.id)).map((e) => e.payload)).toEqual([{ b: 'y', __fault: 'send' }]);
  });
});

describe('ingest: 413 over 256 KiB', () => {
  it('refuses a Content-Length over the limit before reading the body', async () => {
    const { key, hook } = await hookWith();
    const res = await rawPost(hook.path, '{"a":1}', {
      'Content-Type': 'application/json',
      'Content-Length': String(MAX + 1),
    });
    await expectProblem(res, 413, 'body_too_large');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('refuses a body one byte over the limit, sent whole or streamed', async () => {
    const { key, hook } = await hookWith();
    const body = bodyOfSize(MAX + 1);
    expect(encoder.encode(body).length).toBe(MAX + 1);
    await expectProblem(await postEvent(hook.url, body), 413, 'body_too_large');
    const streamed = await rawPost(hook.path, streamOf(body), { 'Content-Type': 'application/json' });
    await expectProblem(streamed, 413, 'body_too_large');
    const multiByte = `{"pad":"x${'é'.repeat((MAX - 10) / 2)}"}`;
    expect(encoder.encode(multiByte).length).toBe(MAX + 1);
    await expectProblem(await postEvent(hook.url, multiByte), 413, 'body_too_large');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('accepts a valid body of exactly 256 KiB, sent whole or streamed', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number' }] });
    const body = bodyOfSize(MAX);
    expect(encoder.encode(body).length).toBe(MAX);
    await expectStored(await postEvent(hook.url, body));
    await expectStored(await rawPost(hook.path, streamOf(body), { 'Content-Type': 'application/json' }));
    const events = await eventsOf(key, hook.id);
    expect(events).toHaveLength(2);
    // Stored as its declared field and 16 KiB of the rest: the padding is left out, with a warning.
    for (const event of events) {
      expect(event.payload.pad).toBeUndefined();
      expect(event.warnings).toContainEqual(expect.objectContaining({ code: 'body_trimmed', path: 'pad' }));
    }
  });

  it('still validates a body of exactly 256 KiB', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'pad', type: 'number', required: true }] });
    const body = await expectProblem(await postEvent(hook.url, bodyOfSize(MAX)), 400, 'invalid_fields');
    expect(body.errors).toEqual([expect.objectContaining({ path: 'pad' })]);
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });
});

describe('ingest: signatures', () => {
  const SECRET = 'whsec-0123456789abcdef';
  const BODY = JSON.stringify({ nome: 'Ana', __fault: 'send' });

  /** Posts BODY with the given signature headers (each one left out when undefined). */
  const signedPost = (path: string, timestamp?: string | number, signature?: string, body = BODY) =>
    rawPost(path, body, {
      'Content-Type': 'application/json',
      ...(timestamp !== undefined && { 'X-Timestamp': String(timestamp) }),
      ...(signature !== undefined && { 'X-Signature': signature }),
    });

  it('stores a correctly signed event, also within five minutes either way of now', async () => {
    const { key, hook } = await hookWith({ secret: SECRET });
    for (const offset of [0, -240, 240]) {
      const ts = unixNow() + offset;
      await expectStored(await signedPost(hook.path, ts, await sign(SECRET, ts, BODY)));
    }
    const ts = unixNow();
    const upper = `sha256=${(await hmacHex(SECRET, `${ts}.${BODY}`)).toUpperCase()}`;
    await expectStored(await signedPost(hook.path, ts, upper));
    expect(await eventsOf(key, hook.id)).toHaveLength(4);
  });

  it('refuses a missing, wrong, stale or misdirected signature with 401 and stores nothing', async () => {
    const { key, hook } = await hookWith({ secret: SECRET });
    const now = unixNow();
    const good = await sign(SECRET, now, BODY);
    const cases: [string, string | number | undefined, string | undefined, string, string?][] = [
      ['no headers', undefined, undefined, 'missing_signature'],
      ['no X-Signature', now, undefined, 'missing_signature'],
      ['no X-Timestamp', undefined, good, 'missing_timestamp'],
      ['a wrong signature', now, `sha256=${'0'.repeat(64)}`, 'digest_mismatch'],
      ['another secret', now, await sign('another-secret-0123456', now, BODY), 'digest_mismatch'],
      ['6 minutes old', now - 360, await sign(SECRET, now - 360, BODY), 'stale_timestamp'],
      ['6 minutes in the future', now + 360, await sign(SECRET, now + 360, BODY), 'stale_timestamp'],
      [
        'a signature over a different body',
        now,
        await sign(SECRET, now, '{"nome":"Bia"}'),
        'digest_mismatch',
      ],
      ['a signature of the body alone', now, `sha256=${await hmacHex(SECRET, BODY)}`, 'digest_mismatch'],
      ['a signature for another timestamp', now - 1, good, 'digest_mismatch'],
      ['no sha256= prefix', now, good.slice('sha256='.length), 'malformed_signature'],
      ['another algorithm', now, good.replace('sha256=', 'sha1='), 'malformed_signature'],
      ['a truncated signature', now, good.slice(0, -2), 'malformed_signature'],
      [
        'a timestamp in milliseconds',
        Date.now(),
        await sign(SECRET, Date.now(), BODY),
        'malformed_timestamp',
      ],
      ['a timestamp that is not a number', 'now', await sign(SECRET, 'now', BODY), 'malformed_timestamp'],
      [
        'an ISO timestamp',
        new Date().toISOString(),
        await sign(SECRET, new Date().toISOString(), BODY),
        'malformed_timestamp',
      ],
      ['an empty signature', now, '', 'missing_signature'],
    ];
    for (const [name, ts, signature, check, body] of cases) {
      const res = await signedPost(hook.path, ts, signature, body);
      expect(res.status, name).toBe(401);
      const problem = await expectProblem(res, 401, 'invalid_signature');
      expect(problem.errors, name).toEqual([
        {
          path: check.endsWith('timestamp') ? 'X-Timestamp' : 'X-Signature',
          code: check,
          message: problem.detail,
          ...(check === 'stale_timestamp' && {
            params: { seconds: expect.any(Number), direction: ts === now - 360 ? 'old' : 'future', max: 300 },
          }),
        },
      ]);
      // Neither the secret nor the digest the server expected is ever part of the answer.
      const expected = await hmacHex(SECRET, `${ts}.${body ?? BODY}`);
      expect(JSON.stringify(problem), name).not.toContain(SECRET);
      expect(JSON.stringify(problem).toLowerCase(), name).not.toContain(expected);
    }
    // The signed body itself, posted with the signature of a different one.
    const other = await signedPost(hook.path, now, good, '{"nome":"Bia","__fault":"send"}');
    await expectProblem(other, 401, 'invalid_signature');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('checks the signature before the body: unsigned garbage is 401, signed garbage is 400', async () => {
    const { key, hook } = await hookWith({
      secret: SECRET,
      fields: [{ key: 'n', type: 'number', required: true }],
    });
    await expectProblem(await signedPost(hook.path, undefined, undefined, '[1,2'), 401, 'invalid_signature');
    const ts = unixNow();
    await expectProblem(
      await signedPost(hook.path, ts, await sign(SECRET, ts, '[1,2'), '[1,2'),
      400,
      'malformed_json',
    );
    const invalid = '{"n":"one"}';
    const body = await expectProblem(
      await signedPost(hook.path, ts, await sign(SECRET, ts, invalid), invalid),
      400,
      'invalid_fields',
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: 'n' })]);
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('signs the raw bytes: the same JSON with other spacing needs its own signature', async () => {
    const { key, hook } = await hookWith({ secret: SECRET });
    const ts = unixNow();
    const spaced = '{ "nome": "Ana", "__fault": "send" }';
    await expectProblem(await signedPost(hook.path, ts, await sign(SECRET, ts, BODY), spaced), 401);
    await expectStored(await signedPost(hook.path, ts, await sign(SECRET, ts, spaced), spaced));
    const unicode = '{"nome":"João ✓","__fault":"send"}';
    await expectStored(await signedPost(hook.path, ts, await sign(SECRET, ts, unicode), unicode));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.nome)).toEqual(['João ✓', 'Ana']);
  });

  it('needs no signature without a secret, and follows the secret as it is changed or removed', async () => {
    const { key, hook } = await hookWith();
    await expectStored(await signedPost(hook.path, 'junk', 'sha256=junk'));

    const put = (body: Json) => call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body });
    expect((await put({ secret: SECRET })).status).toBe(200);
    await expectProblem(await signedPost(hook.path), 401, 'invalid_signature');
    const ts = unixNow();
    await expectStored(await signedPost(hook.path, ts, await sign(SECRET, ts, BODY)));

    expect((await put({ secret: 'a-brand-new-secret-value' })).status).toBe(200);
    await expectProblem(await signedPost(hook.path, ts, await sign(SECRET, ts, BODY)), 401);
    await expectStored(await signedPost(hook.path, ts, await sign('a-brand-new-secret-value', ts, BODY)));

    expect((await put({ secret: null })).status).toBe(200);
    await expectStored(await signedPost(hook.path));
    expect(await eventsOf(key, hook.id)).toHaveLength(4);
  });
});
describe('ingest: round trips', () => {
  it('stores in at most two, finds an unknown token in one, and spends none on a malformed one', async () => {
    const { key, hook } = await hookWith({
      secret: 'round-trip-secret-123',
      fields: [{ key: 'n', type: 'number', required: true }],
    });
    const within = (res: Response) => {
      expect(roundTrips(res)).toBeGreaterThanOrEqual(1);
      expect(roundTrips(res)).toBeLessThanOrEqual(2);
    };
    const ts = unixNow();
    const body = '{"n":1,"__fault":"send"}';
    const signature = await sign('round-trip-secret-123', ts, body);
    const headers = {
      'Content-Type': 'application/json',
      'X-Timestamp': String(ts),
      'X-Signature': signature,
    };

    const stored = await rawPost(hook.path, body, headers);
    expect(stored.status).toBe(204);
    within(stored);
    for (const _ of [1, 2]) {
      const keyed = await rawPost(hook.path, body, { ...headers, 'Idempotency-Key': 'trip' });
      expect(keyed.status).toBe(204);
      within(keyed);
    }
    expect(await eventsOf(key, hook.id)).toHaveLength(2);
    const invalid = '{"n":"one"}';
    const refused = await rawPost(hook.path, invalid, {
      ...headers,
      'X-Signature': await sign('round-trip-secret-123', ts, invalid),
    });
    expect(refused.status).toBe(400);
    // The lookup, then one batch that keeps the rejected event and trims the old ones.
    expect(roundTrips(refused)).toBe(2);
    const unsigned = await rawPost(hook.path, body, { 'Content-Type': 'application/json' });
    expect(unsigned.status).toBe(401);
    within(unsigned);

    const unknown = await postEvent(`/hooks/${WELL_FORMED_UNKNOWN}`, { n: 1 });
    expect(unknown.status).toBe(404);
    expect(roundTrips(unknown)).toBe(1);
    const malformed = await postEvent('/hooks/not-a-token', { n: 1 });
    expect(malformed.status).toBe(404);
    expect(roundTrips(malformed)).toBe(0);
  });
});

describe('ingest: OpenAPI', () => {
  it('documents POST /hooks/{token} without an API key, with its own answers and size limit', async () => {
    const doc = await json(await call('/openapi.json'));
    const op = doc.paths['/hooks/{token}'].post;
    expect(op.security ?? doc.security ?? []).toEqual([]);
    expect(Object.keys(op.responses).sort()).toEqual([
      '204',
      '400',
      '401',
      '404',
      '413',
      '422',
      '429',
      '500',
    ]);
    expect(Object.keys(op.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(op.responses['413'].description).toContain('256 KiB');
    expect(op.responses['413'].description).not.toContain('1 MiB');
    expect(op.responses['404'].content).toBeUndefined();
  });
});
