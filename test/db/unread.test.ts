import { env } from 'cloudflare:workers';
import { getTableName, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { D1Meter } from '../../src/db/meter';
import { view } from '../../src/db/own';
import { companies, contacts, deals, type TenantTable, tasks } from '../../src/db/schema';
import { companySpec, presentCompany } from '../../src/model/companies';
import { contactSpec, presentContact } from '../../src/model/contacts';
import { dealSpec, presentDeal } from '../../src/model/deals';
import { presentTask, taskSpec } from '../../src/model/tasks';
import { accountsOnShard, create, newAccount, newUser } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

type Row = Record<string, unknown>;

/** Each resource whose list and get leave columns out, with its presenter. */
const resources = [
  { table: companies, spec: companySpec, present: presentCompany as (row: never) => unknown },
  { table: tasks, spec: taskSpec, present: presentTask as (row: never) => unknown },
  { table: deals, spec: dealSpec, present: presentDeal as (row: never) => unknown },
  { table: contacts, spec: contactSpec, present: presentContact as (row: never) => unknown },
];

describe('columns a list and a get leave out', () => {
  it('are read by no presenter: its answer from the whole row and from the row without them is the same', async () => {
    const { key, id: accountId } = await newAccount();
    const user = await newUser(key, 'Rita');
    await create(key, '/v1/companies', {
      name: 'Acme Ltda',
      cnpj: '11.222.333/0001-81',
      segment: 'Varejo',
      follower_ids: [user.id],
    });
    const deal = await create(key, '/v1/deals', { name: 'Negócio', value: 10, custom_fields: { a: 1 } });
    await create(key, '/v1/contacts', {
      name: 'Ana Souza',
      email: 'Ana@Example.com',
      phone: '+55 11 98765-4321',
      custom_fields: { origem: 'site' },
    });
    await create(key, '/v1/tasks', {
      deal_id: deal.id,
      name: 'Ligar',
      category: 'Ligação',
      owner_id: user.id,
    });
    const db = createDb(env.DB.withSession('first-primary'), new D1Meter());
    for (const { table, spec, present } of resources) {
      const t: TenantTable = table;
      const [row] = (
        await db.batch([view(db, t, spec.extras, sql`${t.accountId} = ${accountId}`)])
      )[0] as Row[];
      expect(row, getTableName(table)).toBeDefined();
      const unread = spec.unread ?? [];
      expect(unread.length).toBeGreaterThan(0);
      const without = Object.fromEntries(
        Object.entries(row as Row).filter(([k]) => !unread.includes(k as never)),
      );
      expect(present(without as never)).toEqual(present(row as never));
    }
  });
});
