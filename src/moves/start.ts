import { and, count, eq, inArray } from 'drizzle-orm';
import { DomainError, invalid, notFound } from '../core/errors';
import { primaryDb } from '../db/client';
import { directoryEntry } from '../db/directory';
import { brokenConstraint } from '../db/errors';
import { accountMoves, imports } from '../db/schema';
import { isShard, shardCount } from '../db/shards';
import type { Bindings } from '../env';
import type { Move } from './context';
import { moveStep } from './messages';

/**
 * A move waits for the account's imports: each of their chunks would be refused for the length of
 * the freeze. One started during the copy goes on on the new shard (the drain queues its next
 * chunk there: src/moves/switch.ts; docs/scaling.md, failure cases).
 */
async function refuseWhileImporting(env: Bindings, shard: number, accountId: number): Promise<void> {
  const [active] = await primaryDb(env, shard)
    .select({ n: count() })
    .from(imports)
    .where(and(eq(imports.accountId, accountId), inArray(imports.status, ['queued', 'running'])));
  if (active && active.n > 0) {
    throw new DomainError(
      'import_running',
      'This account has an import queued or running: move it once the import has ended (GET /v1/imports).',
    );
  }
}

/**
 * Starts moving account `accountId` to shard `to` (POST /admin/accounts/{id}/move): the move's row
 * on shard 0, then its first step's message. 404 for an account the directory lacks, 422 for a
 * shard the Worker lacks, the one the account is on or a lower one, 409 while another move of it
 * or one of its imports runs.
 */
export async function startMove(
  env: Bindings,
  accountId: number,
  to: number | undefined,
  now = Date.now(),
): Promise<Move> {
  const directory = primaryDb(env, 0);
  const entry = await directoryEntry(directory, accountId);
  if (!entry || !isShard(env, entry.shard)) throw notFound('No such account.');
  if (to === undefined) throw invalid([{ path: 'to', code: 'required', message: 'to is required.' }]);
  if (!isShard(env, to)) {
    const message = `No shard ${to}: shards are 0 to ${shardCount(env) - 1}.`;
    throw invalid([{ path: 'to', code: 'invalid', message }]);
  }
  if (to === entry.shard) {
    const message = `The account is already on shard ${to}.`;
    throw invalid([{ path: 'to', code: 'same_shard', message }]);
  }
  // SQLite gives a new AUTOINCREMENT row max(sequence, largest id in the table) + 1: rows from a
  // higher shard's range would lift every later id of the lower shard into that range, where they
  // collide. Ids from a lower range sit below the shard's own and change nothing.
  if (to < entry.shard) {
    const message = `The account is on shard ${entry.shard}: it can move only to a higher shard (its ids would push shard ${to}'s new ids into shard ${entry.shard}'s range).`;
    throw invalid([{ path: 'to', code: 'lower_shard', message }]);
  }
  await refuseWhileImporting(env, entry.shard, accountId);
  const values = {
    accountId,
    fromShard: entry.shard,
    toShard: to,
    state: 'copying' as const,
    progress: { phase: 'begin' as const, table: 0, after: null, step: 0 },
    tables: {},
    createdAt: now,
    updatedAt: now,
  };
  let move: Move | undefined;
  try {
    [move] = await directory.insert(accountMoves).values(values).returning();
  } catch (err) {
    if (brokenConstraint(err) !== 'unique') throw err;
    throw new DomainError('move_in_progress', 'This account is already being moved: one move at a time.');
  }
  if (!move) throw new Error('move insert returned no row');
  await env.MOVES.send(moveStep(move.id, 0));
  return move;
}

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/**
 * How long the account's writes were refused: from the freeze until its old keys were gone (old
 * credentials forwarded from then), or until now while that is still ahead.
 */
export function frozenSeconds(move: Move, now = Date.now()): number | null {
  if (move.frozenAt === null) return null;
  const end = move.reopenedAt ?? (move.state === 'done' || move.state === 'failed' ? move.finishedAt : now);
  return ((end ?? now) - move.frozenAt) / 1000;
}

/** A move as GET /admin/moves/{id} shows it. */
export const presentMove = (move: Move, now = Date.now()) => ({
  id: move.id,
  account_id: move.accountId,
  from: move.fromShard,
  to: move.toShard,
  state: move.state,
  phase: move.progress.phase,
  tables: move.tables,
  frozen_seconds: frozenSeconds(move, now),
  error: move.error,
  created_at: iso(move.createdAt),
  frozen_at: isoOrNull(move.frozenAt),
  switched_at: isoOrNull(move.switchedAt),
  finished_at: isoOrNull(move.finishedAt),
});
