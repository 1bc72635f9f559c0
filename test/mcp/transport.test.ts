import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, call, callWithEnv, expectProblem, type Json, json, newAccount } from '../helpers';
import { rpc } from './helpers';

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const callTool = (name: string, args: unknown) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The JSON-RPC message of an answer, whether sent as JSON or as one SSE event. */
async function message(res: Response): Promise<Json> {
  const text = await res.text();
  const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
  return JSON.parse(data ?? 'null');
}

const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' };

describe('/mcp as the transport spec asks of a stateless server', () => {
  it('GET and DELETE are 405 with Allow: POST (no stream to open, no session to end)', async () => {
    const { key } = await newAccount();
    for (const method of ['GET', 'DELETE']) {
      const res = await call('/mcp', { method, key, headers: MCP_HEADERS });
      await expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('Allow')).toBe('POST');
    }
  });

  it('answers without a session: no Mcp-Session-Id, and a tools/list needs no initialize', async () => {
    const { key } = await newAccount();
    const res = await rpc(key, list);
    expect(res.status).toBe(200);
    expect(res.headers.get('Mcp-Session-Id')).toBeNull();
    expect((await message(res)).result.tools.length).toBeGreaterThan(0);
  });

  it("answers a call of either revision as one JSON body whose text block is /v1's own answer", async () => {
    const { key } = await newAccount();
    await call('/v1/companies', { method: 'POST', key, body: { name: 'Acme', cnpj: '11222333000181' } });
    const v1 = await (await call('/v1/companies', { key })).text();
    const modern = {
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'list_companies',
    };
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const asked = [
      await rpc(key, callTool('list_companies', {})),
      await rpc(
        key,
        { ...callTool('list_companies', {}), params: { name: 'list_companies', arguments: {}, _meta: meta } },
        modern,
      ),
    ];
    for (const res of asked) {
      expect(res.status).toBe(200);
      // One message, not an SSE stream: the 2025-11-25 transport allows either, and a stream cost
      // the Worker and the proxy more per call (docs/mcp.md, Cost).
      expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
      // The /v1 request the call made in-process is counted in /mcp's own Server-Timing.
      expect(res.headers.get('Server-Timing')).toMatch(/desc="1 round trip"/);
      const { result } = JSON.parse(await res.text());
      expect(result.content[1].text).toBe(v1);
      expect(result.structuredContent).toEqual(JSON.parse(v1));
    }
  });

  it("an Origin other than the service's own is 403 (DNS rebinding); its own passes", async () => {
    const { key } = await newAccount();
    await expectProblem(await rpc(key, list, { Origin: 'https://evil.example' }), 403, 'origin_not_allowed');
    await expectProblem(await rpc(key, list, { Origin: 'null' }), 403, 'origin_not_allowed');
    expect((await rpc(key, list, { Origin: BASE })).status).toBe(200);
  });

  it('with PUBLIC_BASE_URL set, another host is 403 and an Origin must be that one', async () => {
    const { key } = await newAccount();
    const base = { PUBLIC_BASE_URL: 'https://crm.example.com' };
    const options = { method: 'POST', key, body: list, headers: MCP_HEADERS };
    await expectProblem(await callWithEnv(base, '/mcp', options), 403, 'host_not_allowed');
    const own = new Request('https://crm.example.com/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify(list),
    });
    const worker = (await import('../../src/index')).default;
    const { createExecutionContext } = await import('cloudflare:test');
    expect((await worker.fetch(own, { ...env, ...base }, createExecutionContext())).status).toBe(200);
  });

  it('a body over 1 MiB is 413 body_too_large, as on /v1, before the SDK reads it', async () => {
    const { key } = await newAccount();
    const big = callTool('create_record', {
      company: { name: 'x'.repeat(1024 * 1024), cnpj: '11222333000181' },
    });
    await expectProblem(await rpc(key, big), 413, 'body_too_large');
  });

  it('deeply nested or flooding arguments are tool errors, never a 500, and write nothing', async () => {
    const { key } = await newAccount();
    const nest = (depth: number) => {
      let value: unknown = 'x';
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    // 500 levels reach /v1, which names the field; 5,000 are over the SDK's count of elements.
    const args = (name: unknown) => callTool('create_record', { company: { name, cnpj: '11222333000181' } });
    const nested = await message(await rpc(key, args(nest(500))));
    expect(nested.result.isError).toBe(true);
    expect(nested.result.structuredContent).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'company.name' }],
    });
    const deeper = await message(await rpc(key, args(nest(5000))));
    expect(deeper.result.isError).toBe(true);
    expect(deeper.result.content[0].text).toMatch(/more than the maximum of 1000 elements/);
    const many = Array.from({ length: 2000 }, (_, i) => i + 1);
    const flood = await message(
      await rpc(key, callTool('create_record', { company: { name: 'A', cnpj: '1', follower_ids: many } })),
    );
    expect(flood.result.isError).toBe(true);
    expect(flood.result.content[0].text).toMatch(/more than the maximum of 1000 elements/);
    const keys = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`__proto__${i}`, i]));
    const odd = await message(
      await rpc(key, callTool('create_record', { company: { ...keys, ['__proto__']: { admin: true } } })),
    );
    expect(odd.result.isError).toBe(true);
    expect(odd.result.structuredContent.errors).toContainEqual(
      expect.objectContaining({ path: 'company.__proto__', code: 'unknown_field' }),
    );
    // `__proto__` beside the kind, or as the kind: refused before /v1, never an object's prototype.
    const beside = await message(
      await rpc(key, callTool('create_record', { company: { name: 'A' }, ['__proto__']: { cnpj: '1' } })),
    );
    expect(beside.result.structuredContent.errors).toEqual([
      expect.objectContaining({ path: 'company.cnpj', code: 'required' }),
    ]);
    const asKind = await message(await rpc(key, callTool('create_record', { ['__proto__']: { name: 'B' } })));
    expect(asKind.result.structuredContent.errors).toEqual([expect.objectContaining({ code: 'required' })]);
    const lent = await message(
      await rpc(key, callTool('get_record', { ['__proto__']: { resource: 'company' }, id: 1 })),
    );
    expect(lent.result.structuredContent.errors).toEqual([expect.objectContaining({ path: 'resource' })]);
    for (const resource of ['__proto__', 'constructor']) {
      const history = await message(await rpc(key, callTool('get_record_history', { resource, id: 1 })));
      expect(history.result.structuredContent.errors, resource).toEqual([
        expect.objectContaining({ path: 'resource', code: 'invalid_value' }),
      ]);
    }
    expect((await json(await call('/v1/companies', { key }))).data).toEqual([]);
  });

  it('a body that is not JSON-RPC gets the SDK’s JSON-RPC error, not a 500', async () => {
    const { key } = await newAccount();
    for (const body of ['{', '[]', '"x"', '{"jsonrpc":"2.0","id":1}']) {
      const res = await rpc(key, body);
      expect(res.status, body).toBeGreaterThanOrEqual(400);
      expect(res.status, body).toBeLessThan(500);
    }
  });

  it('counts each /mcp request once against the client limit, and its /v1 calls against the key limit', async () => {
    const { key } = await newAccount();
    const options = { method: 'POST', key, body: callTool('list_deals', {}), headers: MCP_HEADERS };
    const client = { CLIENT_RATE_LIMITER: env.LOW_CLIENT_RATE_LIMITER };
    const clientHeaders = { ...options, headers: { ...MCP_HEADERS, 'CF-Connecting-IP': '203.0.113.7' } };
    const listing = { ...clientHeaders, body: list };
    // tools/list also asks /v1/me: were that counted again, the second request would be refused.
    for (let i = 0; i < 3; i++) expect((await callWithEnv(client, '/mcp', listing)).status).toBe(200);
    const over = await callWithEnv(client, '/mcp', clientHeaders);
    await expectProblem(over, 429, 'rate_limited');
    expect(over.headers.get('Retry-After')).toBe('60');
    const keyed = { API_RATE_LIMITER: env.LOW_API_RATE_LIMITER };
    for (let i = 0; i < 3; i++) expect((await callWithEnv(keyed, '/mcp', options)).status).toBe(200);
    await expectProblem(await callWithEnv(keyed, '/mcp', options), 429, 'rate_limited');
  });
});
