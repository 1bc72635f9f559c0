import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { emptyMigrationDb } from '../helpers';

// Account 3, written just before 0010: two rows in every table with an id (the second, the
// table's highest id, has nothing pointing at it), and a row in every link table.
const BEFORE_0010 = [
  "insert into accounts (id, name, created_at) values (3, 'C', 0), (4, 'D', 0)",
  "insert into api_keys (id, account_id, key_hash, created_at) values (10, 3, 'h10', 0), (11, 3, 'h11', 0)",
  "insert into panel_sessions (id, token_hash, account_id, api_key_id, created_at, expires_at) values (10, 't10', 3, 10, 0, 9), (11, 't11', 3, 10, 0, 9)",
  "insert into users (id, account_id, name, name_norm, email, email_norm, created_at, updated_at) values (10, 3, 'Bia', 'bia', 'b@x.co', 'b@x.co', 0, 0), (11, 3, 'Dora', 'dora', 'd@x.co', 'd@x.co', 1, 1)",
  "insert into companies (id, account_id, name, name_norm, cnpj, owner_id, created_at, updated_at) values (10, 3, 'Borracharia', 'borracharia', '11222333000181', 10, 0, 0), (11, 3, 'Cantina', 'cantina', '12345678000195', null, 1, 1)",
  'insert into company_followers (account_id, company_id, user_id) values (3, 10, 10)',
  "insert into contacts (id, account_id, name, name_norm, company_id, owner_id, created_at, updated_at) values (10, 3, 'Wagner', 'wagner', 10, 10, 0, 0), (11, 3, 'Xenia', 'xenia', null, null, 1, 1)",
  "insert into deals (id, account_id, name, name_norm, contact_id, company_id, owner_id, created_at, updated_at) values (10, 3, 'Yate', 'yate', 10, 10, 10, 0, 0), (11, 3, 'Zepelim', 'zepelim', null, null, null, 1, 1)",
  "insert into task_categories (id, account_id, name, name_norm, created_at) values (10, 3, 'Ligar', 'ligar', 0), (11, 3, 'Visitar', 'visitar', 0)",
  "insert into tasks (id, account_id, name, deal_id, category_id, created_at, updated_at) values (10, 3, 'T10', 10, 10, 0, 0), (11, 3, 'T11', 10, 10, 1, 1)",
  'insert into task_owners (account_id, task_id, user_id) values (3, 10, 10)',
  "insert into inbound_webhooks (id, account_id, name, token, fields, flows, created_at, updated_at) values (10, 3, 'W10', 'tok10', '[]', '[]', 0, 0), (11, 3, 'W11', 'tok11', '[]', '[]', 1, 1)",
  "insert into inbound_events (id, account_id, webhook_id, mode, payload, headers, received_at, queued_at) values (10, 3, 10, 'production', '{}', '{}', 0, 0), (11, 3, 10, 'production', '{}', '{}', 1, 1)",
  'insert into inbound_event_results (event_id, account_id, contact_id, company_id, deal_id) values (10, 3, 10, 10, 10)',
  'insert into webhook_rotations (account_id, webhook_id, action, turns) values (3, 10, 0, 2)',
  "insert into idempotency_keys (account_id, key, request_hash, created_at) values (3, 'k', 'h', 0)",
];

/** Each table whose rows have an `id` (its rowid), and a new row for it in account 3. */
const NEW_ROWS: Record<string, string> = {
  accounts: "insert into accounts (name, created_at) values ('N', 0)",
  api_keys: "insert into api_keys (account_id, key_hash, created_at) values (3, 'new', 0)",
  panel_sessions:
    "insert into panel_sessions (token_hash, account_id, api_key_id, created_at, expires_at) values ('new', 3, 10, 0, 9)",
  users:
    "insert into users (account_id, name, name_norm, email, email_norm, created_at, updated_at) values (3, 'Nina', 'nina', 'n@x.co', 'n@x.co', 5, 5)",
  companies:
    "insert into companies (account_id, name, name_norm, cnpj, created_at, updated_at) values (3, 'Nova', 'nova', '11444777000161', 5, 5)",
  contacts:
    "insert into contacts (account_id, name, name_norm, created_at, updated_at) values (3, 'Noemia', 'noemia', 5, 5)",
  deals: "insert into deals (account_id, name, name_norm, created_at, updated_at) values (3, 'N', 'n', 5, 5)",
  task_categories:
    "insert into task_categories (account_id, name, name_norm, created_at) values (3, 'Nova', 'nova', 5)",
  tasks:
    "insert into tasks (account_id, name, deal_id, category_id, created_at, updated_at) values (3, 'N', 10, 10, 5, 5)",
  inbound_webhooks:
    "insert into inbound_webhooks (account_id, name, token, fields, flows, created_at, updated_at) values (3, 'N', 'tokN', '[]', '[]', 5, 5)",
  inbound_events:
    "insert into inbound_events (account_id, webhook_id, mode, payload, headers, received_at, queued_at) values (3, 10, 'production', '{}', '{}', 5, 5)",
};

/**
 * A new row of each table made after 0010, which `LATER_SEED` gives rows first: its delivery points
 * at the lower of its two endpoints, so deleting the highest endpoint breaks no key.
 */
const IMPORT_COLUMNS =
  'account_id, key_hash, resource, mode, status, file_key, file_bytes, header, delimiter, mapping, offset, line, created_at';
const IMPORT_VALUES = "3, 'h', 'companies', 'upsert', 'queued', 'f', 1, '[]', ';', '[]', 0, 2, 5";
const LATER_ROWS: Record<string, string> = {
  account_moves:
    "insert into account_moves (account_id, from_shard, to_shard, state, progress, tables, created_at, updated_at) values (3, 0, 1, 'done', '{}', '{}', 5, 5)",
  held_events: "insert into held_events (account_id, webhook_id, call, received_at) values (3, 1, '{}', 5)",
  imports: `insert into imports (${IMPORT_COLUMNS}) values (${IMPORT_VALUES})`,
  webhook_deliveries:
    "insert into webhook_deliveries (account_id, endpoint_id, message_id, type, body, created_at, updated_at) values (3, 1, 'evt_n', 'ping', '{}', 5, 5)",
  webhook_endpoints:
    "insert into webhook_endpoints (account_id, url, event_types, secret, created_at, updated_at) values (3, 'https://n.example', '[]', 's', 5, 5)",
};
const LATER_SEED = [
  "insert into account_moves (id, account_id, from_shard, to_shard, state, progress, tables, created_at, updated_at) values (1, 3, 0, 1, 'done', '{}', '{}', 5, 5), (2, 3, 0, 1, 'failed', '{}', '{}', 5, 5)",
  "insert into held_events (id, account_id, webhook_id, call, received_at) values (1, 3, 1, '{}', 5), (2, 3, 1, '{}', 5)",
  `insert into imports (id, ${IMPORT_COLUMNS}) values (1, ${IMPORT_VALUES}), (2, ${IMPORT_VALUES})`,
  "insert into webhook_endpoints (id, account_id, url, event_types, secret, created_at, updated_at) values (1, 3, 'https://a.example', '[]', 's', 5, 5), (2, 3, 'https://b.example', '[]', 's', 5, 5)",
  "insert into webhook_deliveries (id, account_id, endpoint_id, message_id, type, body, created_at, updated_at) values (1, 3, 1, 'evt_a', 'ping', '{}', 5, 5)",
];

describe('migrations on a database that already holds data', () => {
  const db = env.MIGRATION_DB;

  // Rows written under the first schema, then more under the schema before 0010, then the rest.
  beforeAll(async () => {
    await emptyMigrationDb();
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
    await applyD1Migrations(
      db,
      env.TEST_MIGRATIONS.filter((m) => m.name < '0010'),
    );
    await db.batch(BEFORE_0010.map((statement) => db.prepare(statement)));
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
  });

  it('0001 rebuilds companies, keeping their rows and the contacts and deals that point at them', async () => {
    // Later migrations may add columns; these are the ones 0001 must keep or add empty.
    const { results } = await db.prepare('select * from companies where account_id = 1').all();
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
        .prepare(
          'select company_id from contacts where id = 1 union all select company_id from deals where account_id = 1',
        )
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
      await db
        .prepare(
          'select id, account_id, created_at, updated_at from contacts where account_id < 3 order by id',
        )
        .raw(),
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

  it('0010 keeps every row, link and count, and the foreign keys hold', async () => {
    const ids = async (table: string) =>
      (await db.prepare(`select id from ${table} where account_id = 3 order by id`).raw()).flat();
    for (const table of Object.keys(NEW_ROWS).filter((t) => t !== 'accounts')) {
      expect(await ids(table), table).toEqual([10, 11]);
    }
    expect((await db.prepare('pragma foreign_key_check').all()).results).toEqual([]);
    const links = await db
      .prepare(
        `select (select count(*) from company_followers where account_id = 3)
          + (select count(*) from task_owners where account_id = 3)
          + (select count(*) from inbound_event_results where account_id = 3 and contact_id = 10)
          + (select count(*) from webhook_rotations where account_id = 3 and turns = 2)
          + (select count(*) from idempotency_keys where account_id = 3) as n`,
      )
      .first<{ n: number }>();
    expect(links?.n).toBe(5);
    expect(
      await db.prepare('select task_count from task_categories where account_id = 3 order by id').raw(),
    ).toEqual([[2], [0]]);
    // Still composite foreign keys: a row pointing into another account is refused.
    await expect(db.prepare('update contacts set owner_id = 1 where id = 10').run()).rejects.toThrow(
      /FOREIGN KEY constraint failed/,
    );
  });

  it('0010: every table with an id hands out a new one after its highest row is deleted', async () => {
    // Every table whose rowid is a column named id, read from its own CREATE TABLE.
    const { results } = await db
      .prepare("select name, sql from sqlite_master where type = 'table' order by name")
      .all<{ name: string; sql: string }>();
    const tables = results.filter((t) => /[`"]id[`"] integer PRIMARY KEY/i.test(t.sql)).map((t) => t.name);
    for (const t of results.filter((r) => tables.includes(r.name)))
      expect(t.sql, t.name).toMatch(/AUTOINCREMENT/);
    const rows = { ...NEW_ROWS, ...LATER_ROWS };
    expect(tables).toEqual(Object.keys(rows).sort());
    await db.batch(LATER_SEED.map((statement) => db.prepare(statement)));
    for (const table of tables) {
      const top = await db.prepare(`select max(id) as id from ${table}`).first<{ id: number }>();
      await db.prepare(`delete from ${table} where id = ?`).bind(top?.id).run();
      const made = await db.prepare(`${rows[table]} returning id`).first<{ id: number }>();
      expect(made?.id, table).toBeGreaterThan(top?.id ?? Number.POSITIVE_INFINITY);
    }
  });

  it('0010 keeps the triggers firing: search, task counts, a live deal for a live task', async () => {
    const found = async (query: string) =>
      (
        await db
          .prepare('select rowid from contacts_search where contacts_search match ? order by rowid')
          .bind(query)
          .raw()
      ).flat();
    const row = (id: number) => 3 * 2 ** 32 + id;
    const created = await db
      .prepare(
        "insert into contacts (account_id, name, name_norm, created_at, updated_at) values (3, 'Wagnerita', 'wagnerita', 9, 9) returning id",
      )
      .first<{ id: number }>();
    const id = created?.id ?? 0;
    // The row from before 0010 and the new one; an update and a delete reach the index too.
    expect(await found('name : "wagner"')).toEqual([row(10), row(id)]);
    await db.prepare("update contacts set name = 'Walter', name_norm = 'walter' where id = 10").run();
    expect(await found('name : "wagner"')).toEqual([row(id)]);
    expect(await found('name : "walter"')).toEqual([row(10)]);
    await db.prepare('delete from contacts where id = ?').bind(id).run();
    expect(await found('name : "wagner"')).toEqual([]);

    const count = () =>
      db.prepare('select task_count from task_categories where id = 10').first<{ task_count: number }>();
    const before = (await count())?.task_count ?? 0;
    await db
      .prepare(
        "insert into tasks (account_id, name, deal_id, category_id, created_at, updated_at) values (3, 'More', 10, 10, 9, 9)",
      )
      .run();
    expect((await count())?.task_count).toBe(before + 1);
    await db.prepare('update deals set deleted_at = 1 where id = 10').run();
    await expect(
      db
        .prepare(
          "insert into tasks (account_id, name, deal_id, category_id, created_at, updated_at) values (3, 'Late', 10, 10, 9, 9)",
        )
        .run(),
    ).rejects.toThrow(/the deal is in the trash/);
  });
});
