import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../../cnpj';
import { call, create, json, newAccount } from '../../helpers';
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
