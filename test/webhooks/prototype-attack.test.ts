import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import worker from '../../src/index';
import { BASE, call, expectProblem, type Json, json, newAccount, newWebhook } from '../helpers';
import { page, panel, signIn } from '../panel/browser';
import { deliver, eventOf, get } from '../queue/webhook-support';

/** The Worker as deployed without an ADMIN_TOKEN secret: the binding is absent, not empty. */
async function workerWithoutAdminToken(path: string, init: RequestInit): Promise<Response> {
  const { ADMIN_TOKEN: _absent, ...bindings } = env;
  return worker.fetch(new Request(`${BASE}${path}`, init), bindings as typeof env, createExecutionContext());
}

const ownKeys = () => Reflect.ownKeys(Object.prototype).map(String).sort();

// Issue 21, section 1, end to end: a sender plants `__proto__` keys, the configurer fills fields
// from test events, saves, and sends a sample; nothing reaches the isolate every account shares.
it('a sender, a configurer and a sample event cannot plant ADMIN_TOKEN (or anything) on Object.prototype', async () => {
  const before = ownKeys();
  const attacker = await newAccount('Attacker');
  const victim = await newAccount('Victim');
  const hook = await newWebhook(attacker.key, { mode: 'test', fields: [{ key: 'nome', type: 'string' }] });

  // 1. No API key needed: the sender posts the key to the test-mode URL; the rest of the lead is kept.
  const planted = '{"__proto__":{"ADMIN_TOKEN":"x"},"nome":"Ana","__fault":"send"}';
  const post = await exports.default.fetch(
    new Request(`${BASE}${hook.path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: planted,
    }),
  );
  expect(post.status).toBe(204);
  const [stored] = await get(attacker.key, `/v1/inbound-webhooks/${hook.id}/events`);
  await deliver([stored.id]);
  const event = await eventOf(attacker.key, hook.id, stored.id);
  expect(event.status).toBe('test');
  expect(event.warnings).toEqual([expect.objectContaining({ path: '__proto__', code: 'reserved_key' })]);

  // 2. "Fill from test events" offers the sender's other keys, never the planted one.
  const cookie = await signIn(attacker.key);
  const filled = await page(await panel(`/panel/webhooks/${hook.id}?sample=1`, { cookie }));
  expect(filled).toContain('value="__fault"');
  expect(filled).not.toContain('__proto__');
  expect(filled).not.toContain('ADMIN_TOKEN');
  const offered = (await get(attacker.key, `/v1/inbound-webhooks/${hook.id}/sample-fields`)).map(
    (f: Json) => f.key,
  );
  expect(offered).not.toContain('__proto__.ADMIN_TOKEN');

  // 3. Saving the key by hand is a 422 at its exact path, in the panel and on /v1.
  const saved = await panel(`/panel/webhooks/${hook.id}`, {
    cookie,
    form: {
      name: 'Webhook',
      'fields.0.key': 'nome',
      'fields.0.type': 'string',
      'fields.1.key': '__proto__.ADMIN_TOKEN',
      'fields.1.type': 'string',
    },
  });
  const html = await page(saved, 422);
  expect(html).toMatch(/aria-describedby="err-fields-1-key"/);
  expect(html).toMatch(/<span class="error" id="err-fields-1-key">“__proto__” é um nome reservado/);
  const put = await call(`/v1/inbound-webhooks/${hook.id}`, {
    method: 'PUT',
    key: attacker.key,
    body: { fields: [{ key: '__proto__.ADMIN_TOKEN', type: 'string' }] },
  });
  const problem = await expectProblem(put, 422, 'validation_failed');
  expect(problem.errors).toEqual([expect.objectContaining({ path: 'fields.0.key', code: 'reserved_key' })]);
  expect((await get(attacker.key, `/v1/inbound-webhooks/${hook.id}`)).fields).toEqual([
    { key: 'nome', type: 'string', required: false },
  ]);

  // 4. A sample event of the (unchanged) configuration.
  const sample = await panel(`/panel/webhooks/${hook.id}/sample`, { cookie, form: {} });
  expect(sample.status).toBe(303);

  // 5. Another account still works: a list, a JSON write, a panel sign-in.
  expect((await call('/v1/contacts', { key: victim.key })).status).toBe(200);
  const written = await call('/v1/contacts', { method: 'POST', key: victim.key, body: { name: 'Bia' } });
  expect(written.status).toBe(201);
  expect((await json(written)).data.name).toBe('Bia');
  expect(await signIn(victim.key)).toMatch(/^crm_session=/);

  // 6. /admin stays off on a Worker without ADMIN_TOKEN, whatever token is tried.
  for (const token of ['x', 'Exemplo', 'test-admin-token']) {
    const res = await workerWithoutAdminToken('/admin/accounts', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"name":"Ghost"}',
    });
    await expectProblem(res, 404, 'not_found');
  }

  // 7. And the prototype every account shares holds exactly what it did.
  expect(ownKeys()).toEqual(before);
  expect(Object.hasOwn(Object.prototype, 'ADMIN_TOKEN')).toBe(false);
});
