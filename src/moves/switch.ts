import { sha256Hex } from '../auth/secrets';
import { primaryDb } from '../db/client';
import { type ImportState, nextChunk } from '../model/import-messages';
import { entryBody } from '../outbound/entry-body';
import { fanOutMoved } from '../outbound/fanout';
import { enqueueDeliveries } from '../outbound/messages';
import { enqueueEvents } from '../webhooks/log/event-messages';
import { PAGE_ROWS, type StepContext, type StepResult } from './context';
import { drainHeld } from './held';
import { deleteSome } from './pages';
import { CLEAN_ORDER, MOVE_TABLES, moveTable, VERIFY_ORDER } from './tables';

/**
 * The freeze: from this commit on, no write of the account commits on the old shard (the triggers
 * of src/core/moving-tables.ts). The same batch reads the outbound cursor: the account's journal
 * entries past it were never fanned out there, and the new shard fans them out after the switch.
 */
export async function freezeStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const [, cursor] = await c.from.batch<{ seq: number }>([
    c.from
      .prepare(
        "INSERT INTO account_freezes (account_id, state, move_id) VALUES (?, 'frozen', ?) ON CONFLICT (account_id) DO UPDATE SET state = 'frozen', move_id = excluded.move_id",
      )
      .bind(move.accountId, move.id),
    c.from.prepare("SELECT seq FROM outbound_cursor WHERE name = 'journal'"),
  ]);
  return {
    progress: { phase: 'prune', table: 0, after: null },
    set: { state: 'switching', frozenAt: c.now, fanoutFrom: cursor?.results[0]?.seq ?? 0 },
  };
}

/** Every table's row count and checksum equal on both shards, or the first that differs. */
export function verifyStep(c: StepContext): StepResult {
  const names = [...new Set(VERIFY_ORDER.map((i) => moveTable(i).name))];
  const differing = names.find((name) => {
    const s = c.move.tables[name];
    return !s || s.rows_from !== s.rows_to || s.checksum_from !== s.checksum_to;
  });
  if (differing) return failed(`verify: ${differing} differs between the shards`);
  return { progress: { phase: 'switch', table: 0, after: null } };
}

/** A failed move: the old shard unfrozen, the new one's copy deleted (`unwindStep`), the directory untouched. */
export const failed = (error: string): StepResult => ({
  progress: { phase: 'unwind', table: 0, after: null },
  set: { error },
});

/**
 * The switch: the new shard stops taking the copy's writes, the old marks the account `moved`,
 * then one batch on shard 0 points the directory at the new shard and forwards the account's old
 * credentials (src/moves/forwards.ts). The directory's write is the moment the account has moved.
 */
export async function switchStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const [, , keys, hooks] = await Promise.all([
    c.to
      .prepare("DELETE FROM account_freezes WHERE account_id = ? AND state = 'incoming'")
      .bind(move.accountId)
      .run(),
    c.from
      .prepare("UPDATE account_freezes SET state = 'moved' WHERE account_id = ?")
      .bind(move.accountId)
      .run(),
    c.from.prepare('SELECT key_hash FROM api_keys WHERE account_id = ?').bind(move.accountId).raw<[string]>(),
    c.from
      .prepare('SELECT token, previous_token FROM inbound_webhooks WHERE account_id = ?')
      .bind(move.accountId)
      .raw<[string, string | null]>(),
  ]);
  const tokens = hooks.flatMap(([token, previous]) => (previous ? [token, previous] : [token]));
  const hashes = [...keys.map(([hash]) => hash), ...(await Promise.all(tokens.map((t) => sha256Hex(t))))];
  return {
    progress: { phase: 'clean', table: 0, after: null },
    set: { state: 'cleaning', switchedAt: c.now },
    directory: (d1, taken) => [
      d1
        .prepare(`UPDATE account_shards SET shard = ? WHERE account_id = ? AND ${taken}`)
        .bind(move.toShard, move.accountId),
      ...hashes.map((hash) =>
        d1
          .prepare(
            `INSERT INTO credential_forwards (hash, shard, account_id) SELECT ?, ?, ? WHERE ${taken} ON CONFLICT (hash) DO UPDATE SET shard = excluded.shard, account_id = excluded.account_id`,
          )
          .bind(hash, move.toShard, move.accountId),
      ),
    ],
  };
}

const API_KEYS = MOVE_TABLES.findIndex((t) => t.name === 'api_keys');

/**
 * Deletes a page of the old copy (the triggers let deletes through in `cleaning`): sessions and
 * keys first, then children before parents. Past the keys, old credentials miss on the old shard
 * and are forwarded, so writes go through again: the move notes when (`reopened_at`).
 */
export async function cleanStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const { progress } = move;
  const t = moveTable(CLEAN_ORDER[progress.table] as number);
  const [, deleted] = await c.from.batch([
    c.from.prepare("UPDATE account_freezes SET state = 'cleaning' WHERE account_id = ?").bind(move.accountId),
    deleteSome(c.from, t, move.accountId, PAGE_ROWS),
  ]);
  const more = (deleted?.results.length ?? 0) === PAGE_ROWS;
  const keysGone = !more && CLEAN_ORDER[progress.table] === API_KEYS;
  const set = keysGone && !move.reopenedAt ? { reopenedAt: c.now } : undefined;
  if (more) return { progress: { ...progress, after: null }, ...(set && { set }) };
  if (progress.table + 1 < CLEAN_ORDER.length)
    return { progress: { phase: 'clean', table: progress.table + 1, after: null }, ...(set && { set }) };
  return { progress: { phase: 'drain', table: 0, after: null }, ...(set && { set }) };
}

/**
 * The move's end: webhook calls held during it become events on the new shard, the old shard's
 * freeze goes, the journal entries the old shard never fanned out are fanned out here, and the
 * account's waiting work (pending events, deliveries due) is queued there.
 */
export async function drainStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  await drainHeld(c.env, move.fromShard, move.toShard, move.accountId);
  await c.from.prepare('DELETE FROM account_freezes WHERE account_id = ?').bind(move.accountId).run();
  // The journal entries the old shard had not fanned out when the account froze.
  await fanOutMoved(primaryDb(c.env, move.toShard), move.accountId, move.fanoutFrom ?? 0, entryBody, c.now);
  await requeueWork(c, move.toShard, c.to);
  return { progress: { phase: 'drain', table: 0, after: null }, set: { state: 'done', finishedAt: c.now } };
}

/**
 * Queues the account's waiting work on `shard` (pending events, deliveries due, the next chunk of
 * each import queued or running): messages refused during the move were acked or named the old shard.
 */
async function requeueWork(c: StepContext, shard: number, d1: D1Database) {
  const account = c.move.accountId;
  const [events, deliveries, imports] = await d1.batch<{ id: number }>([
    d1.prepare("SELECT id FROM inbound_events WHERE account_id = ? AND status = 'pending'").bind(account),
    d1
      .prepare(
        "SELECT id FROM webhook_deliveries WHERE account_id = ? AND status = 'pending' AND next_attempt_at IS NOT NULL",
      )
      .bind(account),
    d1
      .prepare(
        "SELECT id, key_hash AS keyHash, resource, mode, file_key AS fileKey, delimiter, mapping, offset, line FROM imports WHERE account_id = ? AND status IN ('queued', 'running')",
      )
      .bind(account),
  ]);
  await enqueueEvents(
    c.env.EVENTS,
    shard,
    (events?.results ?? []).map((r) => r.id),
  );
  await enqueueDeliveries(
    c.env.OUTBOUND,
    shard,
    (deliveries?.results ?? []).map((r) => r.id),
  );
  // A chunk the freeze refused never committed: the copied row's offset is where it stood. A second
  // message for the same offset is harmless (the chunk's write checks the offset).
  const stored = (imports?.results ?? []) as (Omit<ImportState, 'mapping'> & { mapping: string })[];
  const chunks = stored.map((row) => nextChunk({ ...row, mapping: JSON.parse(row.mapping) }, shard));
  if (chunks.length > 0) await c.env.IMPORTS.sendBatch(chunks.map((body) => ({ body })));
}

/**
 * A failed move's undoing, before the switch: the old shard unfrozen at once (the account is
 * served there again), then the new shard's copy deleted page by page, then its mark.
 */
export async function unwindStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const { progress } = move;
  if (progress.table === 0 && progress.after === null) {
    await c.from.prepare('DELETE FROM account_freezes WHERE account_id = ?').bind(move.accountId).run();
    await drainHeld(c.env, move.fromShard, move.fromShard, move.accountId);
    await requeueWork(c, move.fromShard, c.from);
  }
  const t = moveTable(CLEAN_ORDER[progress.table] as number);
  const deleted = await deleteSome(c.to, t, move.accountId, PAGE_ROWS).all();
  // `after` [0]: past the unfreezing, which only the first page's step does.
  if (deleted.results.length === PAGE_ROWS) return { progress: { ...progress, after: [0] } };
  if (progress.table + 1 < CLEAN_ORDER.length)
    return { progress: { phase: 'unwind', table: progress.table + 1, after: [0] } };
  await c.to.prepare('DELETE FROM account_freezes WHERE account_id = ?').bind(move.accountId).run();
  return {
    progress: { phase: 'unwind', table: 0, after: null },
    set: { state: 'failed', finishedAt: c.now },
  };
}
