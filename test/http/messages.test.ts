// Error messages and headers in the API's own words, not its libraries'.
import { describe, expect, it } from 'vitest';
import { call, expectProblem, newAccount } from '../helpers';

const BLANK = 'This field must not be blank.';

describe('messages in the API words', () => {
  it('a blank text is "must not be blank" in bodies and filters, never zod\'s "Too small"', async () => {
    const { key } = await newAccount();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/users', { name: '   ', email: 'a@acme.com' }, 'name'],
      ['POST', '/v1/deals', { name: '' }, 'name'],
      ['POST', '/v1/inbound-webhooks', { name: 'W', fields: [{ key: '', type: 'string' }] }, 'fields.0.key'],
    ];
    for (const [method, path, body, at] of cases) {
      const problem = await expectProblem(await call(path, { method, key, body }), 422, 'validation_failed');
      expect(problem.errors, path).toContainEqual(expect.objectContaining({ path: at, message: BLANK }));
      expect(JSON.stringify(problem)).not.toMatch(/Too small|expected string/);
    }
    const query = await expectProblem(
      await call('/v1/contacts?name__contains=', { key }),
      400,
      'invalid_query',
    );
    expect(query.errors).toEqual([expect.objectContaining({ path: 'name__contains', message: BLANK })]);
  });

  it('a custom_fields key error names the key, custom_fields.<key>, and a blank key the object (no trailing dot)', async () => {
    const { key } = await newAccount();
    const long = 'k'.repeat(101);
    const res = await call('/v1/deals', {
      method: 'POST',
      key,
      body: { name: 'D', custom_fields: { [long]: 1 } },
    });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        path: `custom_fields.${long}`,
        code: 'invalid_key',
        message: expect.stringContaining('over 100 characters'),
      },
    ]);
    const blank = await call('/v1/contacts', {
      method: 'POST',
      key,
      body: { name: 'C', custom_fields: { '': 1 } },
    });
    expect((await expectProblem(blank, 422, 'validation_failed')).errors).toEqual([
      { path: 'custom_fields', code: 'invalid_key', message: 'A key must not be blank.' },
    ]);
  });

  it('an all-zero CNPJ is refused as reserved; a wrong check digit as a check digit', async () => {
    const { key } = await newAccount();
    const post = (cnpj: string) => call('/v1/companies', { method: 'POST', key, body: { name: 'C', cnpj } });
    for (const cnpj of ['00.000.000/0000-00', '00000000000000', '11111111111111']) {
      const problem = await expectProblem(await post(cnpj), 422, 'validation_failed');
      expect(problem.errors, cnpj).toEqual([
        expect.objectContaining({ path: 'cnpj', message: expect.stringContaining('reserved') }),
      ]);
    }
    const problem = await expectProblem(await post('11.222.333/0001-82'), 422, 'validation_failed');
    expect(problem.errors[0].message).toContain('check digits');
  });

  it('Server-Timing says "1 round trip" for one, "<n> round trips" otherwise', async () => {
    const { key } = await newAccount();
    const one = await call('/v1/users', { key });
    expect(one.headers.get('Server-Timing')).toMatch(/^d1;dur=[\d.]+;desc="1 round trip", total;dur=[\d.]+$/);
    const none = await call('/health');
    expect(none.headers.get('Server-Timing')).toContain('desc="0 round trips"');
    const two = await call('/v1/users', { method: 'POST', key, body: { name: 'A', email: 'a@acme.com' } });
    expect(two.headers.get('Server-Timing')).toContain('desc="2 round trips"');
  });
});
