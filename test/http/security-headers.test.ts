import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, callWithEnv, expectSecurityHeaders, newAccount, newWebhook, postEvent } from '../helpers';

describe('security headers', () => {
  it('are on every kind of response: JSON, empty, problem, unknown route, outside and inside /v1', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { fields: [{ key: 'n', type: 'number', required: true }] });
    const low = { API_RATE_LIMITER: env.LOW_API_RATE_LIMITER };
    const responses: [number, Response][] = [
      [200, await call('/health')],
      [200, await call('/openapi.json')],
      [404, await call('/nope')],
      [404, await call('/v1/users/0', { key })],
      [401, await call('/v1/users')],
      [200, await call('/v1/users', { key })],
      [201, await call('/v1/users', { method: 'POST', key, body: { name: 'A', email: 'a@example.com' } })],
      [400, await call('/v1/users', { method: 'POST', key, body: '{bad' })],
      [422, await call('/v1/users', { method: 'POST', key, body: {} })],
      [
        415,
        await call('/v1/users', {
          method: 'POST',
          key,
          body: 'x',
          headers: { 'Content-Type': 'text/plain' },
        }),
      ],
      [204, await postEvent(hook.path, { n: 1, __fault: 'send' })],
      [400, await postEvent(hook.path, { n: 'one' })],
      [404, await postEvent('/hooks/whk_unknown', { n: 1 })],
      [404, await callWithEnv({ ADMIN_TOKEN: undefined }, '/admin/accounts', { method: 'POST', body: {} })],
    ];
    const limited = await newAccount();
    for (let i = 0; i < 7; i++)
      responses.push([0, await callWithEnv(low, '/v1/users', { key: limited.key })]);
    expect(responses.map(([, res]) => res.status)).toContain(429);
    for (const [status, res] of responses) {
      if (status) expect(res.status).toBe(status);
      expectSecurityHeaders(res);
    }
  });

  it('/v1 answers, success or not, are never stored by a cache', async () => {
    const { key } = await newAccount();
    for (const res of [
      await call('/v1/users', { key }),
      await call('/v1/users'),
      await call('/v1/users/999', { key }),
      await call('/v1/users', { method: 'OPTIONS' }),
    ]) {
      expect(res.headers.get('Cache-Control')).toBe('no-store');
    }
    expect((await call('/health')).headers.get('Cache-Control')).toBeNull();
  });
});

/** The directives of a Content-Security-Policy, each with its sources. */
const directives = (policy: string): Record<string, string[]> =>
  Object.fromEntries(
    policy.split(';').map((part) => {
      const [name = '', ...sources] = part.trim().split(/\s+/);
      return [name, sources];
    }),
  );

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

describe('/docs Content-Security-Policy', () => {
  it('allows exactly the CDN script and stylesheet the page names and its inline script by hash', async () => {
    const res = await call('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    const policy = res.headers.get('Content-Security-Policy') ?? '';
    expectSecurityHeaders(res, policy);

    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(scripts).toEqual(['https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.35.0/swagger-ui-bundle.js']);
    expect(styles).toEqual(['https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.35.0/swagger-ui.css']);
    // An exact release, with Subresource Integrity: the browser runs those bytes or nothing.
    const integrity = [
      ...html.matchAll(
        /<(?:script|link)[^>]* integrity="(sha384-[A-Za-z0-9+/]{64})" crossorigin="anonymous"/g,
      ),
    ];
    expect(integrity).toHaveLength(2);
    expect(inline).toHaveLength(1);
    expect(inline[0]).toContain("validatorUrl: 'none'");
    // No inline style to allow: the page has neither <style> elements nor style attributes.
    expect(html).not.toMatch(/<style|\sstyle=/i);

    const csp = directives(policy);
    expect(csp).toEqual({
      'default-src': ["'none'"],
      'script-src': [...scripts, `'sha256-${await sha256Base64(inline[0] ?? '')}'`],
      'style-src': styles,
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
  });

  it('is the same on a second request', async () => {
    const first = (await call('/docs')).headers.get('Content-Security-Policy');
    expect((await call('/docs')).headers.get('Content-Security-Policy')).toBe(first);
  });
});
