import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';

describe('migrations on a database that already holds data', () => {
  const db = env.MIGRATION_DB;

  // Rows written under the first schema, then every later migration at once.
  beforeAll(async () => {
    const [init] = env.TEST_MIGRATIONS;
    if (!init) throw new Error('no migrations');
    await applyD1Migrations(db, [init]);
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values (1, 'A', 0), (2, 'B', 0)"),
      db.prepare(
        "insert into users (id, account_id, name, name_norm, email, email_norm, created_at, updated_at) values (1, 1, 'U', 'u', 'u@x.co', 'u@x.co', 0, 0), (2, 2, 'V', 'v', 'v@x.co', 'v@x.co', 0, 0)",
      ),
      db.prepare(
        "insert into companies (id, account_id, name, name_norm, cnpj, created_at, updated_at) values (5, 1, 'Acme', 'acme', '11222333000181', 10, 20)",
      ),
      db.prepare(
        "insert into contacts (id, account_id, name, name_norm, company_id, created_at, updated_at) values (1, 1, 'C', 'c', 5, 0, 0)",
      ),
      db.prepare(
        "insert into deals (id, account_id, name, name_norm, company_id, created_at, updated_at) values (1, 1, 'D', 'd', 5, 0, 0)",
      ),
      // Written by clocks that disagreed: created_at out of id order within account 1.
      db.prepare(
        "insert into contacts (id, account_id, name, name_norm, created_at, updated_at) values (2, 1, 'K2', 'k2', 30, 30), (3, 1, 'K3', 'k3', 20, 20), (4, 2, 'K4', 'k4', 10, 10), (5, 1, 'K5', 'k5', 40, 40)",
      ),
    ]);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
  });

  it('0001 rebuilds companies, keeping their rows and the contacts and deals that point at them', async () => {
    // Later migrations may add columns; these are the ones 0001 must keep or add empty.
    const { results } = await db.prepare('select * from companies').all();
    expect(results).toEqual([
      expect.objectContaining({
        id: 5,
        account_id: 1,
        name: 'Acme',
        name_norm: 'acme',
        cnpj: '11222333000181',
        owner_id: null,
        segment: null,
        segment_norm: null,
        observations: null,
        created_at: 10,
        updated_at: 20,
      }),
    ]);
    expect((await db.prepare('pragma foreign_key_check').all()).results).toEqual([]);
    expect(
      await db
        .prepare('select company_id from contacts where id = 1 union all select company_id from deals')
        .raw(),
    ).toEqual([[5], [5]]);
    // The rebuilt table has the composite key: an owner of the same account is taken, one of
    // another account is refused by the database itself.
    await db.prepare('update companies set owner_id = 1 where id = 5').run();
    await expect(db.prepare('update companies set owner_id = 2 where id = 5').run()).rejects.toThrow(
      /FOREIGN KEY constraint failed/,
    );
  });

  it('the search migration indexes the rows already there, each under its account', async () => {
    const found = async (table: string, query: string) =>
      (
        await db.prepare(`select rowid from ${table} where ${table} match ? order by rowid`).bind(query).raw()
      ).flat();
    const row = (account: number, id: number) => account * 2 ** 32 + id;
    expect(await found('users_search', 'name_grams : "u\u001f\u001f"')).toEqual([row(1, 1)]);
    expect(await found('users_search', 'name_grams : "v\u001f\u001f"')).toEqual([row(2, 2)]);
    expect(await found('contacts_search', 'name_grams : "c\u001f\u001f"')).toEqual([row(1, 1)]);
    expect(await found('companies_search', 'name : "acme"')).toEqual([row(1, 5)]);
    expect(await found('companies_search', 'name_grams : "cm\u001f"')).toEqual([row(1, 5)]);
    expect(await found('companies_search', 'segment_grams : "a\u001f\u001f"')).toEqual([]);
  });

  it('0006 brings rows written out of id order into it, per account, and keeps them so', async () => {
    expect(
      await db.prepare('select id, account_id, created_at, updated_at from contacts order by id').raw(),
    ).toEqual([
      [1, 1, 0, 0],
      [2, 1, 30, 30],
      // Raised to the created_at of the lower id before it; updated_at is left as written.
      [3, 1, 30, 20],
      // Another account's rows do not count.
      [4, 2, 10, 10],
      [5, 1, 40, 40],
    ]);
    await expect(
      db
        .prepare(
          "insert into contacts (account_id, name, name_norm, created_at, updated_at) values (1, 'X', 'x', 39, 39)",
        )
        .run(),
    ).rejects.toThrow(/must be its account's newest/);
  });
});
