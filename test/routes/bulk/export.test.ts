import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../../cnpj';
import { call, create, expectProblem, keyWith, newAccount } from '../../helpers';

let serial = 0;
const cnpj = () => withCheckDigits(`${33_000_000 + ++serial}0001`);

const exported = async (key: string, path: string) => {
  const res = await call(path, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
  return res.text();
};

describe('GET /v1/{resource}/export', () => {
  it('CSV of what the filters select, with relations by natural key and formula cells escaped', async () => {
    const { key } = await newAccount();
    const other = await newAccount('Other');
    await create(other.key, '/v1/companies', { name: 'Not mine', cnpj: cnpj() });
    const owner = await create(key, '/v1/users', { name: 'Ana', email: 'ana@example.com' });
    const taxId = cnpj();
    const company = await create(key, '/v1/companies', {
      name: '=HYPERLINK("http://evil")',
      cnpj: taxId,
      owner_id: owner.id,
      segment: 'Frota',
      observations: 'linha 1\nlinha 2; "aspas", fim',
    });
    await create(key, '/v1/companies', { name: '@SUM(A1)', cnpj: cnpj(), segment: 'Varejo' });
    await create(key, '/v1/contacts', {
      name: '-Bruno',
      email: 'b@example.com',
      phone: '(11) 98765-4321',
      company_id: company.id,
    });

    const csv = await exported(key, '/v1/companies/export?segment=frota');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'id,name,cnpj,owner_id,segment,observations,follower_ids,deal_count,lead_count,external_id,created_at,updated_at,deleted_at,owner_email',
    );
    expect(csv).toContain(
      `"'=HYPERLINK(""http://evil"")",${taxId},${owner.id},Frota,"linha 1\nlinha 2; ""aspas"", fim"`,
    );
    expect(csv).toContain(',ana@example.com\r\n');
    expect(csv).not.toContain('SUM');
    expect(csv).not.toContain('Not mine');

    const contacts = await exported(key, '/v1/contacts/export');
    expect(contacts.split('\r\n')[0]).toMatch(/,company_cnpj,owner_email$/);
    expect(contacts).toContain(`'-Bruno,b@example.com,'+5511987654321,`);
    expect(contacts).toMatch(new RegExp(`,${taxId},\r\n`));
  });

  it('?format=excel: a BOM, semicolons, DD/MM/YYYY and decimal commas', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'Onix; LT', value: 1234.56 });
    const res = await call('/v1/deals/export?format=excel', { key });
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, row] = new TextDecoder().decode(bytes).split('\r\n');
    expect(header?.startsWith('id;name;company_id;')).toBe(true);
    const day = deal.created_at.slice(0, 10).split('-').reverse().join('/');
    expect(row).toContain(`${deal.id};"Onix; LT";;;;open;1234,56;{}`);
    expect(row).toContain(`;${day} `);
  });

  it('walks every page: 501 rows, each once, in the sort asked', async () => {
    const { key } = await newAccount();
    for (let b = 0; b < 5; b++) {
      const items = Array.from({ length: 100 }, (_, i) => ({
        op: 'create',
        data: { name: `C${b * 100 + i}` },
      }));
      expect((await call('/v1/contacts/batch', { method: 'POST', key, body: { items } })).status).toBe(200);
    }
    await create(key, '/v1/contacts', { name: 'Last' });
    const csv = await exported(key, '/v1/contacts/export?sort=created_at');
    const ids = csv
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
    expect(ids).toHaveLength(501);
    expect(new Set(ids).size).toBe(501);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it("needs <resource>:read; a bad filter is the list's 400", async () => {
    const { id, key } = await newAccount();
    const writer = await keyWith(id, ['companies:insert']);
    const refused = await expectProblem(await call('/v1/companies/export', { key: writer }), 403);
    expect(refused.required_scope).toBe('companies:read');
    await expectProblem(await call('/v1/companies/export?nope=1', { key }), 400);
    await expectProblem(await call('/v1/companies/export?format=xlsx', { key }), 400);
  });
});
