import { describe, expect, it } from 'vitest';
import { call, expectProblem, type Json, newAccount, postEvent } from '../helpers';
import { encoder, eventsOf, expectStored, hookWith, rawPost } from './hooks-support';

// Ingest: what it stores, and the 400s of a body or a field it cannot read.

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
      { path: 'nome', code: 'required', params: { key: 'nome' }, message: expect.any(String) },
      { path: 'email', code: 'required', params: { key: 'email' }, message: expect.any(String) },
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
      ['nome', 'email'].map((path) => ({
        path,
        code: 'invalid_type',
        params: expect.objectContaining({ key: path, expected: expect.any(String) }),
        message: expect.any(String),
      })),
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
        params: expect.objectContaining({ key: path, expected: expect.any(String) }),
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
        {
          path: 'v',
          code: 'invalid_type',
          params: expect.objectContaining({ key: 'v', type, expected: expect.any(String) }),
          message: expect.any(String),
        },
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
