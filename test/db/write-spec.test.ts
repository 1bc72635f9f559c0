import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/auth/secrets';
import { createDb } from '../../src/db/client';
import { uniqueField } from '../../src/db/errors';
import { replaceLinks } from '../../src/db/links';
import { D1Meter } from '../../src/db/meter';
import { createOwn } from '../../src/db/own';
import { companies, taskCategories, tasks, users } from '../../src/db/schema';
import { taskSpec } from '../../src/model/tasks';
import {
  accountsOnShard,
  accountWithDeal,
  call,
  create,
  expectProblem,
  newAccount,
  newUser,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const db = () => createDb(env.DB.withSession('first-primary'), new D1Meter());

describe("a create's children", () => {
  it('name the new row, however many rows the batch inserted elsewhere before them', async () => {
    const { key, dealId } = await accountWithDeal();
    const owner = await newUser(key, 'Rita');
    const ids: unknown[] = [];
    const spec: typeof taskSpec = {
      ...taskSpec,
      children: (db, _body, accountId, id) => {
        ids.push(id);
        return [
          // Another table's insert after the task's: last_insert_rowid() is no longer the task.
          db.insert(taskCategories).values({ accountId, name: 'Outra', nameNorm: 'outra', createdAt: 1 }),
          ...replaceLinks(db, 'owners', accountId, id, [owner.id]),
        ];
      },
    };
    const row = await createOwn(db(), await sha256Hex(key), spec, {
      deal_id: dealId,
      name: 'Ligar',
      category: 'Ligação',
      owner_id: owner.id,
    });
    expect(row.ownerIds).toEqual([owner.id]);
    // On create the id is SQL naming the inserted row, not a number the spec must find itself.
    expect(typeof ids[0]).not.toBe('number');
  });
});

describe("a unique index's 409", () => {
  it('names the field of the index SQLite reports, from its name in the schema', () => {
    const failed = (columns: string) =>
      new Error('D1_ERROR', { cause: new Error(`UNIQUE constraint failed: ${columns}`) });
    expect(uniqueField(failed('users.account_id, users.email_norm'), users)).toBe('email');
    expect(uniqueField(failed('companies.account_id, companies.cnpj'), companies)).toBe('cnpj');
    // Another table's index, or columns no unique index of the table covers: no field to name.
    expect(
      uniqueField(failed('task_categories.account_id, task_categories.name_norm'), tasks),
    ).toBeUndefined();
    expect(uniqueField(failed('companies.cnpj'), companies)).toBeUndefined();
    expect(uniqueField(new Error('NOT NULL constraint failed: users.name'), users)).toBeUndefined();
  });

  it('is the body field on a taken CNPJ or email, as D1 reports it', async () => {
    const { key } = await newAccount();
    const cnpj = '11.222.333/0001-81';
    await create(key, '/v1/companies', { name: 'Acme', cnpj });
    const company = await expectProblem(
      await call('/v1/companies', { method: 'POST', key, body: { name: 'Outra', cnpj } }),
      409,
      'conflict',
    );
    expect(company.errors).toEqual([
      { path: 'cnpj', code: 'taken', message: 'Another record of this account has this cnpj.' },
    ]);
    const user = await newUser(key, 'Rita');
    const taken = await expectProblem(
      await call('/v1/users', {
        method: 'POST',
        key,
        body: { name: 'Rita 2', email: user.email.toUpperCase() },
      }),
      409,
      'conflict',
    );
    expect(taken.errors).toEqual([
      { path: 'email', code: 'taken', message: 'Another record of this account has this email.' },
    ]);
  });
});
