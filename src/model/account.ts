import type { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { Account, AccountUpdate } from '../contracts/account';
import { iso } from '../contracts/common';
import type { Db } from '../db/client';
import { accounts } from '../db/schema';
import { accountOf, type KeyRef, scoped } from '../db/tenant';

type Row = typeof accounts.$inferSelect;

const present = (row: Row): z.infer<typeof Account> => ({
  id: row.id,
  name: row.name,
  time_zone: row.timeZone,
  created_at: iso(row.createdAt),
});

/** The caller's account, read with the key lookup (one round trip). */
export async function getAccount(db: Db, key: KeyRef): Promise<z.infer<typeof Account>> {
  const [, rows] = await scoped(
    db,
    key,
    db
      .select()
      .from(accounts)
      .where(eq(accounts.id, accountOf(key))),
  );
  const row = rows[0];
  if (!row) throw new Error('a valid key whose account has no row');
  return present(row);
}

/**
 * Changes the settings the body sends, in the key lookup's round trip; the key's scope guards the
 * update itself (a key without `account:update` finds no account to change: see `scoped`).
 */
export async function updateAccount(
  db: Db,
  key: KeyRef,
  body: z.infer<typeof AccountUpdate>,
): Promise<z.infer<typeof Account>> {
  if (body.time_zone === undefined) return getAccount(db, key);
  const [, rows] = await scoped(
    db,
    key,
    db
      .update(accounts)
      .set({ timeZone: body.time_zone })
      .where(eq(accounts.id, accountOf(key)))
      .returning(),
  );
  const row = rows[0];
  if (!row) throw new Error('a valid key whose account has no row');
  return present(row);
}
