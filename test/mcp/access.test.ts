import { describe, expect, it } from 'vitest';
import {
  call,
  create,
  d1OfRow,
  expectProblem,
  type Json,
  json,
  keyWith,
  newAccount,
  newKey,
} from '../helpers';
import { failed, mcpClient, ok, REVISIONS, rpc } from './helpers';

const toolNames = async (client: Awaited<ReturnType<typeof mcpClient>>) =>
  (await client.listTools()).tools.map((tool) => tool.name);

describe.each(REVISIONS)('who may call /mcp, over $name', (revision) => {
  it('a *:read key sees only the read tools; a write called anyway names the missing scope', async () => {
    const account = await newAccount();
    const client = await mcpClient(revision, await keyWith(account.id, ['*:read']));
    const names = await toolNames(client);
    expect(names).toContain('list_companies');
    expect(names.filter((name) => /^(create|update|set)_/.test(name))).toEqual([]);
    expect(names).toContain('list_changes');
    expect(names).toContain('get_record_history');
    const { problem, text } = await failed(client, 'create_record', {
      company: { name: 'Acme', cnpj: '11222333000181' },
    });
    expect(problem).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      required_scope: 'companies:insert',
    });
    expect(text).toMatch(/companies:insert/);
    const page = await json(await call('/v1/companies', { key: account.key }));
    expect(page.data).toEqual([]);
    await client.close();
  });

  it('a key for companies only sees their tools, and get_record offers only company', async () => {
    const account = await newAccount();
    const client = await mcpClient(
      revision,
      await keyWith(account.id, ['companies:read', 'companies:update']),
    );
    expect(await toolNames(client)).toEqual([
      'list_companies',
      'get_record',
      'get_record_history',
      'update_record',
    ]);
    const { tools } = await client.listTools();
    const schemaOf = (name: string): Json => tools.find((tool) => tool.name === name)?.inputSchema;
    expect(schemaOf('get_record').properties.resource.enum).toEqual(['company']);
    expect(schemaOf('get_record_history').properties.resource.enum).toEqual(['company']);
    expect(Object.keys(schemaOf('update_record').properties)).toEqual(['id', 'company']);
    const { problem } = await failed(client, 'get_record', { resource: 'deal', id: 1 });
    expect(problem).toMatchObject({ code: 'insufficient_scope', required_scope: 'deals:read' });
    await client.close();
  });

  it('the change journal’s tools hold /v1’s scopes: events:read for the feed, each record’s read for its entries', async () => {
    const account = await newAccount();
    const company = await create(account.key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    const contact = await create(account.key, '/v1/contacts', { name: 'Ana', company_id: company.id });
    const noContacts = await mcpClient(
      revision,
      await keyWith(account.id, ['companies:read', 'events:read']),
    );
    expect(await toolNames(noContacts)).toEqual([
      'list_companies',
      'get_record',
      'get_record_history',
      'list_changes',
    ]);
    const feed = await ok(noContacts, 'list_changes');
    expect(feed.data.map((entry: Json) => entry.type)).toEqual(['company.created']);
    const asked = await ok(noContacts, 'list_changes', { record_type: 'contact' });
    expect(asked.data).toEqual([]);
    const theirHistory = await failed(noContacts, 'get_record_history', {
      resource: 'contact',
      id: contact.id,
    });
    expect(theirHistory.problem).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'contacts:read',
    });
    const own = await ok(noContacts, 'get_record_history', { resource: 'company', id: company.id });
    expect(own.data.map((entry: Json) => entry.version)).toEqual([1]);
    await noContacts.close();

    const noEvents = await mcpClient(
      revision,
      await keyWith(account.id, ['companies:read', 'contacts:read']),
    );
    const names = await toolNames(noEvents);
    expect(names).toContain('get_record_history');
    expect(names).not.toContain('list_changes');
    const refused = await failed(noEvents, 'list_changes');
    expect(refused.problem).toMatchObject({ code: 'insufficient_scope', required_scope: 'events:read' });
    await noEvents.close();
  });

  it("another account's id is a 404 tool error, whatever the tool", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const theirs = await create(b.key, '/v1/companies', { name: 'Theirs', cnpj: '11222333000181' });
    const deal = await create(b.key, '/v1/deals', { name: 'Their deal' });
    const task = await create(b.key, '/v1/tasks', { deal_id: deal.id, name: 'T', category: 'C' });
    const client = await mcpClient(revision, a.key);
    for (const [name, args] of [
      ['get_record', { resource: 'company', id: theirs.id }],
      ['update_record', { id: theirs.id, company: { name: 'Mine now' } }],
      ['update_record', { id: task.id, task: { is_completed: true } }],
      ['get_record_history', { resource: 'company', id: theirs.id }],
      ['get_record_history', { resource: 'task', id: task.id }],
    ] as const) {
      const { problem } = await failed(client, name, args);
      expect(problem, name).toMatchObject({ status: 404, code: 'not_found' });
    }
    const created = await failed(client, 'create_record', {
      task: { deal_id: deal.id, name: 'X', category: 'C' },
    });
    expect(created.problem).toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ path: 'task.deal_id' })],
    });
    // The feed filtered by their ids finds nothing of theirs.
    const feed = await ok(client, 'list_changes', { record_id: [theirs.id, deal.id, task.id] });
    expect(feed.data).toEqual([]);
    const theirsNow = await json(await call(`/v1/companies/${theirs.id}`, { key: b.key }));
    expect(theirsNow.data.name).toBe('Theirs');
    await client.close();
  });

  it('two clients in parallel never see each other’s results', async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    await create(a.key, '/v1/companies', { name: 'Alpha', cnpj: '11222333000181' });
    await create(b.key, '/v1/companies', { name: 'Bravo', cnpj: '11222333000181' });
    const [clientA, clientB] = await Promise.all([mcpClient(revision, a.key), mcpClient(revision, b.key)]);
    const rounds = Array.from({ length: 10 }, () => [
      ok(clientA, 'list_companies').then((page) => ['A', page]),
      ok(clientB, 'list_companies').then((page) => ['B', page]),
    ]).flat();
    for (const [who, page] of await Promise.all(rounds)) {
      expect(page.data.map((row: Json) => row.name)).toEqual([who === 'A' ? 'Alpha' : 'Bravo']);
    }
    await Promise.all([clientA.close(), clientB.close()]);
  });
});

describe('the HTTP answers of /mcp before any tool', () => {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  const callList = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'list_deals', arguments: {} },
  };

  it('no key, or not a key: 401 with WWW-Authenticate, before any database', async () => {
    for (const key of [null, 'not-a-key']) {
      const res = await rpc(key, list);
      await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    }
  });

  it('an unknown or expired key: 401 for tools/list and for tools/call, as on /v1', async () => {
    const account = await newAccount();
    const key = await newKey(account.id, ['*:read'], {
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await rpc(key.key, list)).status).toBe(200);
    await d1OfRow('api_keys', key.id)
      .prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?')
      .bind(Date.now() - 1000, key.id)
      .run();
    for (const body of [list, callList]) {
      const res = await rpc(key.key, body);
      const problem = await expectProblem(res, 401, 'api_key_expired');
      expect(problem.detail).toMatch(/expired at/);
      expect(res.headers.get('WWW-Authenticate')).toBe('Bearer error="invalid_token"');
    }
    const other = key.key.replace(/.$/, (c: string) => (c === 'a' ? 'b' : 'a'));
    await expectProblem(await rpc(other, callList), 401, 'unauthorized');
  });
});
