import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimsModernEra } from '../../src/mcp/server';
import { BASE } from '../helpers';

const META = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const rare = <T>(value: T) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.constant(value));

/** Messages of every shape the classifier tells apart, claims and no claims, good and broken. */
const message = fc
  .record({
    jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', undefined),
    id: fc.constantFrom(1, 'a', 1, null, undefined),
    method: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'notifications/initialized', 42),
    params: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ name: fc.constant('list_companies'), protocolVersion: rare('2025-11-25') }),
      },
      fc.constant(undefined),
      fc.constant(null),
    ),
    meta: fc.constantFrom(
      META,
      META,
      META,
      { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' },
      { [PROTOCOL_VERSION_META_KEY]: 7 },
      { progressToken: 1 },
      [META],
      null,
      undefined,
    ),
    result: rare({}),
    error: rare({ code: -32600, message: 'x' }),
  })
  .map(({ params, meta, ...rest }) => {
    const withMeta = params && meta !== undefined ? { ...params, _meta: meta } : params;
    return Object.fromEntries(
      Object.entries({ ...rest, params: withMeta }).filter(([, v]) => v !== undefined),
    );
  });

const request = (version: string | undefined, body: unknown) =>
  new Request(`${BASE}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(version ? { 'MCP-Protocol-Version': version } : {}),
    },
    body: JSON.stringify(body),
  });

describe('the 2026-07-28 shortcut past isLegacyRequest (src/mcp/server.ts)', () => {
  it('takes a message as modern only where the SDK serves it on the 2026-07-28 path', async () => {
    let claimed = 0;
    await fc.assert(
      fc.asyncProperty(
        message,
        fc.constantFrom(undefined, '2025-11-25', '2026-07-28'),
        async (body, version) => {
          if (!claimsModernEra(body)) return;
          claimed++;
          expect(await isLegacyRequest(request(version, body), body), JSON.stringify(body)).toBe(false);
        },
      ),
      { seed: 20261129, numRuns: 300 },
    );
    // The property ran on claims, not only on messages it let through to the SDK.
    expect(claimed).toBeGreaterThan(20);
  });

  it('leaves to the SDK what it names legacy: initialize, no envelope, a posted response, a batch', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: META } };
    expect(claimsModernEra(call)).toBe(true);
    expect(claimsModernEra({ ...call, method: 'initialize' })).toBe(false);
    expect(claimsModernEra({ ...call, params: { name: 'x' } })).toBe(false);
    expect(claimsModernEra({ ...call, result: {} })).toBe(false);
    expect(claimsModernEra([call])).toBe(false);
    expect(
      claimsModernEra(
        JSON.parse(`{"method":"tools/call","params":{"_meta":{"__proto__":${JSON.stringify(META)}}}}`),
      ),
    ).toBe(false);
  });
});
