import { describe, expect, it } from 'vitest';
import { call, expectProblem, expectSecurityHeaders, json, roundTrips } from '../helpers';

/** A response's headers, less the two that differ on every request by design. */
function steadyHeaders(res: Response): Record<string, string> {
  const headers = Object.fromEntries(res.headers);
  expect(headers['x-request-id']).toBeTruthy();
  expect(headers['server-timing']).toMatch(/^d1;dur=0\.0;desc="0 round trips", total;dur=\d+\.\d$/);
  delete headers['x-request-id'];
  delete headers['server-timing'];
  return headers;
}

// GET /health is answered before Hono (src/http/health.ts); every other form of the request goes
// through the app's own /health route and its middleware, which the fast path must match.
describe('GET /health, answered before the router', () => {
  it('carries exactly the headers the app gives its /health route', async () => {
    const fast = await call('/health');
    const routed = await call('/health', { method: 'HEAD' });
    expect(fast.status).toBe(200);
    expect(routed.status).toBe(200);
    expect(steadyHeaders(fast)).toEqual(steadyHeaders(routed));
    expectSecurityHeaders(fast);
    expect(await json(fast)).toEqual({ status: 'ok' });
    expect(roundTrips(fast)).toBe(0);
  });

  it('answers with a query string, and the same as the routed path when it is escaped', async () => {
    const withQuery = await call('/health?probe=1');
    const escaped = await call('/h%65alth');
    for (const res of [withQuery, escaped]) {
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ status: 'ok' });
    }
    expect(steadyHeaders(withQuery)).toEqual(steadyHeaders(escaped));
  });

  it('keeps the request id rules: a sane one echoed, anything else replaced', async () => {
    expect(
      (await call('/health', { headers: { 'X-Request-Id': 'lb-42' } })).headers.get('X-Request-Id'),
    ).toBe('lb-42');
    const replaced = (await call('/health', { headers: { 'X-Request-Id': 'a b' } })).headers.get(
      'X-Request-Id',
    );
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves other paths and methods to the app: 404 and 405 as before', async () => {
    await expectProblem(await call('/health/'), 404, 'not_found');
    await expectProblem(await call('/healthz'), 404, 'not_found');
    const post = await call('/health', { method: 'POST' });
    await expectProblem(post, 405, 'method_not_allowed');
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
  });
});
