// Every problem's `type` (`/problems/<code>`) resolves to a page that explains its code, rendered
// from the code table of src/http/problem.ts.
import { describe, expect, it } from 'vitest';
import { type ProblemCode, problems } from '../../src/http/problem';
import { BASE, call, expectProblem, expectSecurityHeaders, newAccount, newWebhook } from '../helpers';

/** The text of a page as a person reads it: tags dropped, the entities hono/html writes decoded. */
const textOf = (page: string) =>
  page
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

async function pageOf(type: string): Promise<string> {
  const res = await call(new URL(type, `${BASE}/v1/users`).pathname);
  expect(res.status, type).toBe(200);
  expect(res.headers.get('Content-Type'), type).toBe('text/html; charset=UTF-8');
  expectSecurityHeaders(res);
  return res.text();
}

describe('problem pages', () => {
  it('explain every code of the table: its status and what it means', async () => {
    const codes = Object.keys(problems) as ProblemCode[];
    expect(codes.length).toBeGreaterThan(25);
    for (const code of codes) {
      const text = textOf(await pageOf(`/problems/${code}`));
      expect(text, code).toContain(code);
      expect(text, code).toContain(`HTTP ${problems[code].status} `);
      expect(text, code).toContain(problems[code].about);
    }
  });

  it('are what the type of real problems links to, resolved against the request', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const answers = [
      await call('/v1/users/999', { key }),
      await call('/v1/users?limit=0', { key }),
      await call('/v1/users'),
      await call('/v1/users', { method: 'PATCH', key }),
      await call('/v1/users', { method: 'POST', key, body: {} }),
      await call(hook.path, { method: 'POST', body: '[1]', headers: { 'Content-Type': 'application/json' } }),
    ];
    const seen = [];
    for (const res of answers) {
      const problem = await res.json<{ type: string; code: ProblemCode }>();
      expect(problem.type).toBe(`/problems/${problem.code}`);
      expect(textOf(await pageOf(problem.type))).toContain(problems[problem.code].about);
      seen.push(problem.code);
    }
    expect(seen).toEqual([
      'not_found',
      'invalid_query',
      'unauthorized',
      'method_not_allowed',
      'validation_failed',
      'body_not_object',
    ]);
  });

  it('escape what they show, and list every code on /problems', async () => {
    const page = await pageOf('/problems/unauthorized');
    expect(page).toContain('Bearer &lt;key&gt;');
    expect(page).not.toContain('<key>');
    const index = textOf(await pageOf('/problems'));
    for (const code of Object.keys(problems)) expect(index).toContain(code);
  });

  it('answer an unknown code, or a name every object has, with the 404 problem, echoing nothing', async () => {
    for (const code of ['nope', '__proto__', 'constructor', 'toString', '%3Cb%3Ex%3C%2Fb%3E']) {
      const body = await expectProblem(await call(`/problems/${code}`), 404, 'not_found');
      expect(body.detail).toBe('No such problem code.');
    }
    await expectProblem(await call('/problems/not_found', { method: 'POST', body: {} }), 405);
  });
});
