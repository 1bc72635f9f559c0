import { describe, expect, it } from 'vitest';
import { relationKeys } from '../../../src/contracts/relation-keys';
import { naturalKeys } from '../../../src/model/natural-keys';
import { mask, withCheckDigits } from '../../cnpj';
import { call, create, expectProblem, type Json, json, keyWith, newAccount, roundTrips } from '../../helpers';

let serial = 0;
const cnpj = () => withCheckDigits(`${33_000_000 + ++serial}0001`);

const post = (key: string, path: string, body: Json) => call(path, { method: 'POST', key, body });
const put = (key: string, path: string, body: Json) => call(path, { method: 'PUT', key, body });

/** An account with a user, a company and a contact, each with the natural keys a relation names. */
async function world() {
  const { id, key } = await newAccount();
  const taxId = cnpj();
  const user = await create(key, '/v1/users', { name: 'Ana Souza', email: 'ana@loja.com.br' });
  const company = await create(key, '/v1/companies', { name: 'Auto Lima', cnpj: taxId, external_id: 'C-1' });
  const contact = await create(key, '/v1/contacts', { name: 'Bruno', phone: '11 98765-4321' });
  return { id, key, taxId, user, company, contact };
}

describe('single writes with relations by natural key (issue 40)', () => {
  it('a deal names its company, contact and owner by key: 201 with their ids, in 2 round trips', async () => {
    const { key, taxId, user, company, contact } = await world();
    const res = await post(key, '/v1/deals', {
      name: 'Onix 2025',
      external_id: 'D-1',
      company: { cnpj: mask(taxId) },
      contact: { phone: '+55 (11) 98765-4321' },
      owner: { email: 'ANA@loja.com.br' },
    });
    expect(res.status).toBe(201);
    expect(roundTrips(res)).toBe(2);
    const deal = (await json(res)).data;
    expect(deal).toMatchObject({ company_id: company.id, contact_id: contact.id, owner_id: user.id });
    expect(res.headers.get('Location')).toMatch(new RegExp(`/v1/deals/${deal.id}$`));
    // Journaled as any create, by the key that wrote it.
    const history = (await json(await call(`/v1/deals/${deal.id}/history`, { key }))).data;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ type: 'deal.created', version: 1, actor: { type: 'api_key' } });
  });

  it('a task takes its deal by external_id instead of deal_id; neither is a 422 naming deal_id', async () => {
    const { key } = await world();
    const deal = await create(key, '/v1/deals', { name: 'Onix', external_id: 'D-9' });
    const res = await post(key, '/v1/tasks', {
      name: 'Ligar',
      category: 'Ligação',
      deal: { external_id: 'D-9' },
    });
    expect(res.status).toBe(201);
    expect((await json(res)).data).toMatchObject({ deal_id: deal.id, name: 'Ligar' });
    const none = await expectProblem(
      await post(key, '/v1/tasks', { name: 'Ligar', category: 'Ligação' }),
      422,
      'validation_failed',
    );
    expect(none.errors).toEqual([expect.objectContaining({ path: 'deal_id', code: 'required' })]);
  });

  it('an update names the company by external_id; the answer and the journal say what changed', async () => {
    const { key, company, contact } = await world();
    const res = await put(key, `/v1/contacts/${contact.id}`, { company: { external_id: 'C-1' } });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(2);
    expect((await json(res)).data).toMatchObject({ id: contact.id, company_id: company.id, name: 'Bruno' });
    const history = (await json(await call(`/v1/contacts/${contact.id}/history`, { key }))).data;
    expect(history.at(-1)).toMatchObject({ type: 'contact.updated', changed_fields: ['company_id'] });
  });

  it("another account's keys never resolve: a 422 at the key's path, nothing written", async () => {
    const mine = await world();
    const other = await world();
    const res = await post(mine.key, '/v1/deals', { name: 'X', company: { cnpj: other.taxId } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'company.cnpj', code: 'not_found' })]);
    const update = await put(mine.key, `/v1/contacts/${mine.contact.id}`, {
      owner: { email: 'ana@loja.com.br' },
    });
    expect(update.status).toBe(200);
    const foreign = await put(mine.key, `/v1/contacts/${other.contact.id}`, {
      owner: { email: 'ana@loja.com.br' },
    });
    await expectProblem(foreign, 404);
    expect((await json(await call('/v1/deals', { key: mine.key }))).data).toHaveLength(0);
  });

  it('refuses a key and its id together, two keys, an unknown key and prototype keys', async () => {
    const { key, company } = await world();
    const cases: [Json, string][] = [
      [{ name: 'X', company_id: company.id, company: { external_id: 'C-1' } }, 'company'],
      [{ name: 'X', company: { external_id: 'C-1', cnpj: '11.222.333/0001-81' } }, 'company'],
      [{ name: 'X', company: { razao: 'Auto Lima' } }, 'company.razao'],
      [{ name: 'X', company: 'C-1' }, 'company'],
      [JSON.parse('{"name":"X","company":{"__proto__":{"cnpj":"1"}}}'), 'company.__proto__'],
      [JSON.parse('{"name":"X","constructor":{"external_id":"C-1"}}'), 'constructor'],
    ];
    for (const [body, path] of cases) {
      const problem = await expectProblem(await post(key, '/v1/deals', body), 422);
      expect(
        problem.errors.map((e: Json) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await json(await call('/v1/deals', { key }))).data).toHaveLength(0);
  });

  it("needs the write's own scope, as any single write", async () => {
    const { id, key } = await world();
    await create(key, '/v1/deals', { name: 'Onix', external_id: 'D-2' });
    const reader = await keyWith(id, ['tasks:read', 'deals:read']);
    const res = await post(reader, '/v1/tasks', {
      name: 'Ligar',
      category: 'Ligação',
      deal: { external_id: 'D-2' },
    });
    await expectProblem(res, 403);
  });

  it("the contract's relation keys are the ones the model finds records by", () => {
    for (const [target, keys] of Object.entries(relationKeys)) {
      const fields = naturalKeys[target as keyof typeof relationKeys].map((k) => k.field);
      expect(fields, target).toEqual([...keys]);
    }
  });
});

describe('batch: a create whose required relation comes by key', () => {
  it('creates a task with deal: { external_id } and no deal_id', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'Onix', external_id: 'D-3' });
    const res = await post(key, '/v1/tasks/batch', {
      items: [{ op: 'create', data: { name: 'Ligar', category: 'Ligação', deal: { external_id: 'D-3' } } }],
    });
    expect(res.status).toBe(200);
    expect((await json(res)).data[0]).toMatchObject({ status: 201, data: { deal_id: deal.id } });
  });
});
