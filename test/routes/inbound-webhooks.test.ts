import { env } from 'cloudflare:workers';
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
  resource,
  roundTrips,
  writable,
} from '../helpers';

const PATH = '/v1/inbound-webhooks';
const { get, listIds, put } = resource(PATH);

const post = (key: string, body: unknown) => call(PATH, { method: 'POST', key, body });

const URL_PATTERN = /^http:\/\/crm\.test\/hooks\/whk_[A-Za-z0-9_-]{43}$/;

const WEBHOOK_KEYS = [
  'created_at',
  'enabled',
  'fields',
  'flows',
  'has_secret',
  'id',
  'mode',
  'name',
  'updated_at',
  'url',
];

const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** The hook as GET shows it: `newWebhook` adds `path`, which the API does not return. */
const shown = ({ path: _path, ...data }: Json): Json => data;

const eventsPath = (id: number, query = '') => `${PATH}/${id}/events${query ? `?${query}` : ''}`;

const eventIds = async (key: string, id: number, query = ''): Promise<number[]> =>
  idsOf(await list(key, eventsPath(id, query)));

/** Posts an event that the fault injection keeps off the queue, so it stays `pending`. */
async function pendingEvent(url: string, body: Record<string, unknown> = {}): Promise<void> {
  const res = await postEvent(url, { ...body, __fault: 'send' });
  expect(res.status).toBe(204);
}

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

  it('refuses the read-only fields on write: url, has_secret, id and the timestamps', async () => {
    const { key } = await newAccount();
    const readOnly = {
      id: 999,
      url: 'https://evil.example/hooks/whk_mine',
      has_secret: true,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    };
    await expectReadOnly(
      await call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'RO', ...readOnly } }),
      Object.keys(readOnly),
      { writes: { url: 'rotate-token', has_secret: 'secret' } },
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

describe('inbound webhooks: configuration rules', () => {
  const deal = { key: 'produto', type: 'string', target: 'deal.name' };
  const phone = { key: 'tel', type: 'phone', target: 'contact.phone' };
  const cases: [string, Json, string[]][] = [
    [
      'an unknown target',
      { fields: [{ key: 'idade', type: 'number', target: 'contact.age' }] },
      ['fields.0.target'],
    ],
    [
      'a target named like a method every object inherits',
      {
        fields: [
          { key: 'a', type: 'string', target: 'valueOf' },
          { key: 'b', type: 'string', target: 'constructor' },
          { key: 'c', type: 'string', target: '__proto__' },
        ],
      },
      ['fields.0.target', 'fields.1.target', 'fields.2.target'],
    ],
    [
      'a custom field target without a name',
      { fields: [{ key: 'x', type: 'string', target: 'contact.custom_fields.' }] },
      ['fields.0.target'],
    ],
    [
      'a custom field target of another record',
      { fields: [{ key: 'x', type: 'string', target: 'company.custom_fields.x' }] },
      ['fields.0.target'],
    ],
    ['an unknown type', { fields: [{ key: 'x', type: 'cpf' }] }, ['fields.0.type']],
    ['a key that is not a dot path', { fields: [{ key: 'lead..phone', type: 'string' }] }, ['fields.0.key']],
    ['a key with a space', { fields: [{ key: 'lead phone', type: 'string' }] }, ['fields.0.key']],
    [
      'contact.phone fed by a string',
      { fields: [{ key: 'tel', type: 'string', target: 'contact.phone' }] },
      ['fields.0.type'],
    ],
    [
      'contact.email fed by a string',
      { fields: [{ key: 'e', type: 'string', target: 'contact.email' }] },
      ['fields.0.type'],
    ],
    [
      'deal.value fed by a string',
      { fields: [{ key: 'v', type: 'string', target: 'deal.value' }] },
      ['fields.0.type'],
    ],
    [
      'contact.name fed by a phone',
      { fields: [{ key: 'n', type: 'phone', target: 'contact.name' }] },
      ['fields.0.type'],
    ],
    ['a duplicate key', { fields: [phone, { key: 'tel', type: 'string' }] }, ['fields.1.key']],
    [
      'two fields for one target',
      { fields: [deal, { key: 'outro', type: 'string', target: 'deal.name' }] },
      ['fields.1.target'],
    ],
    ['an unknown action', { flows: [{ action: 'send_email' }] }, ['flows.0.action']],
    [
      'an unknown action property',
      { fields: [deal], flows: [{ action: 'create_deal', stage: 'won' }] },
      ['flows.0.stage'],
    ],
    [
      'a deal name template with an undeclared key',
      { fields: [deal], flows: [{ action: 'create_deal', name: '{{produto}} {{ cliente }}' }] },
      ['flows.0.name'],
    ],
    [
      'task templates with undeclared keys',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'Ligar {{nome}}', category: '{{tipo}}' },
        ],
      },
      ['flows.1.name', 'flows.1.category'],
    ],
    [
      'a create_task with no create_deal',
      {
        fields: [phone],
        flows: [
          { action: 'upsert_contact', match_on: ['phone'] },
          { action: 'create_task', name: 'T', category: 'C' },
        ],
      },
      ['flows.1.action'],
    ],
    [
      'a create_task before the create_deal',
      {
        fields: [deal],
        flows: [{ action: 'create_task', name: 'T', category: 'C' }, { action: 'create_deal' }],
      },
      ['flows.0.action'],
    ],
    [
      'a due date from a field that is not a date',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'T', category: 'C', due: { from: 'produto' } },
        ],
      },
      ['flows.1.due.from'],
    ],
    [
      'a due date from an undeclared field',
      {
        fields: [deal],
        flows: [
          { action: 'create_deal' },
          { action: 'create_task', name: 'T', category: 'C', due: { from: 'data' } },
        ],
      },
      ['flows.1.due.from'],
    ],
    [
      'a condition on an undeclared field',
      { fields: [deal], flows: [{ action: 'create_deal', when: { field: 'origem', op: 'exists' } }] },
      ['flows.0.when.field'],
    ],
    [
      'an equals with no value',
      { fields: [deal], flows: [{ action: 'create_deal', when: { field: 'produto', op: 'equals' } }] },
      ['flows.0.when.value'],
    ],
    [
      'an unknown operator',
      {
        fields: [deal],
        flows: [{ action: 'create_deal', when: { field: 'produto', op: 'matches', value: 'x' } }],
      },
      ['flows.0.when.op'],
    ],
    [
      'an upsert_contact matching on a field nothing fills',
      { fields: [phone], flows: [{ action: 'upsert_contact', match_on: ['phone', 'email'] }] },
      ['flows.0.match_on.1'],
    ],
    [
      'an upsert_contact matching on something else',
      { fields: [phone], flows: [{ action: 'upsert_contact', match_on: ['name'] }] },
      ['flows.0.match_on.0'],
    ],
    [
      'an upsert_company with no cnpj field',
      { fields: [deal], flows: [{ action: 'upsert_company' }] },
      ['flows.0.action'],
    ],
    [
      'a create_deal with no name at all',
      { fields: [phone], flows: [{ action: 'create_deal' }] },
      ['flows.0.name'],
    ],
    [
      'two create_deal actions',
      { fields: [deal], flows: [{ action: 'create_deal' }, { action: 'create_deal', name: 'Outro' }] },
      ['flows.1.action'],
    ],
    [
      'an owner that is neither a user nor a rotation',
      { fields: [deal], flows: [{ action: 'create_deal', owner: { team: 3 } }] },
      ['flows.0.owner'],
    ],
    [
      'an empty rotation',
      { fields: [deal], flows: [{ action: 'create_deal', owner: { round_robin: [] } }] },
      ['flows.0.owner.round_robin'],
    ],
  ];

  it.each(cases)('refuses %s with 422 pointing at the offending element', async (_name, config, paths) => {
    const { key } = await newAccount();
    const body = await expectProblem(await post(key, { name: 'Bad', ...config }), 422, 'validation_failed');
    expect(body.errors.map((e: Json) => e.path).sort()).toEqual([...paths].sort());
    expect(await listIds(key, {})).toEqual([]);
  });

  it('accepts custom field targets of contact and deal, fields with no target, and received_at as due', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'cor', type: 'string', target: 'contact.custom_fields.cor' },
        { key: 'quando', type: 'date', target: 'contact.custom_fields.quando' },
        { key: 'qtd', type: 'number', target: 'deal.custom_fields.qtd-itens_2' },
        { key: 'titulo', type: 'string' },
      ],
      flows: [
        { action: 'create_deal', name: 'Pedido {{titulo}} {{qtd}}' },
        { action: 'create_task', name: 'T', category: 'C', due: { from: 'received_at', days: -1 } },
        { action: 'create_task', name: 'U', category: 'C', due: { from: 'quando' } },
      ],
    });
    expect(hook.fields).toHaveLength(4);
    expect(hook.flows).toHaveLength(3);
  });

  it("refuses owners that are not users of the account, another account's users included", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const mine = await newUser(a.key, 'Mine');
    const theirs = await newUser(b.key, 'Theirs');
    const body = await expectProblem(
      await post(a.key, {
        name: 'X',
        fields: [{ key: 'produto', type: 'string', target: 'deal.name' }],
        flows: [
          { action: 'create_deal', owner: { user_id: theirs.id } },
          {
            action: 'create_task',
            name: 'T',
            category: 'C',
            owner: { round_robin: [theirs.id, mine.id, 999_999] },
          },
          { action: 'create_task', name: 'U', category: 'C', owner: { user_id: mine.id } },
        ],
      }),
      422,
      'validation_failed',
    );
    expect(body.errors).toEqual([
      expect.objectContaining({ path: 'flows.0.owner.user_id', code: 'not_found' }),
      expect.objectContaining({ path: 'flows.1.owner.round_robin.0', code: 'not_found' }),
      expect.objectContaining({ path: 'flows.1.owner.round_robin.2', code: 'not_found' }),
    ]);
    expect(await listIds(a.key, {})).toEqual([]);
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
    const res = await put(key, hook.id, writable(hook, ['url', 'has_secret']));
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
  it('gives a new URL at once: the old one answers 404, the new one takes events', async () => {
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

describe('inbound webhooks: events', () => {
  it('lists stored events newest first, pending, with their full payload and no result yet', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'n', type: 'number', required: true }] });
    for (let n = 1; n <= 3; n++) await pendingEvent(hook.url, { n, extra: { kept: n } });
    const page = await list(key, eventsPath(hook.id));
    expect(page.data.map((e: Json) => e.payload.n)).toEqual([3, 2, 1]);
    expect(page.data[0]).toEqual({
      id: expect.any(Number),
      webhook_id: hook.id,
      status: 'pending',
      attempts: 0,
      error: null,
      received_at: expect.stringMatching(ISO_MS),
      processed_at: null,
      payload: { n: 3, extra: { kept: 3 }, __fault: 'send' },
      result: null,
      preview: null,
      warnings: [],
      rejection: null,
    });
    const ids = idsOf(page);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(Math.abs(Date.parse(page.data[0].received_at) - Date.now())).toBeLessThan(60_000);
  });

  it('pages with limit and cursor and filters by status', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    for (let n = 0; n < 5; n++) await pendingEvent(hook.url, { n });
    const newestFirst = await eventIds(key, hook.id);
    expect(newestFirst).toHaveLength(5);

    const { page, next } = await pageWithNext(key, eventsPath(hook.id, 'limit=2'));
    expect(idsOf(page)).toEqual(newestFirst.slice(0, 2));
    expect(page.meta).toEqual({ limit: 2, next_cursor: expect.any(String) });
    expect(idsOf(await list(key, `${next.pathname}${next.search}`))).toEqual(newestFirst.slice(2, 4));
    expect(await allIds(key, eventsPath(hook.id, 'limit=2'))).toEqual(newestFirst);
    expect(await allIds(key, eventsPath(hook.id, 'sort=received_at&limit=3'))).toEqual(
      [...newestFirst].reverse(),
    );

    const [a, b] = newestFirst as [number, number];
    await env.DB.prepare("UPDATE inbound_events SET status = 'failed', error = 'boom' WHERE id = ?")
      .bind(a)
      .run();
    await env.DB.prepare("UPDATE inbound_events SET status = 'processed' WHERE id = ?").bind(b).run();
    expect(await eventIds(key, hook.id, 'status=failed')).toEqual([a]);
    expect(await eventIds(key, hook.id, 'status=processed')).toEqual([b]);
    expect(await eventIds(key, hook.id, 'status=pending')).toEqual(newestFirst.slice(2));
    expect(await eventIds(key, hook.id, 'status=test')).toEqual([]);
    expect(await allIds(key, eventsPath(hook.id, 'status=pending&limit=1'))).toEqual(newestFirst.slice(2));
    const failed = (await list(key, eventsPath(hook.id, 'status=failed'))).data[0];
    expect(failed).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it('lists only the events of that webhook, and refuses a bad query with 400', async () => {
    const { key } = await newAccount();
    const one = await newWebhook(key, { name: 'One' });
    const two = await newWebhook(key, { name: 'Two' });
    await pendingEvent(one.url, { to: 1 });
    await pendingEvent(two.url, { to: 2 });
    expect((await list(key, eventsPath(one.id))).data.map((e: Json) => e.payload.to)).toEqual([1]);
    expect((await list(key, eventsPath(two.id))).data.map((e: Json) => e.payload.to)).toEqual([2]);
    expect((await list(key, eventsPath((await newWebhook(key)).id))).data).toEqual([]);
    for (const query of ['status=done', 'limit=0', 'sort=created_at', 'cursor=xyz', 'mode=test']) {
      const res = await call(eventsPath(one.id, query), { key });
      expect(res.status, query).toBe(400);
    }
  });
});

describe('inbound webhooks: sample-fields', () => {
  it('lists the dot paths of the latest test events with the newest example and a guessed type', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test' });
    const older = {
      nome: 'Old name',
      only_old: 'x',
      lead: { phone: '(11) 98765-4321' },
    };
    const newer = {
      nome: 'Ana',
      idade: 31,
      vip: true,
      nada: null,
      lead: { phone: '+55 11 91234-5678', email: 'ana@example.com', utm: { source: 'google' } },
      data: '2024-3-5',
      quando: '2024-03-05T10:00:00.000Z',
      answers: [{ text: 'sim' }, { text: 'não', score: 2.5 }],
      tags: ['a', 'b'],
      vazio: {},
    };
    expect((await postEvent(hook.url, older)).status).toBe(204);
    expect((await postEvent(hook.url, newer)).status).toBe(204);

    const res = await call(`${PATH}/${hook.id}/sample-fields`, { key });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    const byKey = Object.fromEntries(data.map((f: Json) => [f.key, f]));
    expect(byKey).toEqual({
      nome: { key: 'nome', example: 'Ana', type: 'string' },
      idade: { key: 'idade', example: 31, type: 'number' },
      vip: { key: 'vip', example: true, type: 'boolean' },
      nada: { key: 'nada', example: null, type: 'string' },
      'lead.phone': { key: 'lead.phone', example: '+55 11 91234-5678', type: 'phone' },
      'lead.email': { key: 'lead.email', example: 'ana@example.com', type: 'email' },
      'lead.utm.source': { key: 'lead.utm.source', example: 'google', type: 'string' },
      data: { key: 'data', example: '2024-3-5', type: 'date' },
      quando: { key: 'quando', example: '2024-03-05T10:00:00.000Z', type: 'date' },
      'answers.0.text': { key: 'answers.0.text', example: 'sim', type: 'string' },
      'answers.1.text': { key: 'answers.1.text', example: 'não', type: 'string' },
      'answers.1.score': { key: 'answers.1.score', example: 2.5, type: 'number' },
      'tags.0': { key: 'tags.0', example: 'a', type: 'string' },
      'tags.1': { key: 'tags.1', example: 'b', type: 'string' },
      only_old: { key: 'only_old', example: 'x', type: 'string' },
    });
    expect(data).toHaveLength(Object.keys(byKey).length);
    // The newest event's keys come first.
    expect(data.at(-1).key).toBe('only_old');
  });

  it('leaves out production events, is empty without test events, and survives a later switch of mode', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    await pendingEvent(hook.url, { prod_only: 'p' });
    const empty = await json(await call(`${PATH}/${hook.id}/sample-fields`, { key }));
    expect(empty).toEqual({ data: [] });

    await put(key, hook.id, { mode: 'test' });
    expect((await postEvent(hook.url, { test_key: 1 })).status).toBe(204);
    await put(key, hook.id, { mode: 'production' });
    await pendingEvent(hook.url, { later_prod: true });
    const { data } = await json(await call(`${PATH}/${hook.id}/sample-fields`, { key }));
    expect(data).toEqual([{ key: 'test_key', example: 1, type: 'number' }]);
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
