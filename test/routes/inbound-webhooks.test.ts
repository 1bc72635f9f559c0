import { describe, expect, it } from 'vitest';
import {
  allIds,
  call,
  expectNotFound,
  expectProblem,
  expectReadOnly,
  expectUnknownField,
  ISO_MS,
  idsOf,
  type Json,
  json,
  list,
  newAccount,
  newUser,
  newWebhook,
  pageWithNext,
  postEvent,
  roundTrips,
  writable,
} from '../helpers';
import { eventIds, eventsPath, get, listIds, PATH, pendingEvent, post, put } from './inbound-webhook-support';

// The shard after `whk_s<k>_` unless shard 0 (src/core/sharded-secret.ts), then 256 random bits.
const URL_PATTERN = /^http:\/\/crm\.test\/hooks\/whk_(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/;

const WEBHOOK_KEYS = [
  'created_at',
  'enabled',
  'fields',
  'flows',
  'has_secret',
  'id',
  'mode',
  'name',
  'previous_url_expires_at',
  'updated_at',
  'url',
];

const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** The hook as GET shows it: `newWebhook` adds `path`, which the API does not return. */
const shown = ({ path: _path, ...data }: Json): Json => data;

/** A mapping with every kind of target, and flows using every action, op and owner form. */
const FULL_FIELDS = [
  { key: 'nome', type: 'string', required: true, target: 'contact.name' },
  { key: 'lead.email', type: 'email', target: 'contact.email' },
  { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
  { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
  { key: 'produto', type: 'string', target: 'deal.name' },
  { key: 'valor', type: 'number', target: 'deal.value' },
  { key: 'loja', type: 'string', target: 'deal.custom_fields.loja' },
  { key: 'empresa', type: 'string', target: 'company.name' },
  { key: 'cnpj', type: 'string', target: 'company.cnpj' },
  { key: 'data_compra', type: 'date' },
  { key: 'aceite', type: 'boolean' },
  { key: 'answers.0.text', type: 'string' },
];

const fullFlows = (u1: number, u2: number) => [
  { action: 'upsert_contact', match_on: ['phone', 'email'] },
  { action: 'upsert_company', when: { field: 'cnpj', op: 'exists' } },
  {
    action: 'create_deal',
    name: '{{ nome }} - {{veiculo}}',
    owner: { round_robin: [u1, u2] },
    when: { field: 'aceite', op: 'equals', value: true },
  },
  {
    action: 'create_task',
    name: 'Revisão de {{nome}}',
    category: 'Pós-venda {{loja}}',
    description: 'Ligar para o cliente',
    due: { from: 'data_compra', days: 365, hours: -3 },
    owner: { user_id: u1 },
    when: { field: 'produto', op: 'not_equals', value: 'Teste' },
  },
  {
    action: 'create_task',
    name: 'Boas-vindas',
    category: 'Onboarding',
    due: { from: 'received_at', hours: 2 },
    when: { field: 'answers.0.text', op: 'contains', value: 'sim' },
  },
];

describe('inbound webhooks: create and read', () => {
  it('creates a webhook with defaults: 201, Location, a secret URL, and GET returns the same', async () => {
    const { key } = await newAccount();
    const res = await post(key, { name: '  Site form  ' });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`http://crm.test${PATH}/${data.id}`);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Site form',
      url: expect.stringMatching(URL_PATTERN),
      previous_url_expires_at: null,
      enabled: true,
      mode: 'production',
      has_secret: false,
      fields: [],
      flows: [],
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
    expect(Object.keys(data).sort()).toEqual(WEBHOOK_KEYS);
    expect(data.updated_at).toBe(data.created_at);
    expect(await get(key, data.id)).toEqual(data);
  });

  it('gives every webhook its own random token of at least 128 bits', async () => {
    const { key } = await newAccount();
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const hook = await newWebhook(key, { name: `Hook ${i}` });
      const token = tokenOf(hook.url);
      // base64url: 6 bits a character after the `whk_` prefix.
      expect((token.length - 'whk_'.length) * 6).toBeGreaterThanOrEqual(128);
      tokens.add(token);
    }
    expect(tokens.size).toBe(5);
  });

  it('stores a full configuration, fills the defaults, and never shows the secret', async () => {
    const { key } = await newAccount();
    const u1 = await newUser(key, 'Ana');
    const u2 = await newUser(key, 'Bia');
    const secret = 's3cr3t-value-that-is-long-enough';
    const res = await post(key, {
      name: 'Full',
      mode: 'test',
      enabled: true,
      secret,
      fields: FULL_FIELDS,
      flows: fullFlows(u1.id, u2.id),
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(secret);
    const { data } = JSON.parse(text);
    expect(data).toMatchObject({ name: 'Full', mode: 'test', enabled: true, has_secret: true });
    expect(data).not.toHaveProperty('secret');
    expect(data.fields).toEqual(FULL_FIELDS.map((f) => ({ required: false, ...f })));
    const flows = fullFlows(u1.id, u2.id);
    expect(data.flows).toEqual([
      flows[0],
      flows[1],
      flows[2],
      flows[3],
      { ...flows[4], due: { from: 'received_at', days: 0, hours: 2 } },
    ]);

    const read = await call(`${PATH}/${data.id}`, { key });
    const readText = await read.text();
    expect(readText).not.toContain(secret);
    expect(JSON.parse(readText).data).toEqual(data);
    const listed = await call(PATH, { key });
    expect(await listed.text()).not.toContain(secret);
  });

  it('defaults match_on to phone and email, and a field to not required', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'email', type: 'email', target: 'contact.email' },
        { key: 'phone', type: 'phone', target: 'contact.phone' },
      ],
      flows: [{ action: 'upsert_contact' }],
    });
    expect(hook.fields).toEqual([
      { key: 'email', type: 'email', required: false, target: 'contact.email' },
      { key: 'phone', type: 'phone', required: false, target: 'contact.phone' },
    ]);
    expect(hook.flows).toEqual([{ action: 'upsert_contact', match_on: ['phone', 'email'] }]);
  });

  it('requires a name (absent, blank or null: 422) and creates nothing', async () => {
    const { key } = await newAccount();
    const absent = await expectProblem(await post(key, { mode: 'test' }), 422, 'validation_failed');
    expect(absent.errors).toEqual([expect.objectContaining({ path: 'name', code: 'required' })]);
    for (const name of ['   ', '', null, 5]) {
      const body = await expectProblem(await post(key, { name }), 422, 'validation_failed');
      expect(body.errors, JSON.stringify(name)).toEqual([expect.objectContaining({ path: 'name' })]);
    }
    expect(await listIds(key, {})).toEqual([]);
  });

  it('refuses the read-only fields on write: url, previous_url_expires_at, has_secret, id and the timestamps', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 999,
      url: 'https://evil.example/hooks/whk_mine',
      previous_url_expires_at: '2099-01-01T00:00:00.000Z',
      has_secret: true,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'RO', ...readOnly } }),
      Object.keys(readOnly),
      { writes: { url: 'rotate-token', has_secret: 'secret', previous_url_expires_at: 'grace_period' } },
    );
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toEqual([]);
  });

  it('refuses unknown fields, a bad mode, enabled that is not a boolean, and a secret out of bounds', async () => {
    const { key } = await newAccount();
    await expectUnknownField(await post(key, { name: 'X', token: 'whk_mine' }), 'token');
    await expectUnknownField(
      await post(key, { name: 'X', fields: [{ key: 'a', type: 'string', x: 1 }] }),
      'fields.0.x',
    );
    const cases: [Json, string][] = [
      [{ mode: 'staging' }, 'mode'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ secret: 'too-short' }, 'secret'],
      [{ secret: 'x'.repeat(257) }, 'secret'],
      [{ fields: {} }, 'fields'],
      [{ flows: 'upsert_contact' }, 'flows'],
    ];
    for (const [extra, path] of cases) {
      const body = await expectProblem(await post(key, { name: 'X', ...extra }), 422, 'validation_failed');
      expect(body.errors, JSON.stringify(extra)).toEqual([expect.objectContaining({ path })]);
    }
    expect(await listIds(key, {})).toEqual([]);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    const { key } = await newAccount();
    await expectNotFound(key, PATH, 999_999, ['abc', '0', '-1', '1.5']);
    for (const sub of ['', '/events', '/sample-fields']) {
      await expectProblem(await call(`${PATH}/999999${sub}`, { key }), 404, 'not_found');
    }
    await expectProblem(await call(`${PATH}/999999`, { method: 'DELETE', key }), 404, 'not_found');
    await expectProblem(await call(`${PATH}/999999/rotate-token`, { method: 'POST', key }), 404, 'not_found');
  });

  it('needs an API key', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    await expectProblem(await call(PATH), 401, 'unauthorized');
    await expectProblem(await call(`${PATH}/${hook.id}`), 401, 'unauthorized');
    await expectProblem(await call(`${PATH}/${hook.id}/events`), 401, 'unauthorized');
    await expectProblem(await call(PATH, { method: 'POST', body: { name: 'X' } }), 401, 'unauthorized');
  });
});

describe('inbound webhooks: update', () => {
  it('changes only the fields sent and bumps updated_at', async () => {
    const { key } = await newAccount();
    const hook = shown(
      await newWebhook(key, {
        name: 'Old',
        fields: [{ key: 'nome', type: 'string', target: 'contact.name' }],
      }),
    );
    const res = await put(key, hook.id, { name: 'New', mode: 'test' });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toEqual({ ...hook, name: 'New', mode: 'test', updated_at: expect.stringMatching(ISO_MS) });
    expect(Date.parse(data.updated_at)).toBeGreaterThan(Date.parse(hook.updated_at));
    expect(await get(key, hook.id)).toEqual(data);
  });

  it('takes back what GET returns, without its read-only fields, unchanged', async () => {
    const { key } = await newAccount();
    const u1 = await newUser(key, 'Ana');
    const u2 = await newUser(key, 'Bia');
    const hook = await get(
      key,
      (await newWebhook(key, { name: 'Full', fields: FULL_FIELDS, flows: fullFlows(u1.id, u2.id) })).id,
    );
    const res = await put(key, hook.id, writable(hook, ['url', 'has_secret', 'previous_url_expires_at']));
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toEqual({ ...hook, updated_at: expect.stringMatching(ISO_MS) });
  });

  it('validates flows sent alone against the stored fields', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'tel', type: 'phone', target: 'contact.phone' },
      ],
    });
    const ok = await put(key, hook.id, {
      flows: [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'create_deal', name: 'Lead {{nome}}' },
      ],
    });
    expect(ok.status).toBe(200);
    expect((await json(ok)).data.flows).toHaveLength(2);

    for (const [flows, path] of [
      [[{ action: 'create_deal', name: 'Lead {{email}}' }], 'flows.0.name'],
      [[{ action: 'upsert_contact', match_on: ['email'] }], 'flows.0.match_on.0'],
      [[{ action: 'create_task', name: 'T', category: 'C' }], 'flows.0.action'],
      [[{ action: 'create_deal', name: 'D', when: { field: 'idade', op: 'exists' } }], 'flows.0.when.field'],
    ] as const) {
      const body = await expectProblem(await put(key, hook.id, { flows }), 422, 'validation_failed');
      expect(body.errors, JSON.stringify(flows)).toEqual([expect.objectContaining({ path })]);
    }
    expect((await get(key, hook.id)).flows).toHaveLength(2);
  });

  it('validates fields sent alone against the stored flows', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', target: 'contact.name' },
        { key: 'tel', type: 'phone', target: 'contact.phone' },
      ],
      flows: [
        { action: 'upsert_contact', match_on: ['phone'] },
        { action: 'create_deal', name: 'Lead {{nome}}' },
      ],
    });
    const dropsNome = await expectProblem(
      await put(key, hook.id, { fields: [{ key: 'tel', type: 'phone', target: 'contact.phone' }] }),
      422,
      'validation_failed',
    );
    expect(dropsNome.errors).toEqual([expect.objectContaining({ path: 'flows.1.name' })]);
    const dropsPhone = await expectProblem(
      await put(key, hook.id, { fields: [{ key: 'nome', type: 'string', target: 'contact.name' }] }),
      422,
      'validation_failed',
    );
    expect(dropsPhone.errors).toEqual([expect.objectContaining({ path: 'flows.0.match_on.0' })]);
    const mismatch = await expectProblem(
      await put(key, hook.id, {
        fields: [
          { key: 'nome', type: 'string', target: 'contact.name' },
          { key: 'tel', type: 'string', target: 'contact.phone' },
        ],
      }),
      422,
      'validation_failed',
    );
    expect(mismatch.errors).toEqual([expect.objectContaining({ path: 'fields.1.type' })]);
    expect((await get(key, hook.id)).fields).toEqual(hook.fields);

    const ok = await put(key, hook.id, {
      fields: [...hook.fields, { key: 'extra', type: 'boolean' }],
    });
    expect(ok.status).toBe(200);
    expect((await json(ok)).data.fields).toHaveLength(3);
  });

  it('validates fields and flows sent together as one configuration', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [{ key: 'nome', type: 'string', target: 'deal.name' }],
      flows: [{ action: 'create_deal' }],
    });
    const res = await put(key, hook.id, {
      fields: [{ key: 'titulo', type: 'string', target: 'deal.name' }],
      flows: [{ action: 'create_deal', name: '{{titulo}}' }],
    });
    expect(res.status).toBe(200);
    const bad = await expectProblem(
      await put(key, hook.id, { fields: [], flows: [{ action: 'create_deal', name: '{{titulo}}' }] }),
      422,
      'validation_failed',
    );
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'flows.0.name' })]);
  });

  it("refuses owners that are another account's users, on PUT too, and keeps the stored flows", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const mine = await newUser(a.key, 'Mine');
    const theirs = await newUser(b.key, 'Theirs');
    const hook = await newWebhook(a.key, {
      fields: [{ key: 'produto', type: 'string', target: 'deal.name' }],
      flows: [{ action: 'create_deal', owner: { user_id: mine.id } }],
    });
    const one = await expectProblem(
      await put(a.key, hook.id, { flows: [{ action: 'create_deal', owner: { user_id: theirs.id } }] }),
      422,
      'validation_failed',
    );
    expect(one.errors).toEqual([
      expect.objectContaining({ path: 'flows.0.owner.user_id', code: 'not_found' }),
    ]);
    const rotation = await expectProblem(
      await put(a.key, hook.id, {
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'T', category: 'C', owner: { round_robin: [mine.id, theirs.id] } },
        ],
      }),
      422,
      'validation_failed',
    );
    expect(rotation.errors).toEqual([
      expect.objectContaining({ path: 'flows.1.owner.round_robin.1', code: 'not_found' }),
    ]);
    expect((await get(a.key, hook.id)).flows).toEqual([
      { action: 'create_deal', owner: { user_id: mine.id } },
    ]);
  });

  it('sets and removes the secret without ever showing it', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const set = await put(key, hook.id, { secret: 'a-long-enough-secret' });
    expect(set.status).toBe(200);
    const setText = await set.text();
    expect(setText).not.toContain('a-long-enough-secret');
    expect(JSON.parse(setText).data.has_secret).toBe(true);
    const kept = await put(key, hook.id, { name: 'Renamed' });
    expect((await json(kept)).data.has_secret).toBe(true);
    const removed = await put(key, hook.id, { secret: null });
    expect((await json(removed)).data.has_secret).toBe(false);
  });

  it('refuses a bad body with 422 and changes nothing', async () => {
    const { key } = await newAccount();
    const hook = shown(await newWebhook(key, { name: 'Keep' }));
    for (const [body, path] of [
      [{ name: null }, 'name'],
      [{ name: '' }, 'name'],
      [{ enabled: null }, 'enabled'],
      [{ mode: 'live' }, 'mode'],
      [{ fields: null }, 'fields'],
      [{ flows: [{ action: 'nothing' }] }, 'flows.0.action'],
    ] as const) {
      const problem = await expectProblem(await put(key, hook.id, body), 422, 'validation_failed');
      expect(problem.errors, JSON.stringify(body)).toEqual([expect.objectContaining({ path })]);
    }
    await expectUnknownField(await put(key, hook.id, { token: 'whk_x' }), 'token');
    expect(await get(key, hook.id)).toEqual(hook);
  });

  it('keeps the URL across updates, and refuses one sent', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    await expectReadOnly(
      await put(key, hook.id, { name: 'Other', url: 'http://crm.test/hooks/whk_other', mode: 'test' }),
      ['url'],
      { writes: { url: 'rotate-token' } },
    );
    const res = await put(key, hook.id, { name: 'Other', mode: 'test' });
    expect((await json(res)).data.url).toBe(hook.url);
  });
});

describe('inbound webhooks: disable (DELETE)', () => {
  it('disables the webhook: 204, its URL answers 404, and its events stay readable', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    await pendingEvent(hook.url, { n: 1 });
    const [eventId] = await eventIds(key, hook.id);

    const res = await call(`${PATH}/${hook.id}`, { method: 'DELETE', key });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');

    const ingest = await postEvent(hook.url, { n: 2 });
    expect(ingest.status).toBe(404);
    expect(await ingest.text()).toBe('');

    const read = await get(key, hook.id);
    expect(read).toMatchObject({ id: hook.id, enabled: false, url: hook.url });
    expect(Date.parse(read.updated_at)).toBeGreaterThan(Date.parse(hook.updated_at));
    expect(await listIds(key, {})).toEqual([hook.id]);
    const events = await list(key, eventsPath(hook.id));
    expect(idsOf(events)).toEqual([eventId]);
    expect(events.data[0].payload).toEqual({ n: 1, __fault: 'send' });
  });

  it('is idempotent, and a PUT of enabled: true opens the URL again', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    expect((await call(`${PATH}/${hook.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(`${PATH}/${hook.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await postEvent(hook.url, {})).status).toBe(404);
    const res = await put(key, hook.id, { enabled: true });
    expect((await json(res)).data.enabled).toBe(true);
    expect((await postEvent(hook.url, { __fault: 'send' })).status).toBe(204);
    expect(await eventIds(key, hook.id)).toHaveLength(1);
  });

  it('also closes a webhook created disabled, or disabled by PUT', async () => {
    const { key } = await newAccount();
    const created = await newWebhook(key, { enabled: false });
    expect(created.enabled).toBe(false);
    expect((await postEvent(created.url, {})).status).toBe(404);
    const hook = await newWebhook(key);
    expect((await json(await put(key, hook.id, { enabled: false }))).data.enabled).toBe(false);
    expect((await postEvent(hook.url, {})).status).toBe(404);
  });
});

describe('inbound webhooks: rotate-token', () => {
  it('without a grace_period, gives a new URL at once: the old one answers 404, the new one takes events', async () => {
    const { key } = await newAccount();
    const hook = shown(await newWebhook(key, { fields: [{ key: 'a', type: 'number' }] }));
    await pendingEvent(hook.url, { a: 1 });

    const res = await call(`${PATH}/${hook.id}/rotate-token`, { method: 'POST', key });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.url).toMatch(URL_PATTERN);
    expect(data.url).not.toBe(hook.url);
    expect(data).toEqual({ ...hook, url: data.url, updated_at: expect.stringMatching(ISO_MS) });
    expect(Date.parse(data.updated_at)).toBeGreaterThan(Date.parse(hook.updated_at));
    expect(await get(key, hook.id)).toEqual(data);

    const old = await postEvent(hook.url, { a: 2 });
    expect(old.status).toBe(404);
    expect(await old.text()).toBe('');
    expect((await postEvent(data.url, { a: 3, __fault: 'send' })).status).toBe(204);
    const payloads = (await list(key, eventsPath(hook.id))).data.map((e: Json) => e.payload.a);
    expect(payloads).toEqual([3, 1]);

    const again = await json(await call(`${PATH}/${hook.id}/rotate-token`, { method: 'POST', key }));
    expect(again.data.url).not.toBe(data.url);
    expect((await postEvent(data.url, { a: 4 })).status).toBe(404);
  });

  it('keeps a disabled webhook disabled', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { enabled: false });
    const { data } = await json(await call(`${PATH}/${hook.id}/rotate-token`, { method: 'POST', key }));
    expect(data.enabled).toBe(false);
    expect((await postEvent(data.url, {})).status).toBe(404);
  });
});

describe('inbound webhooks: list', () => {
  it('lists the account’s webhooks newest first, with pagination', async () => {
    const { key } = await newAccount();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newWebhook(key, { name: `H${i}` })).id);
    const all = await list(key, PATH);
    expect(idsOf(all)).toEqual([...ids].reverse());
    expect(all.meta).toEqual({ limit: 25, next_cursor: null });
    expect(all.data[0]).toEqual(await get(key, ids[4] as number));

    const { page, next } = await pageWithNext(key, `${PATH}?limit=2`);
    expect(idsOf(page)).toEqual([ids[4], ids[3]]);
    expect(idsOf(await list(key, `${next.pathname}${next.search}`))).toEqual([ids[2], ids[1]]);
    expect(await allIds(key, `${PATH}?limit=2`)).toEqual([...ids].reverse());
    expect(await allIds(key, `${PATH}?sort=created_at&limit=3`)).toEqual(ids);
  });

  it('refuses a bad query with 400', async () => {
    const { key } = await newAccount();
    for (const query of ['limit=0', 'limit=101', 'sort=name', 'enabled=true', 'cursor=nope']) {
      const res = await call(`${PATH}?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    }
  });
});

describe('inbound webhooks: tenant isolation', () => {
  it("never lists, reads, changes, disables or rotates another account's webhook", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const hookA = shown(await newWebhook(a.key, { name: 'A hook', mode: 'test' }));
    const hookB = await newWebhook(b.key, { name: 'B hook' });
    expect((await postEvent(hookA.url, { secret_data: 'a' })).status).toBe(204);

    expect(await listIds(b.key, {})).toEqual([hookB.id]);
    const paths = [`${PATH}/${hookA.id}`, eventsPath(hookA.id), `${PATH}/${hookA.id}/sample-fields`];
    for (const path of paths) await expectProblem(await call(path, { key: b.key }), 404, 'not_found');
    await expectProblem(await put(b.key, hookA.id, { name: 'Hijacked', enabled: false }), 404, 'not_found');
    await expectProblem(
      await call(`${PATH}/${hookA.id}`, { method: 'DELETE', key: b.key }),
      404,
      'not_found',
    );
    const rotate = await call(`${PATH}/${hookA.id}/rotate-token`, { method: 'POST', key: b.key });
    const problem = await expectProblem(rotate, 404, 'not_found');
    expect(JSON.stringify(problem)).not.toContain('whk_');

    expect(await get(a.key, hookA.id)).toEqual(hookA);
    expect((await postEvent(hookA.url, { still: 'open' })).status).toBe(204);
    expect(await eventIds(a.key, hookA.id)).toHaveLength(2);
  });
});

describe('inbound webhooks: round trips', () => {
  it('reads in one round trip, writes in two, and disables or rotates in one', async () => {
    const { key } = await newAccount();
    const u1 = await newUser(key, 'Ana');
    const u2 = await newUser(key, 'Bia');
    const created = await post(key, {
      name: 'Trips',
      mode: 'test',
      fields: FULL_FIELDS,
      flows: fullFlows(u1.id, u2.id),
    });
    expect(created.status).toBe(201);
    expect(roundTrips(created)).toBe(2);
    const hook = (await json(created)).data;
    expect((await postEvent(hook.url, { nome: 'Ana', lead: { phone: '11987654321' } })).status).toBe(204);

    for (const path of [
      `${PATH}/${hook.id}`,
      PATH,
      eventsPath(hook.id),
      `${PATH}/${hook.id}/sample-fields`,
    ]) {
      const res = await call(path, { key });
      expect(res.status, path).toBe(200);
      expect(roundTrips(res), path).toBe(1);
    }
    for (const body of [{ name: 'Renamed' }, { flows: fullFlows(u2.id, u1.id) }, { fields: FULL_FIELDS }]) {
      const res = await put(key, hook.id, body);
      expect(res.status).toBe(200);
      expect(roundTrips(res)).toBe(2);
    }
    const rotated = await call(`${PATH}/${hook.id}/rotate-token`, { method: 'POST', key });
    expect(rotated.status).toBe(200);
    expect(roundTrips(rotated)).toBe(1);
    const disabled = await call(`${PATH}/${hook.id}`, { method: 'DELETE', key });
    expect(disabled.status).toBe(204);
    expect(roundTrips(disabled)).toBe(1);
  });
});
