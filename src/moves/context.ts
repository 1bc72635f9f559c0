import type { accountMoves, MoveProgress, MoveTableStats } from '../db/schema';
import { shardOf } from '../db/shards';
import type { Bindings } from '../env';

export type Move = typeof accountMoves.$inferSelect;

/** What one step of a move works with: the move's row, both shards' databases. */
export type StepContext = {
  readonly env: Bindings;
  readonly move: Move;
  readonly from: D1Database;
  readonly to: D1Database;
  readonly now: number;
};

/** What a step changes of the move's row: the next step, and any other columns. */
export type StepResult = {
  progress: Omit<MoveProgress, 'step'>;
  set?: Partial<
    Pick<Move, 'state' | 'fanoutFrom' | 'frozenAt' | 'switchedAt' | 'reopenedAt' | 'error' | 'finishedAt'>
  >;
  tables?: Record<string, MoveTableStats>;
  /**
   * Statements on shard 0 committed with the move's new step (the directory's switch), each to run
   * only where `taken` (SQL: the move has taken this step) holds.
   */
  directory?: (d1: D1Database, taken: string) => D1PreparedStatement[];
};

export const stepContext = (env: Bindings, move: Move, now: number): StepContext => ({
  env,
  move,
  from: shardOf(env, move.fromShard),
  to: shardOf(env, move.toShard),
  now,
});

/** Rows a step reads of one table at most: one keyset page. */
export const PAGE_ROWS = 500;

export const emptyStats = (): MoveTableStats => ({
  copied: 0,
  deferred: 0,
  repaired: 0,
  rows_from: 0,
  rows_to: 0,
  checksum_from: '',
  checksum_to: '',
});

/** The move's stats of `table`, as a fresh object the step may change. */
export const statsOf = (move: Move, table: string): MoveTableStats => ({
  ...emptyStats(),
  ...move.tables[table],
});

/** The next page of the same table, or the first of the next one (`after` null), or the next phase. */
export function nextPage(
  progress: MoveProgress,
  order: readonly number[],
  full: boolean,
  last: (number | string)[] | null,
  then: Omit<MoveProgress, 'step'>,
): Omit<MoveProgress, 'step'> {
  if (full && last) return { ...progress, after: last };
  if (progress.table + 1 < order.length)
    return { phase: progress.phase, table: progress.table + 1, after: null };
  return then;
}
