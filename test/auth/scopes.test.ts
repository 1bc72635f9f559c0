import { describe, expect, it } from 'vitest';
import apiDocs from '../../docs/api.md?raw';
import { CONCRETE_SCOPES } from '../../src/core/scopes';
import { withCheckDigits } from '../cnpj';
import {
  call,
  create,
  d1Of,
  d1OfRow,
  expectProblem,
  failNewestEvent,
  type Json,
  json,
  keyWith,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';

type Account = { id: number; key: string };
type Req = {
  method: string;
  path: string;
  body?: unknown;
  status: number;
  /** For an operation whose scope the document cannot state (an import's: its resource's, by mode). */
  scopes?: string[];
  type?: string;
};

let serial = 0;
const next = () => ++serial;

/** A key of `account` with `scopes`, made through the admin API. */

const user = (a: Account) => create(a.key, '/v1/users', { name: 'Ana', email: `ana${next()}@example.com` });
const company = (a: Account) =>
  create(a.key, '/v1/companies', {
    name: 'Gama',
    cnpj: withCheckDigits(`${String(next()).padStart(8, '0')}0001`),
  });
const contact = (a: Account) => create(a.key, '/v1/contacts', { name: 'Bruno' });
const deal = (a: Account) => create(a.key, '/v1/deals', { name: 'Onix' });
const task = async (a: Account) =>
  create(a.key, '/v1/tasks', { deal_id: (await deal(a)).id, name: 'Call', category: 'Ligação' });
const webhook = (a: Account) => newWebhook(a.key, { name: `Site ${next()}` });
const endpointBody = () => ({ url: `https://hooks.example.com/${next()}`, event_types: ['*'] });
const endpoint = (a: Account) => create(a.key, '/v1/webhook-endpoints', endpointBody());

const trashed = async (a: Account, resource: string, make: (a: Account) => Promise<Json>) => {
  const row = await make(a);
  expect((await call(`/v1/${resource}/${row.id}`, { method: 'DELETE', key: a.key })).status).toBe(204);
  return row;
};

/** A failed event of a new webhook, for replay. */
// One webhook per account for the event operations: the walk makes each operation five times, and
// an account holds at most 50 webhooks.
const eventHooks = new Map<number, ReturnType<typeof webhook>>();

async function failedEvent(a: Account): Promise<{ hook: number; event: number }> {
  if (!eventHooks.has(a.id)) eventHooks.set(a.id, webhook(a));
  const hook = await (eventHooks.get(a.id) as ReturnType<typeof webhook>);
  expect((await postEvent(hook.path, { nome: 'Ana' })).status).toBe(204);
  return { hook: hook.id, event: await failNewestEvent(hook.id) };
}

const crud = (
  resource: string,
  make: (a: Account) => Promise<Json>,
  post: (a: Account) => Json,
  update: Json = { name: 'Renamed' },
) => ({
  [`GET /v1/${resource}`]: async (): Promise<Req> => ({
    method: 'GET',
    path: `/v1/${resource}`,
    status: 200,
  }),
  [`GET /v1/${resource}/{id}`]: async (a: Account): Promise<Req> => ({
    method: 'GET',
    path: `/v1/${resource}/${(await make(a)).id}`,
    status: 200,
  }),
  [`POST /v1/${resource}`]: async (a: Account): Promise<Req> => ({
    method: 'POST',
    path: `/v1/${resource}`,
    body: await post(a),
    status: 201,
  }),
  [`PUT /v1/${resource}/{id}`]: async (a: Account): Promise<Req> => ({
    method: 'PUT',
    path: `/v1/${resource}/${(await make(a)).id}`,
    body: update,
    status: 200,
  }),
});

/** A batch that creates one record: it needs `<resource>:insert` (an update or upsert needs more). */
const batched = (resource: string, post: (a: Account) => Json) => ({
  [`GET /v1/${resource}/export`]: async (): Promise<Req> => ({
    method: 'GET',
    path: `/v1/${resource}/export`,
    status: 200,
  }),
  [`POST /v1/${resource}/batch`]: async (a: Account): Promise<Req> => ({
    method: 'POST',
    path: `/v1/${resource}/batch`,
    body: { items: [{ op: 'create', data: await post(a) }] },
    status: 200,
  }),
});

const trash = (resource: string, make: (a: Account) => Promise<Json>) => ({
  [`DELETE /v1/${resource}/{id}`]: async (a: Account): Promise<Req> => ({
    method: 'DELETE',
    path: `/v1/${resource}/${(await make(a)).id}`,
    status: 204,
  }),
  [`POST /v1/${resource}/{id}/restore`]: async (a: Account): Promise<Req> => ({
    method: 'POST',
    path: `/v1/${resource}/${(await trashed(a, resource, make)).id}/restore`,
    status: 200,
  }),
});

/** How to make a request to every `/v1` operation that succeeds with a key allowed to. */
const operations: Record<string, (a: Account) => Promise<Req>> = {
  ...crud('users', user, () => ({ name: 'Caio', email: `caio${next()}@example.com` })),
  ...batched('users', () => ({ name: 'Caio', email: `caio${next()}@example.com` })),
  ...trash('users', user),
  ...crud('companies', company, () => ({
    name: 'Delta',
    cnpj: withCheckDigits(`${String(next()).padStart(8, '0')}0002`),
  })),
  ...batched('companies', () => ({
    name: 'Delta',
    cnpj: withCheckDigits(`${String(next()).padStart(8, '0')}0003`),
  })),
  ...trash('companies', company),
  ...crud('contacts', contact, () => ({ name: 'Duda' })),
  ...batched('contacts', () => ({ name: 'Duda' })),
  ...trash('contacts', contact),
  ...crud('deals', deal, () => ({ name: 'Cruze' })),
  ...batched('deals', () => ({ name: 'Cruze' })),
  ...trash('deals', deal),
  ...crud('tasks', task, async (a) => ({ deal_id: (await deal(a)).id, name: 'Visit', category: 'Visita' })),
  ...batched('tasks', async (a) => ({ deal_id: (await deal(a)).id, name: 'Visit', category: 'Visita' })),
  ...trash('tasks', task),
  'GET /v1/task-categories': async () => ({ method: 'GET', path: '/v1/task-categories', status: 200 }),
  ...crud('webhook-endpoints', endpoint, endpointBody, { description: 'ERP' }),
  ...trash('webhook-endpoints', endpoint),
  'POST /v1/webhook-endpoints/{id}/rotate-secret': async (a) => ({
    method: 'POST',
    path: `/v1/webhook-endpoints/${(await endpoint(a)).id}/rotate-secret`,
    body: {},
    status: 200,
  }),
  'GET /v1/webhook-endpoints/{id}/deliveries': async (a) => ({
    method: 'GET',
    path: `/v1/webhook-endpoints/${(await endpoint(a)).id}/deliveries`,
    status: 200,
  }),
  'POST /v1/webhook-endpoints/{id}/test': async (a) => ({
    method: 'POST',
    path: `/v1/webhook-endpoints/${(await endpoint(a)).id}/test`,
    status: 200,
  }),
  'POST /v1/webhook-endpoints/{id}/recover': async (a) => ({
    method: 'POST',
    path: `/v1/webhook-endpoints/${(await endpoint(a)).id}/recover`,
    body: { since: '2026-01-01T00:00:00Z' },
    status: 200,
  }),
  'POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend': async (a) => {
    const made = await endpoint(a);
    const ping = await call(`/v1/webhook-endpoints/${made.id}/test`, { method: 'POST', key: a.key });
    const { data } = await json(ping);
    return {
      method: 'POST',
      path: `/v1/webhook-endpoints/${made.id}/deliveries/${data.id}/resend`,
      status: 202,
    };
  },
  ...crud('inbound-webhooks', webhook, () => ({ name: `Hook ${next()}` })),
  'DELETE /v1/inbound-webhooks/{id}': async (a) => ({
    method: 'DELETE',
    path: `/v1/inbound-webhooks/${(await webhook(a)).id}`,
    status: 204,
  }),
  'POST /v1/inbound-webhooks/{id}/rotate-token': async (a) => ({
    method: 'POST',
    path: `/v1/inbound-webhooks/${(await webhook(a)).id}/rotate-token`,
    status: 200,
  }),
  'GET /v1/inbound-webhooks/{id}/sample-fields': async (a) => ({
    method: 'GET',
    path: `/v1/inbound-webhooks/${(await webhook(a)).id}/sample-fields`,
    status: 200,
  }),
  'GET /v1/inbound-webhooks/{id}/events': async (a) => ({
    method: 'GET',
    path: `/v1/inbound-webhooks/${(await webhook(a)).id}/events`,
    status: 200,
  }),
  'GET /v1/inbound-webhooks/{id}/events/{event_id}': async (a) => {
    const { hook, event } = await failedEvent(a);
    return { method: 'GET', path: `/v1/inbound-webhooks/${hook}/events/${event}`, status: 200 };
  },
  'POST /v1/inbound-webhooks/{id}/events/{event_id}/replay': async (a) => {
    const { hook, event } = await failedEvent(a);
    return { method: 'POST', path: `/v1/inbound-webhooks/${hook}/events/${event}/replay`, status: 202 };
  },
  'POST /v1/inbound-webhooks/{id}/events/{event_id}/process': async (a) => {
    const { hook, event } = await failedEvent(a);
    await d1OfRow('inbound_events', event)
      .prepare("UPDATE inbound_events SET status = 'test', mode = 'test', error = null WHERE id = ?")
      .bind(event)
      .run();
    return { method: 'POST', path: `/v1/inbound-webhooks/${hook}/events/${event}/process`, status: 202 };
  },
  'DELETE /v1/inbound-webhooks/{id}/events': async (a) => {
    const { hook } = await failedEvent(a);
    return {
      method: 'DELETE',
      path: `/v1/inbound-webhooks/${hook}/events?received_at__lt=2100-01-01`,
      status: 200,
    };
  },
  'POST /v1/inbound-webhooks/{id}/recover': async (a) => {
    const { hook } = await failedEvent(a);
    return { method: 'POST', path: `/v1/inbound-webhooks/${hook}/recover`, status: 200 };
  },
  'GET /v1/api-keys': async () => ({ method: 'GET', path: '/v1/api-keys', status: 200 }),
  'GET /v1/api-keys/{id}': async (a) => ({
    method: 'GET',
    path: `/v1/api-keys/${await keyIdOf(a, ['deals:read'])}`,
    status: 200,
  }),
  // The new key asks for no more than any key allowed to create keys holds.
  'POST /v1/api-keys': async () => ({
    method: 'POST',
    path: '/v1/api-keys',
    body: { name: 'Child', scopes: ['api_keys:insert'] },
    status: 201,
  }),
  // A key revokes only a key its scopes cover: one no wider than any key allowed to revoke.
  'DELETE /v1/api-keys/{id}': async (a) => ({
    method: 'DELETE',
    path: `/v1/api-keys/${await keyIdOf(a, ['api_keys:delete'])}`,
    status: 204,
  }),
  'GET /v1/me': async () => ({ method: 'GET', path: '/v1/me', status: 200 }),
  'GET /v1/usage': async () => ({ method: 'GET', path: '/v1/usage', status: 200 }),
  'GET /v1/events': async () => ({ method: 'GET', path: '/v1/events', status: 200 }),
  ...Object.fromEntries(
    (
      [
        ['users', user],
        ['companies', company],
        ['contacts', contact],
        ['deals', deal],
        ['tasks', task],
      ] as const
    ).map(([resource, make]) => [
      `GET /v1/${resource}/{id}/history`,
      async (a: Account): Promise<Req> => ({
        method: 'GET',
        path: `/v1/${resource}/${(await make(a)).id}/history`,
        status: 200,
      }),
    ]),
  ),
  'POST /v1/imports': async () => importReq(),
  // Any valid key: it lists the imports whose resource's scopes it holds (docs/api.md).
  'GET /v1/imports': async () => ({ method: 'GET', path: '/v1/imports', status: 200 }),
  'GET /v1/imports/{id}': async (a: Account): Promise<Req> => ({
    method: 'GET',
    path: `/v1/imports/${await started(a)}`,
    status: 200,
    scopes: IMPORT_SCOPES,
  }),
  'GET /v1/imports/{id}/errors.csv': async (a: Account): Promise<Req> => ({
    method: 'GET',
    path: `/v1/imports/${await started(a)}/errors.csv`,
    status: 200,
    scopes: IMPORT_SCOPES,
  }),
  'POST /v1/imports/{id}/cancel': async (a: Account): Promise<Req> => ({
    method: 'POST',
    path: `/v1/imports/${await started(a)}/cancel`,
    status: 200,
    scopes: IMPORT_SCOPES,
  }),
  'GET /v1/account': async () => ({ method: 'GET', path: '/v1/account', status: 200 }),
  'PUT /v1/account': async () => ({
    method: 'PUT',
    path: '/v1/account',
    body: { time_zone: 'America/Manaus' },
    status: 200,
  }),
};

async function keyIdOf(a: Account, scopes: string[]): Promise<number> {
  const key = await keyWith(a.id, scopes);
  return (await json(await call('/v1/me', { key }))).data.api_key.id;
}

/** The scope the document states for each `/v1` operation, by `METHOD /path`. */
async function documentedScopes(): Promise<Map<string, string | null>> {
  const doc = await json(await call('/openapi.json'));
  const scopes = new Map<string, string | null>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    if (!path.startsWith('/v1')) continue;
    for (const [method, op] of Object.entries<Json>(item)) {
      const [requirement] = op.security;
      expect(Object.keys(requirement), `${method} ${path}`).toEqual(['bearerAuth']);
      scopes.set(`${method.toUpperCase()} ${path}`, requirement.bearerAuth[0] ?? null);
    }
  }
  return scopes;
}

/** Everything the account holds, but the last-used minute (a read sets it after its answer). */
async function snapshot(accountId: number): Promise<string> {
  const d1 = d1Of(accountId);
  const tables = await d1
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%account_id%' AND name NOT LIKE '%fts%' ORDER BY name",
    )
    .all<{ name: string }>();
  const dump: Record<string, unknown> = {};
  for (const { name } of tables.results) {
    const rows = await d1
      .prepare(`SELECT * FROM ${name} WHERE account_id = ? ORDER BY rowid`)
      .bind(accountId)
      .all<Record<string, unknown>>();
    dump[name] = rows.results.map(({ last_used_at: _, ...row }) => row);
  }
  return JSON.stringify(dump);
}

const ALL_CONCRETE = CONCRETE_SCOPES;

async function send(req: Req, key: string): Promise<Response> {
  return call(req.path, {
    method: req.method,
    key,
    ...(req.body !== undefined && { body: req.body }),
    ...(req.type && { headers: { 'Content-Type': req.type } }),
  });
}

/** A CSV import of one deal, as the request that starts it and as a started import's id. */
const IMPORT_SCOPES = ['deals:insert', 'deals:update'];
const importReq = (): Req => ({
  method: 'POST',
  path: '/v1/imports?resource=deals',
  body: `name\r\nImported ${next()}\r\n`,
  type: 'text/csv',
  status: 202,
  scopes: IMPORT_SCOPES,
});
// Cancelled at once: an account runs at most 3 imports at a time, and the walk starts many.
const started = async (a: Account): Promise<number> => {
  const res = await send(importReq(), a.key);
  expect(res.status, await res.clone().text()).toBe(202);
  const { id } = (await json(res)).data;
  await call(`/v1/imports/${id}/cancel`, { method: 'POST', key: a.key });
  return id as number;
};

// The walk makes a few rows and keys for each of 40-odd operations.
const WALK = { timeout: 240_000 };

describe('API key scopes on every /v1 operation', () => {
  it('the document states a scope for every /v1 operation, and this test walks each one', async () => {
    const documented = await documentedScopes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(operations).sort());
    expect(documented.get('GET /v1/me')).toBeNull();
    expect(documented.get('GET /v1/companies')).toBe('companies:read');
    expect(documented.get('POST /v1/tasks/{id}/restore')).toBe('tasks:delete');
    expect(documented.get('GET /v1/task-categories')).toBe('tasks:read');
    expect(documented.get('POST /v1/inbound-webhooks/{id}/rotate-token')).toBe('webhooks:update');
    expect(documented.get('GET /v1/usage')).toBe('webhooks:read');
  });

  it("docs/api.md's scope table is the document's, row for row", async () => {
    const table = apiDocs.split('<!-- scopes:start -->')[1]?.split('<!-- scopes:end -->')[0] ?? '';
    const rows = [
      ...table.matchAll(
        /^\| `([A-Z]+ \/v1[^`]*)` \| (?:`([^`]+)`|none \(any valid key\)|the imported resource's, by mode) \|$/gm,
      ),
    ];
    const written = new Map(rows.map((m) => [m[1] as string, m[2] ?? null]));
    expect(written).toEqual(await documentedScopes());
  });

  it(
    'without its scope: 403 insufficient_scope naming it, and nothing changes; with exactly it or a wildcard: allowed',
    WALK,
    async () => {
      const account = await newAccount();
      const documented = await documentedScopes();
      const keys = new Map<string, Promise<string>>();
      const key = (scopes: string[]) => {
        const id = scopes.join(',');
        if (!keys.has(id)) keys.set(id, keyWith(account.id, scopes));
        return keys.get(id) as Promise<string>;
      };
      for (const [operation, scope] of documented) {
        const make = operations[operation] as (a: Account) => Promise<Req>;
        if (scope === null) {
          // Any valid key may ask what it may do; an import needs its resource's scopes (checked by
          // the route once the resource and mode are read): with them it is allowed, without a 403.
          const req = await make(account);
          expect((await send(req, await key(req.scopes ?? ['deals:read']))).status, operation).toBe(
            req.status,
          );
          if (req.scopes) {
            const refused = await send(await make(account), await key(['deals:read']));
            expect(refused.status, operation).toBe(403);
          }
          continue;
        }
        const [resource, op] = scope.split(':');
        // Every other concrete scope: none of them grants this one.
        const lacking = await key(ALL_CONCRETE.filter((s) => s !== scope));
        const refused = await make(account);
        const before = await snapshot(account.id);
        const res = await send(refused, lacking);
        expect(res.status, `${operation}: ${await res.clone().text()}`).toBe(403);
        const problem = await expectProblem(res, 403, 'insufficient_scope');
        expect(problem.required_scope, operation).toBe(scope);
        expect(res.headers.get('WWW-Authenticate')).toBe(
          `Bearer error="insufficient_scope", scope="${scope}"`,
        );
        expect(await snapshot(account.id), `${operation} changed data without its scope`).toBe(before);

        for (const held of [[scope], [`*:${op}`], [`${resource}:*`], ['*:*']]) {
          const req = await make(account);
          const allowed = await send(req, await key(held));
          expect(allowed.status, `${operation} with ${held}: ${await allowed.clone().text()}`).toBe(
            req.status,
          );
        }
      }
    },
  );

  it("a key of another account never reaches this account's rows, whatever its scopes", WALK, async () => {
    const mine = await newAccount();
    const theirs = await newAccount('Other');
    for (const [operation, make] of Object.entries(operations)) {
      const req = await make(mine);
      if (!/\{id\}/.test(operation)) continue;
      const before = await snapshot(mine.id);
      const res = await send(req, theirs.key);
      expect(res.status, operation).toBe(404);
      expect(await snapshot(mine.id), operation).toBe(before);
    }
  });

  it('the webhook URL and /admin are outside key scopes', async () => {
    const account = await newAccount();
    const hook = await webhook(account);
    const readOnly = await keyWith(account.id, ['*:read']);
    // The URL is its own credential: a key, scoped or not, neither helps nor hinders.
    const sent = await postEvent(hook.path, { nome: 'Ana' }, { Authorization: `Bearer ${readOnly}` });
    expect(sent.status).toBe(204);
    const noKey = await postEvent(hook.path, { nome: 'Ana' });
    expect(noKey.status).toBe(204);
    // /admin takes the operator token only; no key's scopes reach it.
    const admin = await call(`/admin/accounts/${account.id}/api-keys`, { method: 'POST', key: account.key });
    await expectProblem(admin, 401, 'unauthorized');
  });
});
