import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, call, create, json, newAccount } from '../helpers';
import { postImport } from '../routes/bulk/import-support';
import { page, signIn } from './browser';

/** The import page's file form (multipart, the page's Origin): the preview's HTML. */
async function preview(cookie: string, csv: string, resource: string) {
  const form = new FormData();
  form.append('file', new File([csv], 'planilha.csv', { type: 'text/csv' }));
  form.append('resource', resource);
  form.append('mode', 'create');
  const res = await exports.default.fetch(
    new Request(`${BASE}/panel/imports/preview`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: new URL(BASE).origin },
      body: form,
    }),
  );
  return page(res);
}

/** Each failed row's reason cell, by its line (a row written has none). */
function reasons(html: string): Record<number, string> {
  const out: Record<number, string> = {};
  for (const m of html.matchAll(
    /<td data-label="(?:Linha|Line)">(\d+)<\/td>[\s\S]*?<td data-label="(?:Motivo|Reason)">([^<]*)<\/td>/g,
  ))
    if (m[2]) out[Number(m[1])] = m[2];
  return out;
}

/** The same file's dry run through /v1: its rows, each failed one's English `reason` and `errors`. */
async function dryRun(key: string, csv: string, resource: string) {
  return (await json(await postImport(key, `resource=${resource}&mode=create&dry_run=true`, csv))).data;
}

const COMPANIES = [
  'Razão social;CNPJ;Código',
  'Cnpj inválido;12.345.678/0001-00;',
  'Outra Acme;11.222.333/0001-81;',
  'Mesmo código;33.444.555/0001-81;ERP-1',
  'Na lixeira;22.333.444/0001-81;',
  'Primeira;44.555.666/0001-81;',
  'Repetida;44.555.666/0001-81;',
].join('\n');

const CONTACTS = [
  'Nome;E-mail;Telefone;CNPJ da empresa',
  ';ana@x.example;;',
  'Bia;não-é-email;;',
  'Caio;;12;',
  'Duda;;;99.999.999/0001-91',
  `${'E'.repeat(300)};;;`,
  `F;;;${'9'.repeat(33 * 1024)}`,
  'Hugo;;;123',
  '"Gil;;;',
].join('\n');

const DEALS =
  'Negócio;Valor;E-mail do contato;Responsável\nN1;abc;;\nN2;10;não-é-email;\nN3;10;;zz@x.example\n';

const TASKS =
  'Tarefa;Data de vencimento;Negócio (ID externo)\nLigar;32/13/2026;\nVisitar;31/12/2026;NEG-404\n';

describe("the import page words each failed row's reasons in its language", () => {
  it('pt-BR: from the codes, each led by the column of the file, no English sentence', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181', external_id: 'ERP-1' });
    const trashed = await create(key, '/v1/companies', { name: 'Velha', cnpj: '22333444000181' });
    expect((await call(`/v1/companies/${trashed.id}`, { method: 'DELETE', key })).status).toBe(204);
    const cookie = await signIn(key);

    const companies = reasons(await preview(cookie, COMPANIES, 'companies'));
    expect(companies).toEqual({
      2: 'CNPJ: Deve ser um CNPJ válido: 14 caracteres, puros ou como XX.XXX.XXX/XXXX-XX, com dígitos verificadores certos.',
      3: 'CNPJ: Outra empresa desta conta já tem este CNPJ.',
      4: 'Código: Outra empresa desta conta já tem este ID externo.',
      5: 'CNPJ: Uma empresa na lixeira tem este CNPJ: restaure-a antes.',
      7: 'CNPJ: Outra linha deste arquivo tem este CNPJ também.',
    });
    const contacts = reasons(await preview(cookie, CONTACTS, 'contacts'));
    expect(contacts).toEqual({
      2: 'Nome: Este campo é obrigatório.',
      3: 'E-mail: Deve ser um e-mail válido.',
      4: 'Telefone: Deve ser um telefone brasileiro ou internacional (+DDI).',
      5: 'CNPJ da empresa: Nenhuma empresa desta conta tem este CNPJ.',
      6: 'Nome: Deve ter no máximo 255 caracteres.',
      7: 'A linha passa de 32 KiB: nenhuma célula dela foi lida.',
      8: 'CNPJ da empresa: Deve ser um CNPJ válido: 14 caracteres, puros ou como XX.XXX.XXX/XXXX-XX, com dígitos verificadores certos.',
      9: 'Uma célula abre aspas e não as fecha até o fim do arquivo.',
    });
    const deals = reasons(await preview(cookie, DEALS, 'deals'));
    expect(deals).toEqual({
      2: 'Valor: Deve ser um número, como 1.234,56 ou 1234.56.',
      3: 'E-mail do contato: Nenhum contato desta conta tem este e-mail.',
      4: 'Responsável: Nenhum usuário desta conta tem este e-mail.',
    });
    const tasks = reasons(await preview(cookie, TASKS, 'tasks'));
    expect(tasks).toEqual({
      2: 'Data de vencimento: Deve ser uma data como 31/12/2026 (DD/MM/AAAA, com HH:MM se quiser) ou ISO 8601 com fuso.',
      3: 'Negócio (ID externo): Nenhum negócio desta conta tem este ID externo.',
    });
    // /v1's dry run gives each failed row's errors as codes; none of their English is on the page.
    for (const [csv, resource, shown] of [
      [COMPANIES, 'companies', companies],
      [CONTACTS, 'contacts', contacts],
      [TASKS, 'tasks', tasks],
      [DEALS, 'deals', deals],
    ] as const) {
      const { rows } = await dryRun(key, csv, resource);
      const failed = rows.filter((r: { action: string }) => r.action === 'fail');
      expect(failed.map((r: { line: number }) => r.line)).toEqual(Object.keys(shown).map(Number));
      for (const row of failed) {
        expect(row.errors.length, row.reason).toBeGreaterThan(0);
        for (const e of row.errors) {
          expect(e.code, row.reason).toMatch(/^[a-z_]+$/);
          for (const text of Object.values(shown)) expect(text).not.toContain(e.message);
        }
      }
    }
  });

  it('English: the same codes in English words, led by the same columns', async () => {
    const { key } = await newAccount();
    await create(key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181', external_id: 'ERP-1' });
    const cookie = `${await signIn(key)}; lang=en`;
    expect(reasons(await preview(cookie, COMPANIES, 'companies'))).toMatchObject({
      2: 'CNPJ: Expected a valid CNPJ: 14 characters, bare or as XX.XXX.XXX/XXXX-XX, with valid check digits.',
      3: 'CNPJ: Another company of this account has this CNPJ.',
      4: 'Código: Another company of this account has this external ID.',
      7: 'CNPJ: Another row of this file has this CNPJ too.',
    });
    expect(reasons(await preview(cookie, CONTACTS, 'contacts'))).toEqual({
      2: 'Nome: This field is required.',
      3: 'E-mail: Expected a valid email address.',
      4: 'Telefone: Expected a phone number.',
      5: 'CNPJ da empresa: No company of this account has this CNPJ.',
      6: 'Nome: Must be at most 255 characters.',
      7: 'The row is over 32 KiB: none of its cells was read.',
      8: 'CNPJ da empresa: Expected a valid CNPJ: 14 characters, bare or as XX.XXX.XXX/XXXX-XX, with valid check digits.',
      9: 'A cell opens a quote that is not closed before the end of the file.',
    });
    expect(reasons(await preview(cookie, TASKS, 'tasks'))[2]).toBe(
      'Data de vencimento: Expected a date such as 31/12/2026 (DD/MM/YYYY, with HH:MM if you like) or ISO 8601 with an offset.',
    );
  });
});
