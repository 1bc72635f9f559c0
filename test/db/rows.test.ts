import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client';
import { D1Meter } from '../../src/db/meter';
import { view } from '../../src/db/own';
import { companies, deals, tasks } from '../../src/db/schema';
import { companySpec } from '../../src/model/companies';
import { taskSpec } from '../../src/model/tasks';
import { accountsOnShard, create, newAccount, newUser } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

describe("a batch's rows", () => {
  it("come out exactly as Drizzle's own mapping gives them: columns, counts, decoded lists, nulls", async () => {
    const { key, id: accountId } = await newAccount();
    const user = await newUser(key, 'Rita');
    await create(key, '/v1/companies', {
      name: 'Acme Ltda',
      cnpj: '11.222.333/0001-81',
      follower_ids: [user.id],
    });
    await create(key, '/v1/companies', { name: 'Beta', cnpj: '11.444.777/0001-61', segment: 'Varejo' });
    const deal = await create(key, '/v1/deals', {
      name: 'Negócio',
      value: 10,
      custom_fields: { origem: 'site', nota: 3 },
    });
    await create(key, '/v1/tasks', {
      deal_id: deal.id,
      name: 'Ligar',
      category: 'Ligação',
      owner_id: user.id,
    });
    const mine = (table: typeof companies | typeof tasks | typeof deals) =>
      sql`${table.accountId} = ${accountId}`;
    const read = (db: ReturnType<typeof createDb>) =>
      db.batch([
        view(db, companies, companySpec.extras, mine(companies)),
        view(db, tasks, taskSpec.extras, mine(tasks)),
        view(db, deals, undefined, mine(deals)),
      ]);
    const ours = await read(createDb(env.DB.withSession('first-primary'), new D1Meter()));
    const drizzles = await read(drizzle(env.DB) as unknown as ReturnType<typeof createDb>);
    expect(ours).toEqual(drizzles);
    expect(ours[0]).toHaveLength(2);
    expect(ours[0][0]).toMatchObject({ followerIds: [user.id], segment: null });
    expect(ours[1][0]).toMatchObject({ ownerIds: [user.id], completedAt: null });
    expect(ours[2][0]).toMatchObject({ customFields: { origem: 'site', nota: 3 }, deletedAt: null });
  });
});
