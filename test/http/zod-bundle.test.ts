// The zod the Worker is built with (src/contracts/zod.ts, aliased for `zod` in wrangler.toml and in
// vitest.config.ts): zod without its 47 locales, everything the app uses intact.
import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { call, expectProblem, newAccount } from '../helpers';

describe("the bundle's zod", () => {
  it('is the aliased one here too, so the tests run what ships: no locales, no core namespace', () => {
    const namespace: Record<string, unknown> = z;
    expect(namespace.locales).toBeUndefined();
    expect(namespace.core).toBeUndefined();
  });

  it("keeps zod's English messages, its schemas and the OpenAPI extension", () => {
    const result = z.string().safeParse(1);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
    expect(z.string().openapi({ example: 'x' }).parse('x')).toBe('x');
    expect(z.iso.datetime().safeParse('2026-11-26T00:00:00Z').success).toBe(true);
    expect(z.coerce.number().parse('3')).toBe(3);
  });

  it('answers a bad body with the same problem as before, its messages in English', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/companies', { method: 'POST', key, body: { name: 7, cnpj: [] } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'name', message: expect.stringMatching(/^[A-Z].*\.?$/) }),
      ]),
    );
    expect(JSON.stringify(problem.errors)).not.toMatch(/[^\x20-\x7e]/);
  });
});
