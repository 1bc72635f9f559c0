// No raw validator sentence reaches a client (issue 34): what a field takes, a limit in words, the
// nearest scopes, why a key cannot mint a wider one, and the document's grammar.
import { describe, expect, it } from 'vitest';
import { call, expectProblem, json, keyWith, newAccount } from '../helpers';

const RAW = /Invalid input|Invalid option|Too big|Too small|expected number|received string|<=|>=/;

describe('the API words, not the validator sentences', () => {
  it('a number sent as text says what the field takes, with the hint for a pt-BR 89.900,00', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/deals', { method: 'POST', key, body: { name: 'D', value: '89.900,00' } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(JSON.stringify(problem)).not.toMatch(RAW);
    expect(problem.errors).toEqual([
      expect.objectContaining({
        path: 'value',
        message: expect.stringMatching(
          /^Expected a number .*"89\.900,00" is written the Brazilian way: send 89900\.00/,
        ),
      }),
    ]);
    const plain = await expectProblem(
      await call('/v1/deals', { method: 'POST', key, body: { name: 'D', value: 'muito' } }),
      422,
      'validation_failed',
    );
    expect(plain.errors[0].message).toBe('Expected a number (a JSON number such as 89900.5, not in quotes).');
  });

  it('a limit is said in words: a page size, a text length, a list size', async () => {
    const { key } = await newAccount();
    const page = await expectProblem(await call('/v1/contacts?limit=1000', { key }), 400, 'invalid_query');
    expect(page.errors).toEqual([
      expect.objectContaining({ path: 'limit', message: 'Must be 100 or less.' }),
    ]);
    const long = await expectProblem(
      await call('/v1/contacts', { method: 'POST', key, body: { name: 'x'.repeat(300) } }),
      422,
      'validation_failed',
    );
    expect(long.errors[0].message).toMatch(/^Must be at most \d+ characters\.$/);
    const small = await expectProblem(await call('/v1/contacts?limit=0', { key }), 400, 'invalid_query');
    expect(JSON.stringify(small)).not.toMatch(RAW);
  });

  it('an unknown scope names the nearest valid ones, not all of them', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/api-keys', { method: 'POST', key, body: { scopes: ['contact:read'] } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    const [error] = problem.errors;
    expect(error).toMatchObject({ path: 'scopes.0' });
    expect(error.message).toMatch(
      /^"contact:read" is not one of the \d+ allowed values; the nearest are contacts:read, /,
    );
    expect(error.message.split(',').length).toBeLessThanOrEqual(4);
    expect(error.message).not.toContain('webhooks:delete');
  });

  it('minting a wider key: the 403 says a key cannot grant what it does not hold', async () => {
    const { id } = await newAccount();
    const narrow = await keyWith(id, ['contacts:read', 'api_keys:insert']);
    const wider = await call('/v1/api-keys', {
      method: 'POST',
      key: narrow,
      body: { scopes: ['contacts:*'] },
    });
    const problem = await expectProblem(wider, 403, 'insufficient_scope');
    expect(problem.detail).toMatch(/cannot grant contacts:\*: a key can only grant what it holds itself/);
    const full = await expectProblem(
      await call('/v1/api-keys', { method: 'POST', key: narrow, body: {} }),
      403,
      'insufficient_scope',
    );
    expect(full.detail).toMatch(/cannot grant full access/);
  });

  it('the document says "Create a user", and an article by sound everywhere', async () => {
    const doc = await json(await call('/openapi.json'));
    const summaries = Object.values<Record<string, { summary?: string }>>(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => op.summary ?? ''),
    );
    expect(summaries).toContain('Create a user');
    expect(summaries.filter((s) => /\ban u/i.test(s))).toEqual([]);
    expect(summaries).toContain('Create an inbound webhook');
  });
});
