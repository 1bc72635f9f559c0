import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mask, withCheckDigits } from '../../cnpj';
import { accountsOnShard, call, create, expectProblem, json, keyWith, newAccount } from '../../helpers';
import { deliverChunk, importRow, postImport, runImport, storedFiles } from './import-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

let serial = 0;
const cnpj = () => withCheckDigits(`${43_000_000 + ++serial}0001`);

describe('imports: tenants, scopes, redelivery, attacks', () => {
  it("an import of account A is a 404 to account B; B's natural keys never resolve for A", async () => {
    const a = await newAccount('A');
    const b = await newAccount('B');
    const theirs = cnpj();
    await create(b.key, '/v1/companies', { name: 'De B', cnpj: theirs });
    const done = await runImport(
      a.key,
      'resource=contacts',
      `name,email,company_cnpj\nAna,ana@a.example,${mask(theirs)}\n`,
    );
    expect(done.counts).toMatchObject({ rows: 1, created: 0, failed: 1 });
    const errors = await (await call(`/v1/imports/${done.id}/errors.csv`, { key: a.key })).text();
    expect(errors).toContain('company.cnpj: No company of this account has this cnpj.');
    for (const [method, path] of [
      ['GET', `/v1/imports/${done.id}`],
      ['GET', `/v1/imports/${done.id}/errors.csv`],
      ['POST', `/v1/imports/${done.id}/cancel`],
    ] as const) {
      await expectProblem(await call(path, { method, key: b.key }), 404, 'not_found');
    }
  });

  it("needs the resource's scopes for the mode, and answers 415 for a body that is not CSV", async () => {
    const { id } = await newAccount();
    const insertOnly = await keyWith(id, ['companies:insert']);
    const res = await postImport(insertOnly, 'resource=companies', `name,cnpj\nX,${cnpj()}\n`);
    const problem = await expectProblem(res, 403, 'insufficient_scope');
    expect(problem.required_scope).toBe('companies:update');
    expect(
      (await postImport(insertOnly, 'resource=companies&mode=create', `name,cnpj\nX,${cnpj()}\n`)).status,
    ).toBe(202);
    await expectProblem(
      await postImport(insertOnly, 'resource=companies&mode=create', '{}', 'application/json'),
      415,
    );
    const empty = await postImport(insertOnly, 'resource=companies&mode=create', '');
    expect(empty.status, await empty.clone().text()).toBe(422);
  });

  it('a redelivered chunk writes nothing twice', async () => {
    const { key } = await newAccount();
    const file = `name,email\nAna,ana@x.example\nBia,bia@x.example\n`;
    const done = await runImport(key, 'resource=contacts&mode=create', file);
    expect(done.counts).toMatchObject({ rows: 2, created: 2 });
    const row = await importRow(done.id);
    // The file as it was, and the first chunk's message again.
    await env.IMPORT_FILES.put(row.file_key, file);
    const result = await deliverChunk({
      kind: 'import_chunk',
      import_id: done.id,
      key_hash: row.key_hash,
      resource: 'contacts',
      mode: 'create',
      file_key: row.file_key,
      delimiter: ',',
      mapping: JSON.parse(row.mapping),
      offset: 'name,email\n'.length,
      line: 2,
    });
    expect(result.explicitAcks).toEqual(['redelivered']);
    expect((await json(await call('/v1/contacts', { key }))).data).toHaveLength(2);
    expect((await json(await call(`/v1/imports/${done.id}`, { key }))).data.counts).toMatchObject({
      rows: 2,
      created: 2,
    });
    expect(await env.IMPORT_FILES.head(row.file_key)).toBeNull();
  });

  it('__proto__ and constructor headers are ignored; formula cells come back escaped in errors.csv', async () => {
    const { id, key } = await newAccount();
    const file = `__proto__,constructor,name,email\n{"x":1},y,=HYPERLINK("http://evil"),not-an-email\n`;
    const done = await runImport(key, 'resource=contacts', file);
    expect(done.ignored_columns).toEqual(['__proto__', 'constructor']);
    expect(done.counts).toMatchObject({ rows: 1, failed: 1 });
    const errors = await (await call(`/v1/imports/${done.id}/errors.csv`, { key })).text();
    expect(errors.split('\r\n')[1]).toMatch(
      /^2,"\{""x"":1\}",y,"'=HYPERLINK\(""http:\/\/evil""\)",not-an-email,email: /,
    );
    expect(await storedFiles(id)).toBe(0);
  });
});

describe('Idempotency-Key on an import', () => {
  it('a retry answers the first import and starts no second one', async () => {
    const { id, key } = await newAccount();
    const file = `name,email\nAna,ana@idem.example\n`;
    const send = () => postImport(key, 'resource=contacts', file, 'text/csv', { 'Idempotency-Key': 'imp-1' });
    const first = await send();
    expect(first.status, await first.clone().text()).toBe(202);
    // A 409 while the first answer is being stored (off the response's path); then its replay.
    let again = await send();
    for (let i = 0; again.status === 409 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await send();
    }
    const ids = [(await json(first)).data.id, (await json(again)).data.id];
    expect([...ids, again.headers.get('Idempotent-Replayed')]).toEqual([ids[0], ids[0], 'true']);
    const n = await env.DB.prepare('SELECT count(*) AS n FROM imports WHERE account_id = ?')
      .bind(id)
      .first<{ n: number }>();
    expect(n?.n).toBe(1);
  });
});

describe('dry_run=true', () => {
  it('answers 200 with how the first 100 rows would be written, and writes nothing', async () => {
    const { id, key } = await newAccount();
    const known = cnpj();
    await create(key, '/v1/companies', { name: 'Já existe', cnpj: known });
    const rows = Array.from({ length: 150 }, (_, i) => `Nova ${i};${cnpj()}`);
    const file = `Razão social;CNPJ;Extra\nNovo nome;${mask(known)};x\n;${cnpj()}\n${rows.join('\n')}\n`;
    const res = await postImport(key, 'resource=companies&dry_run=true', file);
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.ignored_columns).toEqual(['Extra']);
    expect(data.rows).toHaveLength(100);
    expect(data.rows.slice(0, 3)).toEqual([
      { line: 2, action: 'update' },
      {
        line: 3,
        action: 'fail',
        reason: 'name: This field is required.',
        // The reason as data, for words in another language (the panel's import page).
        errors: [{ path: 'name', code: 'required', message: 'This field is required.', params: {} }],
      },
      { line: 4, action: 'create' },
    ]);
    const companies = (await json(await call('/v1/companies', { key }))).data;
    expect(companies.map((c: { name: string }) => c.name)).toEqual(['Já existe']);
    const imports = await env.DB.prepare('SELECT count(*) AS n FROM imports WHERE account_id = ?')
      .bind(id)
      .first<{ n: number }>();
    expect(imports?.n).toBe(0);
    expect(await storedFiles(id)).toBe(0);
  });
});

describe('POST /v1/imports/{id}/cancel', () => {
  it('stops the import: its file deleted, every row written counted, nothing after', async () => {
    const { id, key } = await newAccount();
    const rows = Array.from({ length: 5_000 }, (_, i) => `P ${i},c${i}@cancel.example`);
    const res = await postImport(key, 'resource=contacts&mode=create', `name,email\n${rows.join('\n')}\n`);
    const started = (await json(res)).data;
    const cancelled = await json(await call(`/v1/imports/${started.id}/cancel`, { method: 'POST', key }));
    expect(cancelled.data).toMatchObject({ status: 'cancelled', finished_at: expect.any(String) });
    expect(await storedFiles(id)).toBe(0);
    const now = (await json(await call(`/v1/imports/${started.id}`, { key }))).data;
    expect(now.status).toBe('cancelled');
    expect(now.counts.rows).toBeLessThan(5_000);
    const written = await env.DB.prepare('SELECT count(*) AS n FROM contacts WHERE account_id = ?')
      .bind(id)
      .first<{ n: number }>();
    expect(written?.n).toBe(now.counts.created);
    // Cancelling again answers the import as it ended.
    const again = await call(`/v1/imports/${started.id}/cancel`, { method: 'POST', key });
    expect((await json(again)).data.status).toBe('cancelled');
  });
});
