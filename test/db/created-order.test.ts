import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { accountsOnShard, create, insertRow, ms, newAccount, resource } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Searched lists sorted by created_at walk the search index in id order (src/db/own.ts), so the
// rows of these tables must be in the same order by created_at as by id within each account.
type Table = { table: string; path: string; body: Record<string, string>; row: Record<string, string> };

const tables: Table[] = [
  {
    table: 'users',
    path: '/v1/users',
    body: { name: 'New', email: 'new@example.com' },
    row: { name: 'Old', name_norm: 'old', email: 'old@example.com', email_norm: 'old@example.com' },
  },
  { table: 'contacts', path: '/v1/contacts', body: { name: 'New' }, row: { name: 'Old', name_norm: 'old' } },
  {
    table: 'companies',
    path: '/v1/companies',
    body: { name: 'New', cnpj: '11.222.333/0001-81' },
    row: { name: 'Old', name_norm: 'old', cnpj: '11444777000161' },
  },
];

const HOUR = 3_600_000;

describe('created_at follows id within an account', () => {
  it.each(tables)(
    '$table: a create behind the newest row takes its created_at, and lists after it',
    async (t) => {
      const { id: accountId, key } = await newAccount();
      // A row from a clock an hour ahead of this one.
      const ahead = Date.now() + HOUR;
      const older = await insertRow(t.table, {
        ...t.row,
        account_id: accountId,
        created_at: ahead,
        updated_at: ahead,
      });
      const created = await create(key, t.path, t.body);
      expect(created.id).toBeGreaterThan(older);
      expect(ms(created.created_at)).toBe(ahead);
      expect(created.updated_at).toBe(created.created_at);
      expect(await resource(t.path).listIds(key, { sort: '-created_at' })).toEqual([created.id, older]);
      // Another account's newer rows do not move this account's clock.
      const other = await newAccount('Other');
      const before = Date.now();
      const theirs = await create(other.key, t.path, t.body);
      expect(ms(theirs.created_at)).toBeGreaterThanOrEqual(before);
      expect(ms(theirs.created_at)).toBeLessThan(ahead);
    },
  );

  it.each(tables)(
    '$table: the database refuses a row out of that order, and any change of the order',
    async (t) => {
      const { id: accountId } = await newAccount();
      let serial = 0;
      // Unique values where the table has a unique index (email, CNPJ), so only the order can refuse.
      const insert = (createdAt: number, id?: number) => {
        serial += 1;
        const unique: Record<string, string> =
          t.table === 'users'
            ? { email: `old${serial}@example.com`, email_norm: `old${serial}@example.com` }
            : t.table === 'companies'
              ? { cnpj: String(serial).padStart(14, '0') }
              : {};
        return insertRow(t.table, {
          ...t.row,
          ...unique,
          ...(id === undefined ? {} : { id }),
          account_id: accountId,
          created_at: createdAt,
          updated_at: createdAt,
        });
      };
      const first = await insert(1_000, 500_000);
      const tied = await insert(1_000);
      expect(tied).toBe(500_001);
      await expect(insert(999)).rejects.toThrow(/must be its account's newest/);
      // An id below the account's newest, even with a later created_at.
      await expect(insert(2_000, 499_999)).rejects.toThrow(/must be its account's newest/);
      for (const change of [
        'created_at = created_at + 1',
        'id = id + 1000000',
        'account_id = account_id + 1',
      ]) {
        await expect(
          env.DB.prepare(`UPDATE ${t.table} SET ${change} WHERE id = ?`).bind(first).run(),
          change,
        ).rejects.toThrow(/never change/);
      }
      const { results } = await env.DB.prepare(
        `SELECT id, created_at FROM ${t.table} WHERE account_id = ? ORDER BY id`,
      )
        .bind(accountId)
        .all();
      expect(results).toEqual([
        { id: first, created_at: 1_000 },
        { id: tied, created_at: 1_000 },
      ]);
    },
  );
});
