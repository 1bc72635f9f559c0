import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../../cnpj';
import { call, create, expectProblem, json, newAccount } from '../../helpers';

let serial = 0;
const cnpj = () => withCheckDigits(`${31_000_000 + ++serial}0001`);

/** A minimal new record of each resource, in an account that has what it needs (a deal). */
async function bodies(key: string) {
  const deal = await create(key, '/v1/deals', { name: 'Base' });
  return {
    users: () => ({ name: 'Ana', email: `ana${++serial}@example.com` }),
    companies: () => ({ name: 'Auto Lima', cnpj: cnpj() }),
    contacts: () => ({ name: 'Bruno' }),
    deals: () => ({ name: 'Onix' }),
    tasks: () => ({ deal_id: deal.id, name: 'Call', category: 'Ligação' }),
  };
}

const resources = ['users', 'companies', 'contacts', 'deals', 'tasks'] as const;

describe('external_id on every resource', () => {
  for (const resource of resources) {
    it(`${resource}: written, shown, filtered, unique per account, cleared`, async () => {
      const { key } = await newAccount();
      const make = (await bodies(key))[resource];
      const one = await create(key, `/v1/${resource}`, { ...make(), external_id: '  ERP-1  ' });
      expect(one.external_id).toBe('ERP-1');
      const other = await create(key, `/v1/${resource}`, make());
      expect(other.external_id).toBeNull();

      const listed = await json(await call(`/v1/${resource}?external_id=ERP-1`, { key }));
      expect(listed.data.map((row: { id: number }) => row.id)).toEqual([one.id]);
      // Exact and case-sensitive: an ERP's ids are.
      const lower = await json(await call(`/v1/${resource}?external_id=erp-1`, { key }));
      expect(lower.data).toEqual([]);

      const taken = await call(`/v1/${resource}`, {
        key,
        method: 'POST',
        body: { ...make(), external_id: 'ERP-1' },
      });
      const problem = await expectProblem(taken, 409, 'conflict');
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'external_id', code: 'taken' })]);

      // Another account may hold the same id.
      const b = await newAccount('B');
      const theirs = await create(b.key, `/v1/${resource}`, {
        ...(await bodies(b.key))[resource](),
        external_id: 'ERP-1',
      });
      expect(theirs.external_id).toBe('ERP-1');

      const cleared = await call(`/v1/${resource}/${one.id}`, {
        key,
        method: 'PUT',
        body: { external_id: '' },
      });
      expect(cleared.status).toBe(200);
      expect((await json(cleared)).data.external_id).toBeNull();
      const many = await call(`/v1/${resource}/${other.id}`, {
        key,
        method: 'PUT',
        body: { external_id: 'x'.repeat(256) },
      });
      await expectProblem(many, 422);
    });
  }
});
