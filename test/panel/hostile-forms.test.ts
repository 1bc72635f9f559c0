import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, call, capturingLogs, json, newAccount, newWebhook } from '../helpers';
import { page, signIn } from './browser';

// The attacker's pass over the panel's forms: what a browser would never send, but a script can,
// gets a 4xx page, never a 500.

const post = (path: string, body: BodyInit, headers: Record<string, string>) =>
  exports.default.fetch(
    new Request(`${BASE}${path}`, {
      method: 'POST',
      body,
      headers: { Origin: BASE, ...headers },
      redirect: 'manual',
    }),
  );

describe('a form the runtime cannot parse', () => {
  it('is a 400 page on every POST, signed in or not, and changes nothing', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'production' });
    const cookie = await signIn(key);
    const multipart = 'multipart/form-data; boundary=x';
    const bodies = ['not multipart at all', '--x\r\nContent-Disposition: form-data; name="mode"\r\n\r\ntest'];
    const paths = [
      '/panel/sign-in',
      '/panel/webhooks',
      `/panel/webhooks/${hook.id}`,
      `/panel/webhooks/${hook.id}/mode`,
      `/panel/webhooks/${hook.id}/sample`,
    ];
    const { value: answers, logged } = await capturingLogs(async () => {
      const out: Response[] = [];
      for (const path of paths) {
        for (const body of bodies)
          out.push(await post(path, body, { Cookie: cookie, 'Content-Type': multipart }));
      }
      return out;
    });
    for (const res of answers) {
      const html = await page(res, 400);
      expect(html).toContain('O formulário enviado não pôde ser lido.');
    }
    expect(logged).toEqual([]);
    const after = await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }));
    expect(after.data).toMatchObject({ mode: 'production', name: hook.name });
    expect((await json(await call('/v1/inbound-webhooks', { key }))).data).toHaveLength(1);
  });

  it('still takes a well-formed multipart form, as a browser may send one', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'production' });
    const cookie = await signIn(key);
    const form = new FormData();
    form.append('mode', 'test');
    const res = await post(`/panel/webhooks/${hook.id}/mode`, form, { Cookie: cookie });
    expect(res.status).toBe(303);
    expect((await json(await call(`/v1/inbound-webhooks/${hook.id}`, { key }))).data.mode).toBe('test');
  });
});
