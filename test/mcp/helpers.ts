import { exports } from 'cloudflare:workers';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { BASE, type Json } from '../helpers';

/** The two protocol revisions /mcp serves: 2026-07-28 (no initialize) and 2025-11-25 (initialize). */
export const REVISIONS = [
  { name: '2026-07-28', mode: { pin: '2026-07-28' }, era: 'modern' },
  { name: '2025-11-25', mode: 'legacy', era: 'legacy' },
] as const;

export type Revision = (typeof REVISIONS)[number];

/** The SDK's own client, connected over the Worker's fetch as `key`, at `revision`. */
export async function mcpClient(revision: Revision, key: string): Promise<Client> {
  const client = new Client(
    { name: 'crm-test', version: '1.0.0' },
    { versionNegotiation: { mode: revision.mode } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe(revision.name);
  return client;
}

/** A tool's result that is not an error: its structured content (`/v1`'s JSON). */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent;
}

/** A tool's error result: its problem (structured content) and its text. */
export async function failed(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ problem: Json; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const [first] = result.content;
  return { problem: result.structuredContent, text: first?.type === 'text' ? first.text : '' };
}

/** A raw JSON-RPC POST to /mcp (2025-11-25 framing, no initialize needed: the server is stateless). */
export function rpc(
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return exports.default.fetch(
    new Request(`${BASE}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}
