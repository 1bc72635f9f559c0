import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, call, create, expectProblem, list, newAccount } from '../helpers';
import { page, panel, signIn } from '../panel/browser';

// The attacker's pass of the threat model (docs/security.md): bodies built to break the parser,
// the validator or the page that shows them back get a 4xx or an escaped page, never a 5xx.

describe('depth bombs on /v1', () => {
  it('answers JSON nested 100,000 levels deep (just under 1 MiB) with a 422, with or without an Idempotency-Key', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Ana' });
    const n = 100_000;
    const bodies = [
      `{"name":"x","custom_fields":${'['.repeat(n)}${']'.repeat(n)}}`,
      `{"name":"x","custom_fields":{"a":${'{"a":'.repeat(n / 2)}1${'}'.repeat(n / 2)}}}`,
      `{"name":"x","unknown":${'['.repeat(n)}${']'.repeat(n)}}`,
    ];
    for (const [i, body] of bodies.entries()) {
      const keyed: Record<string, string>[] = [{}, { 'Idempotency-Key': `deep-${i}` }];
      for (const headers of keyed) {
        expect((await call('/v1/contacts', { method: 'POST', key, body, headers })).status).toBe(422);
      }
      expect((await call(`/v1/contacts/${contact.id}`, { method: 'PUT', key, body })).status).toBe(422);
    }
  });
});

describe('encodings on /v1', () => {
  it('refuses a JSON body that is not UTF-8 (Latin-1 "Jo\\xe3o") with 400, instead of storing U+FFFD', async () => {
    const { key } = await newAccount();
    const contact = await create(key, '/v1/contacts', { name: 'Ana' });
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('{"name":"Jo'),
      0xe3,
      ...new TextEncoder().encode('o"}'),
    ]);
    const send = (method: string, path: string, headers: Record<string, string> = {}) =>
      exports.default.fetch(
        new Request(`${BASE}${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
          body: latin1,
        }),
      );
    for (const res of [
      await send('POST', '/v1/contacts'),
      await send('POST', '/v1/contacts', { 'Idempotency-Key': 'latin-1' }),
      await send('PUT', `/v1/contacts/${contact.id}`),
    ]) {
      const problem = await expectProblem(res, 400, 'malformed_json');
      expect(problem.detail).toBe('The body is not valid UTF-8: send JSON encoded as UTF-8.');
    }
    expect((await list(key, '/v1/contacts')).data.map((c: { name: string }) => c.name)).toEqual(['Ana']);
    // A BOM is not an error: it is UTF-8's own mark.
    const bom = await exports.default.fetch(
      new Request(`${BASE}/v1/contacts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: `\ufeff{"name":"João"}`,
      }),
    );
    expect(bom.status).toBe(201);
  });
});

describe('XSS through the panel', () => {
  it("shows a configurer's and a sender's markup as text on every page of a webhook", async () => {
    const { key } = await newAccount();
    const script = '<script>alert(1)</script>';
    const hook = await create(key, '/v1/inbound-webhooks', {
      name: script,
      mode: 'test',
      fields: [{ key: 'nome', type: 'string' }],
    });
    const posted = await call(new URL(hook.url).pathname, {
      method: 'POST',
      body: { nome: '<img src=x onerror=alert(1)>', '"><svg onload=alert(1)>': script },
    });
    expect(posted.status).toBe(204);
    const cookie = await signIn(key);
    const base = `/panel/webhooks/${hook.id}`;
    const log = await page(await panel(`${base}/events`, { cookie }));
    const eventId = /events\/(\d+)"/.exec(log)?.[1];
    for (const path of [
      '/panel/webhooks',
      base,
      `${base}?sample=1`,
      `${base}/events`,
      `${base}/events/${eventId}`,
    ]) {
      const html = await page(await panel(path, { cookie }));
      expect(html, path).not.toContain('<script>alert');
      expect(html, path).not.toContain('<img src=x');
      expect(html, path).not.toContain('<svg onload');
    }
    expect(await page(await panel(`${base}/events/${eventId}`, { cookie }))).toContain('&lt;img src=x');
  });
});
