import { primaryDb } from '../db/client';
import { directoryEntry } from '../db/directory';
import { isShard, shardOf } from '../db/shards';
import type { Bindings } from '../env';
import { enqueueEvents } from '../webhooks/log/event-messages';
import { carryHeld, forgetHeld, heldOf, storeHeld } from '../webhooks/log/held-events';

/** Held calls one drain run moves at most; the rest wait for the next run (the cron's). */
const DRAIN_PAGE = 100;
const DRAIN_PAGES = 20;

/**
 * Stores the account's calls held on shard `from` (src/webhooks/log/held-events.ts) as events on
 * shard `to`, where the account is now, and queues them. Each step is repeatable: the held rows
 * are copied to `to` by id before they are deleted from `from`, and on `to` each becomes its event
 * in one batch with its held row's delete, so a run cut short and run again stores each call once.
 */
export async function drainHeld(env: Bindings, from: number, to: number, accountId: number): Promise<void> {
  const source = primaryDb(env, from);
  const target = primaryDb(env, to);
  for (let page = 0; page < DRAIN_PAGES && from !== to; page++) {
    const rows = await heldOf(source, accountId, DRAIN_PAGE);
    if (!rows.length) break;
    await carryHeld(target, rows);
    await forgetHeld(
      source,
      rows.map((r) => r.id),
    );
  }
  for (let page = 0; page < DRAIN_PAGES; page++) {
    const rows = await heldOf(target, accountId, DRAIN_PAGE);
    if (!rows.length) break;
    await enqueueEvents(env.EVENTS, to, await storeHeld(target, rows));
  }
}

/**
 * The cron's drain, on one shard: calls held for accounts no longer frozen here (a call held just
 * after its move's last drain, or a move that failed) go to the account's shard per the directory.
 */
export async function drainStrandedHeld(env: Bindings, shard: number): Promise<number> {
  const { results } = await shardOf(env, shard)
    .prepare(
      'SELECT DISTINCT account_id FROM held_events WHERE account_id NOT IN (SELECT account_id FROM account_freezes) LIMIT 100',
    )
    .all<{ account_id: number }>();
  for (const { account_id } of results) {
    const entry = await directoryEntry(primaryDb(env, 0), account_id);
    if (entry && isShard(env, entry.shard)) await drainHeld(env, shard, entry.shard, account_id);
  }
  return results.length;
}
