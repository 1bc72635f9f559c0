import { describe, expect, it } from 'vitest';
import { withCheckDigits } from '../cnpj';
import { create, newAccount, newKey } from '../helpers';
import { page, panel, signIn } from './browser';

describe("the export buttons of the panel's lists", () => {
  it("a company's lists link their /v1 export, run with the session's key and the list's filter", async () => {
    const { key } = await newAccount();
    const company = await create(key, '/v1/companies', {
      name: 'Auto Lima',
      cnpj: withCheckDigits('430000010001'),
    });
    const other = await create(key, '/v1/companies', {
      name: 'Outra',
      cnpj: withCheckDigits('430000020001'),
    });
    await create(key, '/v1/deals', { name: '=Onix LT', company_id: company.id, value: 1234.5 });
    await create(key, '/v1/deals', { name: 'Não listado', company_id: other.id });
    await create(key, '/v1/contacts', { name: 'Ana', company_id: company.id });
    const cookie = await signIn(key);
    const html = await page(await panel(`/panel/companies/${company.id}`, { cookie }));
    expect(html).toContain(`href="/panel/export/deals?company_id=${company.id}"`);
    expect(html).toContain(`href="/panel/export/deals?company_id=${company.id}&amp;format=excel"`);
    expect(html).toContain(`href="/panel/export/contacts?company_id=${company.id}"`);
    expect(html).toContain('Exportar para Excel');

    const csv = await panel(`/panel/export/deals?company_id=${company.id}`, { cookie });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('Content-Type')).toContain('text/csv');
    expect(csv.headers.get('Content-Disposition')).toContain('deals.csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("'=Onix LT");
    const excel = await panel(`/panel/export/deals?company_id=${company.id}&format=excel`, { cookie });
    const bytes = new Uint8Array(await excel.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toContain('1234,5');
  });

  it('a bad filter is a page, a key without the scope a 403 page, no session goes to sign in', async () => {
    const account = await newAccount();
    const cookie = await signIn(account.key);
    expect(await page(await panel('/panel/export/deals?company_id=abc', { cookie }), 400)).toContain('<html');
    const companiesOnly = await signIn((await newKey(account.id, ['companies:read'])).key);
    expect(await page(await panel('/panel/export/deals', { cookie: companiesOnly }), 403)).toContain(
      'deals:read',
    );
    expect((await panel('/panel/export/companies', { cookie: companiesOnly })).status).toBe(200);
    const anonymous = await panel('/panel/export/deals');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('Location')).toBe('/panel/sign-in');
  });
});
