import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../../cnpj';
import { call, create, type Json, json, newAccount } from '../../helpers';
import { cp1252, runImport, storedFiles } from './import-support';

let serial = 0;
const cnpj = () => withCheckDigits(`${41_000_000 + ++serial}0001`);

describe('POST /v1/imports', () => {
  it('a Windows-1252 file with ; and DD/MM/YYYY, pt-BR labels, masks and an extra column', async () => {
    const { id: accountId, key } = await newAccount();
    const a = cnpj();
    const companies = cp1252(
      `Razão social;CNPJ;Segmento;Observações;Coluna extra\r\nPadaria São João;${mask(a)};Alimentação;"linha 1\r\nlinha 2";x\r\n\r\n`,
    );
    const done = await runImport(key, 'resource=companies', companies);
    expect(done).toMatchObject({
      status: 'completed',
      counts: { rows: 1, created: 1, updated: 0, failed: 0 },
    });
    expect(done.ignored_columns).toEqual(['Coluna extra']);
    const [company] = (await json(await call(`/v1/companies?cnpj=${a}`, { key }))).data;
    expect(company).toMatchObject({
      name: 'Padaria São João',
      segment: 'Alimentação',
      observations: 'linha 1\r\nlinha 2',
    });
    const deal = await create(key, '/v1/deals', { name: 'Pão', external_id: 'D-1', company_id: company.id });
    const tasks = cp1252(
      'Tarefa;Data de vencimento;Negócio (ID externo);Categoria\r\nLigar para João;05/03/2027;D-1;Ligação\r\n',
    );
    const t = await runImport(key, 'resource=tasks', tasks);
    expect(t.counts.failed, await (await call(`/v1/imports/${t.id}/errors.csv`, { key })).text()).toBe(0);
    expect(t).toMatchObject({ status: 'completed', counts: { created: 1, failed: 0 } });
    const [task] = (await json(await call(`/v1/tasks?deal_id=${deal.id}`, { key }))).data;
    expect(task.name).toBe('Ligar para João');
    expect(task.due_date.startsWith('2027-03-0')).toBe(true);
    expect(await storedFiles(accountId)).toBe(0);
  });
});

describe('imports at size, and back from an export', () => {
  // 10,000 rows (100 chunks) took 15 s alone and over 30 s beside the rest of the suite on 2
  // shared cores (docs/import-export.md#figures): the suite runs 2,000 (20 chunks), the same path.
  it('a file with 1 bad row in 2,000 imports 1,999; errors.csv names the bad one', async () => {
    const { id, key } = await newAccount();
    const rows = Array.from({ length: 2_000 }, (_, i) =>
      i === 1234 ? `Ruim ${i},não-é-email` : `Pessoa ${i},p${i}@big.example`,
    );
    const done = await runImport(key, 'resource=contacts&mode=create', `Nome,E-mail\n${rows.join('\n')}\n`);
    expect(done).toMatchObject({ status: 'completed', counts: { rows: 2_000, created: 1_999, failed: 1 } });
    const errors = (await (await call(`/v1/imports/${done.id}/errors.csv`, { key })).text()).split('\r\n');
    expect(errors[0]).toBe('line,Nome,E-mail,error');
    expect(errors[1]).toMatch(/^1236,Ruim 1234,não-é-email,email: /);
    expect(errors).toHaveLength(3);
    expect(await storedFiles(id)).toBe(0);
  });

  it('a whole CRM, file after file: companies, contacts by CNPJ, deals by CNPJ and email, tasks by deal', async () => {
    const { key } = await newAccount();
    const c = cnpj();
    await runImport(key, 'resource=companies', `Razão social;CNPJ\nAuto Lima;${mask(c)}\n`);
    await runImport(key, 'resource=contacts', `Nome;E-mail;CNPJ\nAna;ana@lima.example;${c}\n`);
    const deals = await runImport(
      key,
      'resource=deals',
      `Nome,external_id,CNPJ da empresa,E-mail do contato\nOnix,D-1,${mask(c)},ANA@lima.example\n`,
    );
    expect(deals.counts).toMatchObject({ created: 1, failed: 0 });
    const tasks = await runImport(
      key,
      'resource=tasks',
      'Nome;Categoria;Negócio (ID externo);Data de vencimento\nLigar;Ligação;D-1;15/03/2027\n',
    );
    expect(tasks.counts).toMatchObject({ created: 1, failed: 0 });
    const [company] = (await json(await call('/v1/companies', { key }))).data;
    const [contact] = (await json(await call('/v1/contacts', { key }))).data;
    const [deal] = (await json(await call('/v1/deals', { key }))).data;
    const [task] = (await json(await call('/v1/tasks', { key }))).data;
    expect(contact).toMatchObject({ name: 'Ana', company_id: company.id });
    expect(deal).toMatchObject({ name: 'Onix', company_id: company.id, contact_id: contact.id });
    expect(task).toMatchObject({ name: 'Ligar', deal_id: deal.id, category: 'Ligação' });
  });

  it('import, export, re-import with upsert: the same records, none added', async () => {
    const { key } = await newAccount();
    const owner = await create(key, '/v1/users', { name: 'Dona', email: 'dona@x.example' });
    const c = cnpj();
    await runImport(
      key,
      'resource=companies',
      `Razão social,CNPJ,Responsável\n"Auto, Lima",${mask(c)},dona@x.example\n`,
    );
    const contacts = `Nome;Telefone;E-mail;CNPJ\nAna;(11) 98765-4321;ana@x.example;${c}\n"Bia ""B""";;bia@x.example;\n`;
    const first = await runImport(key, 'resource=contacts', contacts);
    expect(first.counts).toMatchObject({ created: 2, failed: 0 });
    const before = (await json(await call('/v1/contacts?sort=name', { key }))).data;
    expect(before[0]).toMatchObject({ name: 'Ana', phone: '+5511987654321', company_id: expect.any(Number) });
    for (const resource of ['companies', 'contacts']) {
      const exported = await (await call(`/v1/${resource}/export?format=excel`, { key })).text();
      const again = await runImport(key, `resource=${resource}`, exported);
      expect(again, resource).toMatchObject({ status: 'completed', counts: { created: 0, failed: 0 } });
    }
    const after = (await json(await call('/v1/contacts?sort=name', { key }))).data;
    const stable = (rows: Json[]) => rows.map(({ updated_at: _, ...rest }) => rest);
    expect(stable(after)).toEqual(stable(before));
    const [company] = (await json(await call('/v1/companies', { key }))).data;
    expect(company).toMatchObject({ name: 'Auto, Lima', owner_id: owner.id });
  });
});
