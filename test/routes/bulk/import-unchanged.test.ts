import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../../cnpj';
import { accountsOnShard, create, newAccount } from '../../helpers';
import { runImport } from './import-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

let serial = 0;
const cnpj = () => withCheckDigits(`${42_000_000 + ++serial}0001`);

/** The account's journal entries and the versions of its records of `table`, as D1 holds them. */
async function written(accountId: number, table: string) {
  const entries = await env.DB.prepare('SELECT count(*) AS n FROM journal_entries WHERE account_id = ?')
    .bind(accountId)
    .first<{ n: number }>();
  const versions = await env.DB.prepare(
    `SELECT id, version, updated_at FROM ${table} WHERE account_id = ? ORDER BY id`,
  )
    .bind(accountId)
    .all();
  return { entries: entries?.n, versions: versions.results };
}

describe('counts.unchanged', () => {
  it('the same file again with upsert: every row unchanged, no journal entry, no new version', async () => {
    const { id, key } = await newAccount();
    await create(key, '/v1/users', { name: 'Dona', email: 'dona@u.example' });
    const [a, b] = [cnpj(), cnpj()];
    const file = `Razão social;CNPJ;Segmento;Responsável\nPadaria;${mask(a)};Pães;dona@u.example\nOficina;${b};;\n`;
    const first = await runImport(key, 'resource=companies', file);
    expect(first.counts).toEqual({ rows: 2, created: 2, updated: 0, unchanged: 0, failed: 0 });
    const before = await written(id, 'companies');
    const again = await runImport(key, 'resource=companies&mode=upsert', file);
    expect(again.counts).toEqual({ rows: 2, created: 0, updated: 0, unchanged: 2, failed: 0 });
    expect(await written(id, 'companies')).toEqual(before);
    const changed = await runImport(key, 'resource=companies', file.replace('Pães', 'Doces'));
    expect(changed.counts).toEqual({ rows: 2, created: 0, updated: 1, unchanged: 1, failed: 0 });
    const after = await written(id, 'companies');
    expect(after.entries).toBe((before.entries ?? 0) + 1);
    expect(after.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(after.versions[1]).toEqual(before.versions[1]);
  });

  it('tasks (a category, a completion and an owner written by statements of their own): unchanged too', async () => {
    const { id, key } = await newAccount();
    await create(key, '/v1/users', { name: 'Rui', email: 'rui@u.example' });
    await create(key, '/v1/deals', { name: 'Frota', external_id: 'D-9' });
    const file =
      'Tarefa,ID externo,Negócio (ID externo),Categoria,Concluída,Responsável,Data de vencimento\n' +
      'Ligar,T-1,D-9,Ligação,sim,rui@u.example,05/03/2027\nVisitar,T-2,D-9,Visita,não,,\n';
    expect((await runImport(key, 'resource=tasks', file)).counts).toMatchObject({ created: 2, failed: 0 });
    const before = await written(id, 'tasks');
    const upsert = await runImport(key, 'resource=tasks', file);
    expect(upsert.counts).toEqual({ rows: 2, created: 0, updated: 0, unchanged: 2, failed: 0 });
    expect(await written(id, 'tasks')).toEqual(before);
  });
});
