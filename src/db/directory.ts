import { asc, count, eq, gt, inArray } from 'drizzle-orm';
import type { Db } from './client';
import { accountShards, accounts } from './schema';

/**
 * The directory's statements (`account_shards`, docs/scaling.md). Every one runs on shard 0's
 * database, the directory's only copy that is read: callers pass shard 0's client.
 */

/** The shard with the fewest accounts in the directory, ties to the lowest number. */
export async function leastFilledShard(directory: Db, shards: number): Promise<number> {
  const rows = await directory
    .select({ shard: accountShards.shard, n: count() })
    .from(accountShards)
    .groupBy(accountShards.shard);
  const filled = new Map(rows.map((row) => [row.shard, row.n]));
  let best = 0;
  for (let shard = 1; shard < shards; shard++) {
    if ((filled.get(shard) ?? 0) < (filled.get(best) ?? 0)) best = shard;
  }
  return best;
}

/** Writes account `accountId`'s directory row, once its account row is on `shard`. */
export const listAccount = (directory: Db, accountId: number, shard: number, now: number) =>
  directory.insert(accountShards).values({ accountId, shard, state: 'active', createdAt: now });

/** The directory's row of an account: its shard and state; undefined for one it does not list. */
export async function directoryEntry(directory: Db, accountId: number) {
  const [row] = await directory.select().from(accountShards).where(eq(accountShards.accountId, accountId));
  return row;
}

/** A page of the directory in account id order, after `after` (keyset). */
export const directoryPage = (directory: Db, after: number, limit: number) =>
  directory
    .select()
    .from(accountShards)
    .where(gt(accountShards.accountId, after))
    .orderBy(asc(accountShards.accountId))
    .limit(limit);

/** How many accounts the directory puts on each shard. */
export const accountsPerShard = (directory: Db) =>
  directory
    .select({ shard: accountShards.shard, n: count() })
    .from(accountShards)
    .groupBy(accountShards.shard);

/** The account rows of `ids` on one shard (a page of the admin list, that shard's part). */
export const accountRows = (db: Db, ids: number[]) =>
  db.select().from(accounts).where(inArray(accounts.id, ids));
