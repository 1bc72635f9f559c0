import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
  postEvent,
  roundTrips,
} from '../helpers';

const MAX = 256 * 1024;

const logOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await list(key, `/v1/inbound-webhooks/${hookId}/events?limit=100`)).data;

/** The events ingest accepted: the log without the refused calls it keeps as `rejected`. */
const eventsOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await logOf(key, hookId)).filter((e) => e.status !== 'rejected');

/** The refused calls of the log, newest first. */
const rejectedOf = async (key: string, hookId: number): Promise<Json[]> =>
  (await list(key, `/v1/inbound-webhooks/${hookId}/events?status=rejected&limit=100`)).data;

/** A POST with exactly these headers and body: no Content-Type unless given. */
const rawPost = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`${BASE}${path}`, { method: 'POST', headers, body }));

/** A webhook of a new account, with its API key. */
async function hookWith(config: Record<string, unknown> = {}): Promise<{ key: string; hook: Json }> {
  const { key } = await newAccount();
  return { key, hook: await newWebhook(key, config) };
}

/** Asserts the bare 204 a stored event gets. */
async function expectStored(res: Response): Promise<void> {
  expect(res.status).toBe(204);
  expect(await res.text()).toBe('');
}

/** Asserts the bare 404 an unknown, rotated or disabled URL gets: no body, nothing to learn from. */
async function expectNoHook(res: Response): Promise<void> {
  expect(res.status).toBe(404);
  expect(await res.text()).toBe('');
  expect(res.headers.get('Content-Type')).toBeNull();
}

const encoder = new TextEncoder();

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** Hex HMAC-SHA256 of `message` under `secret`, computed the way a sender would. */
async function hmacHex(secret: string, message: string): Promise<string> {
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
const sign = async (secret: string, timestamp: string | number, body: string): Promise<string> =>
  `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;

const unixNow = () => Math.floor(Date.now() / 1000);

/** A JSON object of exactly `bytes` bytes: `{"pad":"xxx…"}`. */
const bodyOfSize = (bytes: number): string => `{"pad":"${'x'.repeat(bytes - '{"pad":""}'.length)}"}`;

/** The text as a stream of 10 KiB chunks, so its length is known only by reading it. */
function streamOf(text: string): ReadableStream<Uint8Array> {
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

const WELL_FORMED_UNKNOWN = `whk_${'A'.repeat(43)}`;

describe('ingest: storing events', () => {
  it('stores a valid event with no API key: 204 with no body, the whole payload kept as sent', async () => {
    const { key, hook } = await hookWith({
      fields: [
        { key: 'nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
      ],
    });
    const body = {
      nome: 'Ana Souza',
      telefone: '(11) 98765-4321',
      not_mapped: { utm: 'google', list: [1, 'two', null] },
      __fault: 'send',
    };
    const res = await postEvent(hook.url, body);
    await expectStored(res);
    expect(res.headers.get('Content-Type')).toBeNull();

    const events = await eventsOf(key, hook.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      webhook_id: hook.id,
      status: 'pending',
      attempts: 0,
      error: null,
      processed_at: null,
      result: null,
      payload: body,
    });
  });

  it('accepts JSON content types with parameters and +json suffixes', async () => {
    const { key, hook } = await hookWith();
    for (const type of [
      'application/json; charset=utf-8',
      'application/vnd.sender+json',
      'APPLICATION/JSON',
    ]) {
      await expectStored(await rawPost(hook.path, JSON.stringify({ type }), { 'Content-Type': type }));
    }
    expect(await eventsOf(key, hook.id)).toHaveLength(3);
  });

  it('stores events posted in a row as separate events, newest first', async () => {
    const { key, hook } = await hookWith();
    for (let n = 1; n <= 3; n++) await expectStored(await postEvent(hook.url, { n, __fault: 'send' }));
    const events = await eventsOf(key, hook.id);
    expect(events.map((e) => e.payload.n)).toEqual([3, 2, 1]);
    expect(events.every((e) => e.status === 'pending')).toBe(true);
  });

  it('ignores an API key on the ingest URL: the URL alone decides the webhook', async () => {
    const a = await hookWith();
    const b = await newAccount('B');
    await expectStored(await call(a.hook.path, { method: 'POST', key: b.key, body: { who: 'a' } }));
    expect((await eventsOf(a.key, a.hook.id)).map((e) => e.payload)).toEqual([{ who: 'a' }]);
  });
});

describe('ingest: 400 for a content type it does not read or a body that is not a JSON object', () => {
  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['no content type', {}],
    ['jsonp', { 'Content-Type': 'application/javascript' }],
    ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }],
  ])('refuses %s with 400 unsupported_media_type, saying what it reads', async (_name, headers) => {
    const { key, hook } = await hookWith();
    const body = await expectProblem(
      await rawPost(hook.path, '{"a":1}', headers),
      400,
      'unsupported_media_type',
    );
    expect(body.detail).toContain('application/json');
    expect(body.detail).toContain('application/x-www-form-urlencoded');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it.each([
    ['truncated JSON', '{"a":'],
    ['an empty body', ''],
    ['form encoding', 'nome=Ana'],
    ['single quotes', "{'a': 1}"],
    ['a trailing comma', '{"a":1,}'],
  ])('refuses %s with 400 malformed_json', async (_name, body) => {
    const { key, hook } = await hookWith();
    const problem = await expectProblem(await postEvent(hook.url, body), 400, 'malformed_json');
    expect(problem.detail).toBe('The Content-Type is JSON, but the body is not valid JSON.');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('reads JSON bytes that are not UTF-8 as Windows-1252, with a warning, never as U+FFFD', async () => {
    const { key, hook } = await hookWith();
    const bytes = new Uint8Array([
      ...encoder.encode('{"a":"'),
      0xff,
      0xfe,
      ...encoder.encode('","__fault":"send"}'),
    ]);
    await expectStored(await rawPost(hook.path, bytes, { 'Content-Type': 'application/json' }));
    const [event] = await eventsOf(key, hook.id);
    expect(event.payload.a).toBe('\u00ff\u00fe');
    expect(event.warnings).toEqual([expect.objectContaining({ path: '', code: 'decoded_as_windows_1252' })]);
  });

  it.each([
    ['an array', '[{"a":1}]'],
    ['an empty array', '[]'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['a number', '42'],
    ['a boolean', 'true'],
  ])('refuses %s with 400 body_not_object', async (_name, body) => {
    const { key, hook } = await hookWith();
    await expectProblem(await postEvent(hook.url, body), 400, 'body_not_object');
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });
});

describe('ingest: 400 for fields that are missing or do not fit their type', () => {
  const FIELDS = [
    { key: 'nome', type: 'string', required: true },
    { key: 'email', type: 'email', required: true },
    { key: 'idade', type: 'number' },
    { key: 'ativo', type: 'boolean' },
    { key: 'data', type: 'date' },
    { key: 'tel', type: 'phone' },
  ];

  it('treats a required field that is absent, null or blank as missing, and an optional one as fine', async () => {
    const { key, hook } = await hookWith({ fields: FIELDS });
    for (const nome of [undefined, '', '  ']) {
      const body = await expectProblem(
        await postEvent(hook.url, { nome, email: ' ' }),
        400,
        'invalid_fields',
      );
      expect(body.errors.map((e: Json) => [e.path, e.code])).toEqual([
        ['nome', 'required'],
        ['email', 'required'],
      ]);
    }
    const body = await expectProblem(await postEvent(hook.url, { email: null }), 400, 'invalid_fields');
    expect(body.errors).toEqual([
      { path: 'nome', code: 'required', message: expect.any(String) },
      { path: 'email', code: 'required', message: expect.any(String) },
    ]);
    const one = await expectProblem(await postEvent(hook.url, { nome: 'Ana', email: null }), 400);
    expect(one.errors).toEqual([expect.objectContaining({ path: 'email', code: 'required' })]);
    await expectStored(
      await postEvent(hook.url, { nome: 'Ana', email: 'ana@example.com', idade: null, ativo: '', tel: ' ' }),
    );
    const events = await eventsOf(key, hook.id);
    expect(events).toHaveLength(1);
    expect(events[0].warnings).toEqual([]);
  });

  it('gives one error per bad required field, keyed by the field key, and accepts nothing', async () => {
    const { key, hook } = await hookWith({ fields: FIELDS });
    const res = await postEvent(hook.url, {
      nome: ['Ana'],
      email: 'not-an-email',
      idade: 'trinta',
      ativo: 'talvez',
      data: '2024-02-30',
      tel: '123',
    });
    const body = await expectProblem(res, 400, 'invalid_fields');
    expect(body.errors).toEqual(
      ['nome', 'email'].map((path) => ({ path, code: 'invalid_type', message: expect.any(String) })),
    );
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('leaves out an optional field that does not fit, and lists it in the event warnings', async () => {
    const { key, hook } = await hookWith({ fields: FIELDS });
    const sent = {
      nome: 'Ana',
      email: 'ana@example.com',
      idade: 'trinta',
      ativo: 'talvez',
      data: '2024-02-30',
      tel: '123',
      __fault: 'send',
    };
    await expectStored(await postEvent(hook.url, sent));
    const [event] = await eventsOf(key, hook.id);
    expect(event).toMatchObject({ status: 'pending', payload: sent, rejection: null });
    expect(event.warnings).toEqual(
      ['idade', 'ativo', 'data', 'tel'].map((path) => ({
        path,
        code: 'dropped',
        message: expect.stringMatching(/^Left out: Expected .+\.$/),
      })),
    );
  });

  const cases: [type: string, good: unknown[], bad: unknown[]][] = [
    [
      'date',
      [
        '2024-03-05',
        '2024-3-5',
        '2024-03-5',
        '2024-02-29',
        '2024-12-31',
        '2024-03-05T10:00:00.000Z',
        '2024-02-29T23:59:59.999Z',
        '2024-03-05T10:00:00Z',
        '2024-03-05T10:00:00.000+03:00',
        '2024-03-05T10:00:00.00Z',
        '2024-03-05 10:00:00-03:00',
        '2024-03-05t10:00:00.123456z',
      ],
      [
        '2024-02-30',
        '2023-02-29',
        '2024-13-01',
        '2024-00-10',
        '2024-04-31',
        '2024-3-5T10:00:00Z',
        '2024-3-5T10:00:00.000Z',
        '2024-03-05T25:00:00.000Z',
        '2024-03-05T10:00:00+24:00',
        '2024-03-05T10:00:00',
        '2024-03-05 10:00:00',
        '05/03/2024',
        '2024-003-05',
        '24-03-05',
        ' 2024-03-05',
        20240305,
        true,
      ],
    ],
    [
      'phone',
      ['+55 11 98765-4321', '(11) 98765-4321', '11987654321', '11 3456-7890', '+1 415 555 2671', 11987654321],
      ['12345', 'abc', '+', '(11) 8765-432', 12345, 1.5, true],
    ],
    [
      'email',
      ['ana@example.com', 'ANA.souza+lead@sub.example.com.br', '  ana@example.com  '],
      ['ana@', 'not an email', '@example.com', 'ana@example', 5, false],
    ],
    [
      'number',
      [0, 1, -3, 1.5, 1e21, '1', '89900', '899,00', '899.5', ' -3,25 ', '+7'],
      ['one', 'R$ 10', '1.500', '1,500', '1.234,56', '1,2,3', '1e3', '0x10', true, [1], { n: 1 }],
    ],
    ['boolean', [true, false, 'true', 'FALSE', '1', '0', 1, 0], ['yes', 'sim', 2, [true]]],
    ['string', ['x', 'ç ✓ 😀', 5, true], [['x'], { s: 'x' }, 'lone \ud800 surrogate']],
  ];

  it.each(cases)('%s: accepts the good values and refuses the bad ones with 400', async (type, good, bad) => {
    const { key, hook } = await hookWith({ fields: [{ key: 'v', type, required: true }] });
    for (const v of good) {
      const res = await postEvent(hook.url, { v, __fault: 'send' });
      expect(res.status, `${type} ${JSON.stringify(v)}`).toBe(204);
    }
    for (const v of bad) {
      const res = await postEvent(hook.url, { v });
      const body = await expectProblem(res, 400, 'invalid_fields');
      expect(body.errors, `${type} ${JSON.stringify(v)}`).toEqual([
        { path: 'v', code: 'invalid_type', message: expect.any(String) },
      ]);
    }
    expect(await eventsOf(key, hook.id)).toHaveLength(good.length);
  });

  it('reads nested keys through objects and array indexes', async () => {
    const { key, hook } = await hookWith({
      fields: [
        { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
        { key: 'answers.0.text', type: 'string', required: true },
        { key: 'meta.tags.1', type: 'string' },
      ],
    });
    const good = {
      lead: { phone: '11987654321', name: 'Ana' },
      answers: [{ text: 'sim' }, { text: 'não' }],
      meta: { tags: ['a', 'b'] },
      __fault: 'send',
    };
    await expectStored(await postEvent(hook.url, good));
    expect((await eventsOf(key, hook.id))[0].payload).toEqual(good);

    const errorsOf = async (body: Json) => (await expectProblem(await postEvent(hook.url, body), 400)).errors;
    expect(
      await errorsOf({ lead: { phone: 'x' }, answers: [{ text: {} }], meta: { tags: ['a', {}] } }),
    ).toEqual([
      expect.objectContaining({ path: 'lead.phone', code: 'invalid_type' }),
      expect.objectContaining({ path: 'answers.0.text', code: 'invalid_type' }),
    ]);
    expect(await errorsOf({ lead: '11987654321', answers: [] })).toEqual([
      expect.objectContaining({ path: 'lead.phone', code: 'required' }),
      expect.objectContaining({ path: 'answers.0.text', code: 'required' }),
    ]);
    // A flat key that merely contains the dots is not the nested field.
    expect(await errorsOf({ 'lead.phone': '11987654321', 'answers.0.text': 'sim' })).toEqual([
      expect.objectContaining({ path: 'lead.phone', code: 'required' }),
      expect.objectContaining({ path: 'answers.0.text', code: 'required' }),
    ]);
    expect(await errorsOf({ lead: { phone: '11987654321' }, answers: { text: 'sim' } })).toEqual([
      expect.objectContaining({ path: 'answers.0.text', code: 'required' }),
    ]);
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
  });

  it('never reads a key from the object prototype', async () => {
    const { hook } = await hookWith({
      fields: [
        { key: 'hasOwnProperty', type: 'string', required: true },
        { key: 'lead.toString', type: 'string', required: true },
      ],
    });
    const body = await expectProblem(await postEvent(hook.url, { lead: {} }), 400, 'invalid_fields');
    expect(body.errors).toEqual([
      expect.objectContaining({ path: 'hasOwnProperty', code: 'required' }),
      expect.objectContaining({ path: 'lead.toString', code: 'required' }),
    ]);
    await expectStored(await postEvent(hook.url, { hasOwnProperty: 'c', lead: { toString: 's' } }));
  });
});

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
    for (const event of events) expect(event.payload.pad).toHaveLength(MAX - 10);
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

describe('ingest: Idempotency-Key', () => {
  const withKey = (url: string, body: unknown, key: string) =>
    postEvent(url, body, { 'Idempotency-Key': key });

  it('stores a repeated key once within 24 hours, and each new key or keyless call again', async () => {
    const { key, hook } = await hookWith();
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'evt-1'));
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'evt-1'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([1]);
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'evt-2'));
    await expectStored(await withKey(hook.url, { n: 4, __fault: 'send' }, 'EVT-1'));
    await expectStored(await postEvent(hook.url, { n: 5, __fault: 'send' }));
    await expectStored(await postEvent(hook.url, { n: 5, __fault: 'send' }));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([5, 5, 4, 3, 1]);
  });

  it('stores one event for concurrent calls with the same key', async () => {
    const { key, hook } = await hookWith();
    const calls = Array.from({ length: 5 }, () => withKey(hook.url, { n: 1, __fault: 'send' }, 'burst'));
    for (const res of await Promise.all(calls)) await expectStored(res);
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
  });

  it("keeps each webhook's keys apart", async () => {
    const { key, hook } = await hookWith();
    const other = await newWebhook(key, { name: 'Other' });
    const b = await hookWith();
    for (const url of [hook.url, other.url, b.hook.url]) {
      await expectStored(await withKey(url, { __fault: 'send' }, 'shared-key'));
      await expectStored(await withKey(url, { __fault: 'send' }, 'shared-key'));
    }
    expect(await eventsOf(key, hook.id)).toHaveLength(1);
    expect(await eventsOf(key, other.id)).toHaveLength(1);
    expect(await eventsOf(b.key, b.hook.id)).toHaveLength(1);
  });

  it('keeps a key for 24 hours and then lets the same key store a new event', async () => {
    const { key, hook } = await hookWith();
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'daily'));
    const [first] = await eventsOf(key, hook.id);
    const setAge = (ageMs: number) =>
      env.DB.prepare('UPDATE inbound_events SET received_at = ? WHERE id = ?')
        .bind(Date.now() - ageMs, first.id)
        .run();

    await setAge(23 * 3_600_000 + 59 * 60_000);
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'daily'));
    expect(await eventsOf(key, hook.id)).toHaveLength(1);

    await setAge(24 * 3_600_000 + 60_000);
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'daily'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([3, 1]);
    // The new event holds the key now.
    await expectStored(await withKey(hook.url, { n: 3, __fault: 'send' }, 'daily'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([3, 1]);
  });

  it('does not take a key for a refused call', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectProblem(await withKey(hook.url, { n: 'one' }, 'retry-me'), 400, 'invalid_fields');
    await expectStored(await withKey(hook.url, { n: 1, __fault: 'send' }, 'retry-me'));
    expect((await eventsOf(key, hook.id)).map((e) => e.payload.n)).toEqual([1]);
  });

  it('refuses a key that is too long, empty or not printable ASCII with 400', async () => {
    const { key, hook } = await hookWith();
    for (const bad of ['k'.repeat(256), '', 'a\x01b', 'a\tb', 'a\x7fb']) {
      const res = await withKey(hook.url, { a: 1 }, bad);
      await expectProblem(res, 400, 'invalid_idempotency_key');
    }
    expect(await eventsOf(key, hook.id)).toEqual([]);
    await expectStored(await withKey(hook.url, { __fault: 'send' }, 'k'.repeat(255)));
    await expectStored(await withKey(hook.url, { __fault: 'send' }, ' !~{}"\'<>'));
    expect(await eventsOf(key, hook.id)).toHaveLength(2);
  });
});

describe('ingest: test mode', () => {
  const FIELDS = [
    { key: 'nome', type: 'string', required: true },
    { key: 'quando', type: 'date' },
    { key: 'lead.email', type: 'email' },
  ];

  it('refuses exactly what production refuses, with the same answer', async () => {
    const { key } = await newAccount();
    const prod = await newWebhook(key, { fields: FIELDS });
    const test = await newWebhook(key, { fields: FIELDS, mode: 'test' });
    const requests: [string, Record<string, string>][] = [
      ['{"nome":"Ana"}', { 'Content-Type': 'text/plain' }],
      ['{"nome":', { 'Content-Type': 'application/json' }],
      ['["nome"]', { 'Content-Type': 'application/json' }],
      ['null', { 'Content-Type': 'application/json' }],
      ['{"quando":"2024-02-30"}', { 'Content-Type': 'application/json' }],
      [
        '{"nome":null,"quando":"2024-3-5T10:00:00Z","lead":{"email":"x"}}',
        { 'Content-Type': 'application/json' },
      ],
      ['{"nome":"Ana"}', { 'Content-Type': 'application/json', 'Idempotency-Key': 'x'.repeat(256) }],
    ];
    for (const [body, headers] of requests) {
      const answers: Json[] = [];
      for (const hook of [prod, test]) {
        const res = await rawPost(hook.path, body, headers);
        expect(res.status, body).toBe(400);
        const { request_id: _id, ...problem } = await json(res);
        answers.push(problem);
      }
      expect(answers[1], body).toEqual(answers[0]);
    }
    expect(await eventsOf(key, prod.id)).toEqual([]);
    expect(await eventsOf(key, test.id)).toEqual([]);
  });

  it('keeps the events it accepts, deduplicated the same way', async () => {
    const { key, hook } = await hookWith({ fields: FIELDS, mode: 'test' });
    const body = {
      nome: 'Ana',
      quando: '2024-3-5',
      lead: { email: 'ana@example.com', extra: 1 },
      __fault: 'send',
    };
    await expectStored(await postEvent(hook.url, body, { 'Idempotency-Key': 'k1' }));
    await expectStored(await postEvent(hook.url, body, { 'Idempotency-Key': 'k1' }));
    const events = await eventsOf(key, hook.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: 'pending', payload: body });
  });
});

describe('ingest: refused calls are kept in the event log as rejected', () => {
  it('keeps each kind of refusal with the problem its sender got and the body as text', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    const json = { 'Content-Type': 'application/json' };
    const deep = `${'['.repeat(33)}${']'.repeat(33)}`;
    const calls: [BodyInit, Record<string, string>, number, string][] = [
      ['{"n":"one"}', json, 400, 'invalid_fields'],
      ['{"n":', json, 400, 'malformed_json'],
      ['[1]', json, 400, 'body_not_object'],
      [`{"d":${deep}}`, json, 400, 'body_too_deep'],
      ['{"n":1}', { ...json, 'Idempotency-Key': 'k'.repeat(256) }, 400, 'invalid_idempotency_key'],
      ['n=1', { 'Content-Type': 'text/plain' }, 400, 'unsupported_media_type'],
    ];
    for (const [body, headers, status, code] of calls) {
      const problem = await expectProblem(await rawPost(hook.path, body, headers), status, code);
      const [event] = await rejectedOf(key, hook.id);
      expect(event, code).toMatchObject({
        status: 'rejected',
        payload: null,
        attempts: 0,
        processed_at: null,
        result: null,
        warnings: [],
        rejection: { status, code, detail: problem.detail, body },
      });
      expect(event.rejection.errors).toEqual(problem.errors);
    }
    expect(await rejectedOf(key, hook.id)).toHaveLength(calls.length);
    expect(await eventsOf(key, hook.id)).toEqual([]);
  });

  it('keeps the first 4 KiB of a refused body, never half a character', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    // 4095 bytes before the first é that the 4096-byte limit cuts in half.
    const body = `{"n":"x","pad":"${'a'.repeat(3999)}${'é'.repeat(500)}"}`;
    await expectProblem(await postEvent(hook.url, body), 400, 'invalid_fields');
    const [event] = await rejectedOf(key, hook.id);
    expect(event.payload).toBeNull();
    expect(body.startsWith(event.rejection.body)).toBe(true);
    expect(encoder.encode(event.rejection.body).length).toBe(4095);
    expect(event.rejection.body).not.toContain('\ufffd');
  });

  it('keeps a failed signature and a body over the limit without the body, and no signature header', async () => {
    const secret = 'whsec-rejected-0123456';
    const { key, hook } = await hookWith({ secret });
    const ts = unixNow();
    const signature = await sign(secret, ts, '{"other":1}');
    const sent = await rawPost(hook.path, '{"a":1}', {
      'Content-Type': 'application/json',
      'X-Timestamp': String(ts),
      'X-Signature': signature,
      'User-Agent': 'sender/1.0',
    });
    await expectProblem(sent, 401, 'invalid_signature');
    await expectProblem(await postEvent(hook.url, bodyOfSize(MAX + 1)), 413, 'body_too_large');
    const [tooLarge, unsigned] = await rejectedOf(key, hook.id);
    expect(unsigned).toMatchObject({
      payload: null,
      rejection: {
        body: null,
        status: 401,
        code: 'invalid_signature',
        errors: [{ path: 'X-Signature', code: 'digest_mismatch' }],
      },
    });
    expect(tooLarge).toMatchObject({
      payload: null,
      rejection: { body: null, status: 413, code: 'body_too_large' },
    });
    const rows = await env.DB.prepare('SELECT * FROM inbound_events WHERE webhook_id = ?')
      .bind(hook.id)
      .all();
    expect(rows.results).toHaveLength(2);
    const stored = JSON.stringify(rows.results);
    expect(stored).not.toContain(signature.slice('sha256='.length));
    expect(stored).not.toContain(secret);
    expect(JSON.parse(String(rows.results.find((r) => r.id === unsigned.id)?.headers))).toEqual({
      'content-type': 'application/json',
      'user-agent': 'sender/1.0',
    });
  });

  it('keeps nothing for an unknown, disabled or rotated URL: there is no webhook to file it under', async () => {
    const { key, hook } = await hookWith();
    await call(`/v1/inbound-webhooks/${hook.id}/rotate-token`, { method: 'POST', key });
    await expectNoHook(await postEvent(hook.url, '{"a":'));
    await expectNoHook(await postEvent(`/hooks/${WELL_FORMED_UNKNOWN}`, '{"a":'));
    expect(await logOf(key, hook.id)).toEqual([]);
  });

  it('keeps only the newest 100 rejected events of a webhook, and none of its accepted ones goes', async () => {
    const { key, hook } = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectStored(await postEvent(hook.url, { n: 0, __fault: 'send' }));
    for (let i = 1; i <= 103; i++) await expectProblem(await postEvent(hook.url, { n: `bad-${i}` }), 400);
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM inbound_events WHERE webhook_id = ? AND status = 'rejected'",
    )
      .bind(hook.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(100);
    const rejected = await rejectedOf(key, hook.id);
    expect(rejected[0].rejection.body).toBe('{"n":"bad-103"}');
    expect(rejected[99].rejection.body).toBe('{"n":"bad-4"}');
    const accepted = await env.DB.prepare(
      "SELECT payload FROM inbound_events WHERE webhook_id = ? AND status <> 'rejected'",
    )
      .bind(hook.id)
      .all();
    expect(accepted.results).toEqual([{ payload: '{"n":0,"__fault":"send"}' }]);
  });

  it("files a refusal under its webhook's account only", async () => {
    const a = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    const b = await hookWith({ fields: [{ key: 'n', type: 'number', required: true }] });
    await expectProblem(await postEvent(a.hook.url, { n: 'x' }), 400);
    expect(await rejectedOf(a.key, a.hook.id)).toHaveLength(1);
    expect(await logOf(b.key, b.hook.id)).toEqual([]);
    const other = await call(`/v1/inbound-webhooks/${a.hook.id}/events?status=rejected`, { key: b.key });
    await expectProblem(other, 404);
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
