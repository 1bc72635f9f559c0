import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  call,
  callWithEnv,
  expectProblem,
  expectSecurityHeaders,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';

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
    expect((await call('/health')).headers.get('Cache-Control')).toBe('no-store');
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

/** The `src` and `href` of every script and stylesheet the page loads. */
const assetsOf = (html: string) => ({
  scripts: [...html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1] ?? ''),
  styles: [...html.matchAll(/<link\b[^>]*\srel="stylesheet"[^>]*\shref="([^"]+)"/g)].map((m) => m[1] ?? ''),
});

describe('/docs without a CDN', () => {
  it('loads Swagger UI from its own origin only, under a policy with no other host and nothing inline', async () => {
    const res = await call('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    const policy = res.headers.get('Content-Security-Policy') ?? '';
    expectSecurityHeaders(res, policy);

    const { scripts, styles } = assetsOf(html);
    expect(scripts).toEqual(['/docs/swagger-ui-bundle.js', '/docs/init.js']);
    expect(styles).toEqual(['/docs/swagger-ui.css']);
    // Nothing from another origin, and nothing inline for the policy to allow.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<script>|<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);

    expect(directives(policy)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
    expect(policy).not.toMatch(/unsafe-|https?:|\*/);
  });

  it('serves each file the page names, from the Worker, with its type and the security headers', async () => {
    const { scripts, styles } = assetsOf(await (await call('/docs')).text());
    const types = [
      ...scripts.map((path) => [path, /^(?:text|application)\/javascript\b/] as const),
      ...styles.map((path) => [path, /^text\/css\b/] as const),
    ];
    for (const [path, type] of types) {
      const res = await call(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('Content-Type'), path).toMatch(type);
      expectSecurityHeaders(res);
      expect((await res.text()).length, path).toBeGreaterThan(0);
    }
    // The bundle is Swagger UI itself, and the start-up script starts it on this origin's document.
    expect(await (await call('/docs/swagger-ui-bundle.js')).text()).toContain('SwaggerUIBundle');
    // HEAD, as a browser's revalidation may send, answers like GET without the body.
    const head = await call('/docs/swagger-ui.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('Content-Type')).toMatch(/^text\/css\b/);
    expect(await head.text()).toBe('');
    const init = await (await call('/docs/init.js')).text();
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain("validatorUrl: 'none'");
  });

  it('answers a file it does not have with the problem 404', async () => {
    for (const path of ['/docs/nope.js', '/docs/index.html', '/docs/swagger-ui-bundle.js.map']) {
      await expectProblem(await call(path), 404, 'not_found');
    }
  });

  it('is the same on a second request', async () => {
    const first = (await call('/docs')).headers.get('Content-Security-Policy');
    expect((await call('/docs')).headers.get('Content-Security-Policy')).toBe(first);
  });
});
