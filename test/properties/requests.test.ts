import { env, exports } from 'cloudflare:workers';
import fc, { type Arbitrary } from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  adminHeaders,
  BASE,
  call,
  create,
  d1Of,
  d1OfRow,
  json,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';
import {
  anyCnpj,
  EDGE_IDS,
  EVENT_FIELDS,
  email,
  encodeQuery,
  event,
  eventKeyHints,
  flowsFor,
  fromSchema,
  goodCnpj,
  type Hints,
  headerText,
  idText,
  jsonText,
  junk,
  KIND_OF_SEGMENT,
  mutated,
  nastyText,
  phone,
  plainText,
  queryValues,
  refHints,
  segmentBefore,
} from './arbitraries';
import { contract, type Operation, type Snapshot, settings, snapshot, TIMEOUT } from './checks';

const api = await contract();

/** Rows of the account under test, and of another account whose ids the requests also name. */
type World = {
  key: string;
  accounts: number[];
  /** Arbitraries by field name: clean ones name the account's own rows. */
  hints: (dirty: boolean) => Hints;
  /** Any id: the account's, the other account's, or a missing one. */
  ids: Arbitrary<number>;
  /** The account's ids of each path segment that a path id follows (`users`, `events`, ...). */
  pathIds: Record<string, number[]>;
  event: Arbitrary<unknown>;
};

let world: World;

async function populate(key: string, tag: string) {
  const users = [];
  for (const name of ['Ana', 'Bia', 'Caio']) {
    users.push((await create(key, '/v1/users', { name, email: `${name}.${tag}@example.com` })).id as number);
  }
  const company = await create(key, '/v1/companies', {
    name: 'Co',
    cnpj: '11.222.333/0001-81',
    follower_ids: users,
  });
  const companies = [company.id as number];
  const contact = await create(key, '/v1/contacts', {
    name: 'Rui',
    company_id: companies[0],
    owner_id: users[0],
  });
  const deal = await create(key, '/v1/deals', {
    name: 'Deal',
    company_id: companies[0],
    contact_id: contact.id,
  });
  const task = await create(key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Call',
    category: 'Ligação',
    owner_id: users[1],
  });
  const hook = await newWebhook(key, {
    fields: EVENT_FIELDS,
    flows: flowsFor(users[0], users),
  });
  const signed = await newWebhook(key, { name: 'Signed', secret: 'a-secret-of-some-length' });
  const testing = await newWebhook(key, { name: 'Test mode', mode: 'test' });
  for (const path of [hook.path, testing.path]) {
    // `__fault: send` keeps events pending: no Queue consumer changes D1 behind a later comparison.
    const res = await postEvent(path, { email: `x.${tag}@example.com`, nome: 'X', __fault: 'send' });
    expect(res.status).toBe(204);
  }
  const events = await d1OfRow('inbound_webhooks', hook.id)
    .prepare('select id from inbound_events where webhook_id in (?, ?)')
    .bind(hook.id, testing.id)
    .all<{ id: number }>();
  return {
    events: events.results.map((e) => e.id),
    users,
    companies,
    contacts: [contact.id as number],
    deals: [deal.id as number],
    tasks: [task.id as number],
    webhooks: [hook.id as number, signed.id as number, testing.id as number],
  };
}

/** The account's own ids of a kind; dirty: also the other account's, an edge, or null. */
const refs = (own: number[], foreign: number[], dirty: boolean): Arbitrary<unknown> =>
  dirty
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...own) },
        fc.constantFrom(...foreign),
        fc.constantFrom(...EDGE_IDS),
        fc.constant(null),
      )
    : fc.constantFrom(...own);

beforeAll(async () => {
  // Keys to revoke: DELETE /admin/api-keys/{id} is given small ids, and these come first.
  const spare = await newAccount('Spare');
  const spareKeys = [spare.keyId];
  for (let i = 0; i < 3; i++) {
    const res = await call(`/admin/accounts/${spare.id}/api-keys`, {
      method: 'POST',
      headers: adminHeaders(),
    });
    spareKeys.push((await json(res)).data.id);
  }
  const other = await newAccount('Other');
  const theirs = await populate(other.key, 'b');
  const mine = await newAccount('Mine');
  const ours = await populate(mine.key, 'a');
  const maxId = Math.max(...Object.values(ours).flat(), ...Object.values(theirs).flat());
  const hints = (dirty: boolean): Hints => {
    const text = (valid: Arbitrary<string>) =>
      dirty ? fc.oneof({ weight: 3, arbitrary: valid }, nastyText) : valid;
    return {
      ...refHints((kind) => refs(ours[kind], theirs[kind], dirty)),
      cnpj: dirty ? fc.oneof(goodCnpj, anyCnpj) : goodCnpj,
      email: text(email),
      phone: text(phone),
      ...eventKeyHints,
    };
  };
  world = {
    key: mine.key,
    accounts: [spare.id, other.id, mine.id],
    ids: fc.integer({ min: 1, max: maxId + 2 }),
    pathIds: {
      ...Object.fromEntries(Object.entries(KIND_OF_SEGMENT).map(([segment, kind]) => [segment, ours[kind]])),
      accounts: [spare.id, other.id, mine.id],
      'api-keys': spareKeys,
    },
    hints,
    event,
  };
});

const HUGE = `{"name":"${'a'.repeat(1024 * 1024)}"}`;

/** Bodies that are not a JSON object, or not JSON, or too big, or not UTF-8. */
const rawBody: Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"name":',
    '[]',
    '"x"',
    'null',
    '{"name":"a",}',
    "{'name':'a'}",
    '\ufeff{}',
    '{"a":1}{"b":2}',
    `${'['.repeat(40)}${']'.repeat(40)}`,
    `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    HUGE,
  ),
  fc.constantFrom(
    new Uint8Array([0xff, 0xfe, 0x00]),
    new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]),
    new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  ),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/problem+json',
  'Application/JSON',
  'application/json;charset',
  'application/jsonx',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
];

type PathValue = string | { token: number };

type Draft = {
  params: Record<string, PathValue>;
  query: string;
  headers: Record<string, string | null>;
  body: unknown;
  raw?: string | Uint8Array;
};

const credential = (value: string): Arbitrary<string | null> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${value}`) },
    fc.constant(null),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      `bearer ${value}`,
      `Bearer ${value}x`,
      `Bearer crm_${'A'.repeat(43)}`,
      'Basic YTpi',
    ),
    headerText.map((text) => `Bearer ${text}`),
  );

/** A path segment: never empty, `.` or `..`, which would address another route. */
const pathText = fc.oneof(idText, nastyText).filter((v) => v !== '' && v !== '.' && v !== '..');

/**
 * Requests for `operation`: clean ones (the account's key, valid query values, a body generated from
 * the request schema), and dirty ones with junk in any part.
 */
function draftFor(operation: Operation): Arbitrary<Draft> {
  const pathParams = api.parameters(operation, 'path');
  const pathValue = (name: string): Arbitrary<PathValue> => {
    // Mostly the first webhook's: the one whose fields an event is generated for.
    if (name === 'token') return fc.oneof(fc.constant(0), fc.nat()).map((token) => ({ token }));
    const own = world.pathIds[segmentBefore(operation.path, name)];
    return (own ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...own) }, world.ids) : world.ids).map(
      String,
    );
  };
  const params = (dirty: boolean) =>
    fc.record(
      Object.fromEntries(
        pathParams.map((p) => [p.name, dirty ? fc.oneof(pathValue(p.name), pathText) : pathValue(p.name)]),
      ) as Record<string, Arbitrary<PathValue>>,
    );

  const queryParams = api
    .parameters(operation, 'query')
    .map((p) => ({ name: p.name as string, ...queryValues(api, p, world.ids) }));
  const query = (dirty: boolean) => {
    const values = fc.record(
      Object.fromEntries(queryParams.map((p) => [p.name, dirty ? p.any : p.valid])) as Record<
        string,
        Arbitrary<string | undefined>
      >,
      { requiredKeys: [] },
    );
    const extra = dirty
      ? fc.option(
          fc.oneof(
            fc.tuple(plainText(1, 8), nastyText).map(([k, v]) => `${encodeQuery(k)}=${encodeQuery(v)}`),
            fc.constantFrom(
              'limit=1&limit=2',
              '%',
              '%zz',
              '&&',
              '=x',
              'a%00=1',
              '%ED%A0%80=1',
              'sort',
              'cursor=',
            ),
          ),
          { freq: 2 },
        )
      : fc.constant(null);
    return fc
      .tuple(values, extra)
      .map(([given, more]) =>
        [
          ...Object.entries(given).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${encodeQuery(v)}`])),
          ...(more ? [more] : []),
        ].join('&'),
      );
  };

  const headerParams = api.parameters(operation, 'header').filter((p) => p.name !== 'X-D1-Bookmark');
  const token = operation.path.startsWith('/admin/')
    ? env.ADMIN_TOKEN
    : operation.path.startsWith('/v1/')
      ? world.key
      : undefined;
  const headers = (dirty: boolean) =>
    fc.record({
      Authorization:
        token === undefined
          ? fc.option(headerText)
          : dirty
            ? credential(token)
            : fc.constant(`Bearer ${token}`),
      'X-D1-Bookmark': dirty
        ? fc.option(
            fc.oneof(
              headerText,
              fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/),
              fc.constantFrom(
                `00000000-00000000-00000000-${'0'.repeat(32)}`,
                `ffffffff-ffffffff-ffffffff-${'f'.repeat(64)}`,
              ),
            ),
          )
        : fc.constant(null),
      'X-Request-Id': dirty ? fc.option(headerText) : fc.constant(null),
      'Content-Type': dirty ? fc.constantFrom(...CONTENT_TYPES) : fc.constant('application/json'),
      ...Object.fromEntries(
        headerParams.map((p) => [
          p.name,
          dirty
            ? fc.option(
                fc.oneof(
                  headerText,
                  fc.constant(String(Math.floor(Date.now() / 1000))),
                  fc.constant(`sha256=${'0'.repeat(64)}`),
                ),
              )
            : fc.option(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 })),
        ]),
      ),
    });

  const schema = api.requestSchema(operation);
  const none = fc.constant({ body: undefined });
  let body: (dirty: boolean) => Arbitrary<{ body: unknown; raw?: string | Uint8Array }>;
  if (schema) {
    const valid = (dirty: boolean) =>
      operation.path.startsWith('/hooks/') ? world.event : fromSchema(api, schema, world.hints(dirty));
    body = (dirty) =>
      dirty
        ? fc.oneof(
            { weight: 2, arbitrary: valid(true).map((b) => ({ body: b })) },
            { weight: 3, arbitrary: mutated(api, schema, valid(true)).map((b) => ({ body: b })) },
            junk.map((b) => ({ body: b })),
            rawBody.map((raw) => ({ body: undefined, raw })),
          )
        : valid(false).map((b) => ({ body: b }));
  } else if (operation.method !== 'get') {
    body = (dirty) =>
      dirty
        ? fc.oneof(
            none,
            junk.map((b) => ({ body: b })),
            rawBody.map((raw) => ({ body: undefined, raw })),
          )
        : none;
  } else {
    body = () => none;
  }
  const draft = (dirty: boolean) =>
    fc
      .record({ params: params(dirty), query: query(dirty), headers: headers(dirty), body: body(dirty) })
      .map(({ body: b, ...rest }) => ({ ...rest, ...b }));
  return fc.oneof(draft(false), draft(true));
}

/** The account's webhook tokens as they are now (rotation changes them). */
async function tokens(): Promise<string[]> {
  const accountId = world.accounts.at(-1) as number;
  const { results } = await d1Of(accountId)
    .prepare('select token from inbound_webhooks where account_id = ? order by id')
    .bind(accountId)
    .all<{ token: string }>();
  return results.map((r) => r.token);
}

async function send(operation: Operation, draft: Draft): Promise<{ res: Response; where: string }> {
  const live = await tokens();
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = draft.params[name] ?? '';
    return typeof value === 'string' ? encodeQuery(value) : (live[value.token % live.length] ?? '');
  });
  const url = `${path}${draft.query ? `?${draft.query}` : ''}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(draft.headers)) if (value !== null) headers.set(name, value);
  let body: string | Uint8Array | undefined = draft.raw;
  if (body === undefined && draft.body !== undefined) {
    const value = draft.body;
    // Ingest hands accepted events to the Queue, whose consumer would change D1 behind a later comparison.
    const quiet =
      operation.path.startsWith('/hooks/') &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
        ? { ...value, __fault: 'send' }
        : value;
    body = jsonText(quiet);
  }
  const method = operation.method.toUpperCase();
  const shown = typeof body === 'string' ? body.slice(0, 300) : body && `bytes ${[...body].join(',')}`;
  const where = `${method} ${url.slice(0, 500)} ${JSON.stringify(draft.headers).slice(0, 300)} ${shown ?? ''}`;
  const res = await exports.default.fetch(new Request(`${BASE}${url}`, { method, headers, body }));
  return { res, where };
}

// Revoking keys and disabling webhooks go last, so that nothing before them loses its key or URL.
const order = (operation: Operation) =>
  operation.method !== 'delete' ? 0 : operation.path.startsWith('/admin/') ? 2 : 1;

describe('every documented operation under generated requests', () => {
  // D1 as the last refusal left it: a refusal changes nothing, so its check is also the next
  // request's "before" (half the snapshots, each a read of every row of the accounts).
  let unchanged: Snapshot | undefined;
  const operations = api.operations().sort((a, b) => order(a) - order(b));

  it('covers every path of the document', () => {
    expect(new Set(operations.map((o) => o.path))).toEqual(new Set(Object.keys(api.doc.paths)));
  });

  for (const operation of operations) {
    it(
      `${operation.method.toUpperCase()} ${operation.path}: a documented status and body, never a 5xx; a refusal changes nothing`,
      async () => {
        await fc.assert(
          fc.asyncProperty(draftFor(operation), async (draft) => {
            const before = unchanged ?? (await snapshot(world.accounts));
            unchanged = undefined;
            const { res, where } = await send(operation, draft);
            await api.expectDocumented(operation, res, where);
            if (res.status >= 400) {
              const after = await snapshot(world.accounts);
              expect(after, where).toEqual(before);
              unchanged = after;
            }
          }),
          settings(25),
        );
      },
      TIMEOUT,
    );
  }
});
