import { describe, expect, it } from 'vitest';
import {
  adminHeaders,
  call,
  callWithEnv,
  expectProblem,
  expectSecurityHeaders,
  type Json,
  json,
  newAccount,
  roundTrips,
} from '../helpers';

const TRIED = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const ORDER: readonly string[] = TRIED;

/** Every path of the OpenAPI document with a concrete id or token, and the methods it documents. */
async function documentedPaths(): Promise<{ path: string; url: string; methods: string[] }[]> {
  const doc = await json(await call('/openapi.json'));
  return Object.entries<Json>(doc.paths).map(([path, item]) => {
    const methods = Object.keys(item)
      .map((m) => m.toUpperCase())
      .filter((m) => ORDER.includes(m));
    // Hono answers HEAD wherever it answers GET.
    if (methods.includes('GET')) methods.push('HEAD');
    methods.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
    const url = path.replace('{token}', `whk_${'x'.repeat(43)}`).replace(/\{[^}]+\}/g, '1');
    return { path, url, methods };
  });
}

describe('a known path with a method it lacks', () => {
  it('answers 405 method_not_allowed with Allow on every path of the OpenAPI document, before auth and D1', async () => {
    const paths = await documentedPaths();
    expect(paths.length).toBeGreaterThan(15);
    let refused = 0;
    for (const { path, url, methods } of paths) {
      // /v1 answers every OPTIONS itself: it is the CORS preflight.
      const lacking = TRIED.filter(
        (m) => !methods.includes(m) && !(m === 'OPTIONS' && path.startsWith('/v1/')),
      );
      for (const method of lacking) {
        const where = `${method} ${path}`;
        // No key, no token: the 405 needs neither.
        const res = await call(url, { method });
        expect(res.status, where).toBe(405);
        expect(res.headers.get('Allow'), where).toBe(methods.join(', '));
        expect(roundTrips(res), where).toBe(0);
        expectSecurityHeaders(res);
        if (method === 'HEAD') continue;
        const body = await expectProblem(res, 405, 'method_not_allowed');
        expect(body.detail, where).toBe(
          `${method} is not allowed here; this path takes ${methods.join(', ')}.`,
        );
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(40);
  });

  it('leaves the documented methods alone, HEAD included wherever GET is', async () => {
    const { key } = await newAccount();
    for (const { path, url, methods } of await documentedPaths()) {
      const admin = path.startsWith('/admin/');
      for (const method of methods) {
        const res = await call(url, {
          method,
          key: admin ? null : key,
          headers: admin ? adminHeaders() : undefined,
          body: method === 'POST' || method === 'PUT' ? {} : undefined,
        });
        expect(res.status, `${method} ${path}`).not.toBe(405);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
      }
    }
  });

  it('knows the routes outside the document too (/openapi.json, /docs and its files)', async () => {
    for (const path of ['/openapi.json', '/docs', '/docs/init.js', '/docs/swagger-ui-bundle.js']) {
      const res = await call(path, { method: 'POST' });
      await expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('Allow')).toBe('GET, HEAD');
    }
  });

  it('keeps an unknown path a 404 whatever the method, and the CORS preflight a 204', async () => {
    const { key } = await newAccount();
    for (const path of ['/nope', '/v1/nope', '/v1/users/1/nope', '/v1/users/', '/admin/nope', '/hooks']) {
      for (const method of ['GET', 'POST', 'DELETE', 'PATCH']) {
        const admin = path.startsWith('/admin');
        const res = await call(path, {
          method,
          key: admin ? null : key,
          headers: admin ? adminHeaders() : {},
        });
        await expectProblem(res, 404, 'not_found');
        expect(res.headers.get('Allow')).toBeNull();
      }
    }
    expect((await call('/v1/users/1', { method: 'OPTIONS' })).status).toBe(204);
  });

  it('carries the CORS headers to an allowed origin, so a browser can read the 405', async () => {
    const origin = 'https://app.example.com';
    const res = await callWithEnv({ CORS_ORIGINS: origin }, '/v1/users', {
      method: 'DELETE',
      headers: { Origin: origin },
    });
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(origin);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });
});
