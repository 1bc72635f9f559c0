import { describe, expect, it } from 'vitest';
import { newAccount, newWebhook, postEvent } from '../helpers';
import { page, panel, signIn } from './browser';

// What a browser downloads for the panel's first page, each answer gzipped as the edge serves it:
// the page itself, its stylesheet and its script. The budget: under 50 KB.

const BUDGET = 50 * 1024;
const ASSETS = ['/panel/static/panel.css', '/panel/static/panel.js'];

async function gzipped(res: Response, path: string): Promise<number> {
  expect(res.status, path).toBe(200);
  if (!res.body) throw new Error(`${path} has no body`);
  return (await new Response(res.body.pipeThrough(new CompressionStream('gzip'))).arrayBuffer()).byteLength;
}

/** The gzipped bytes of `path` (with `cookie`) and of the assets every page loads. */
async function firstPage(path: string, cookie?: string): Promise<{ total: number; parts: string }> {
  const sizes = [await gzipped(await panel(path, { cookie }), path)];
  for (const asset of ASSETS) sizes.push(await gzipped(await panel(asset), asset));
  const total = sizes.reduce((a, b) => a + b, 0);
  return { total, parts: `${path} ${sizes[0]} B + css ${sizes[1]} B + js ${sizes[2]} B = ${total} B gzip` };
}

describe('the first page stays under 50 KB gzip', () => {
  it('the sign-in page, with its CSS and JS', async () => {
    const { total, parts } = await firstPage('/panel/sign-in');
    expect(total, parts).toBeLessThan(BUDGET);
  });

  it('signed in, the webhook list of an account with 20 webhooks that received events, with its CSS and JS', async () => {
    const account = await newAccount();
    for (let i = 1; i <= 20; i++) {
      const hook = await newWebhook(account.key, {
        name: `Formulário de leads da concessionária, unidade ${i}`,
        fields: [
          { key: 'nome', type: 'string', target: 'contact.name' },
          { key: 'telefone', type: 'phone', target: 'contact.phone' },
        ],
        flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
      });
      for (const body of [{ nome: 'Maria', telefone: '(11) 91234-5678' }, { nome: 'João' }, 'not json']) {
        const res = await postEvent(hook.path, body);
        expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      }
    }
    const cookie = await signIn(account.key);
    const html = await page(await panel('/panel/webhooks', { cookie }));
    expect(html.match(/<tr>/g)?.length).toBe(21);
    const { total, parts } = await firstPage('/panel/webhooks', cookie);
    expect(total, parts).toBeLessThan(BUDGET);
  });
});
