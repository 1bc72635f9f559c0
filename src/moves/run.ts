import { and, eq, lt, notInArray, sql } from 'drizzle-orm';
import { logError } from '../core/log';
import { primaryDb } from '../db/client';
import { accountMoves } from '../db/schema';
import type { Bindings } from '../env';
import type { Move, StepContext, StepResult } from './context';
import { stepContext } from './context';
import { beginStep, copyStep, pruneStep, reconcileStep } from './copy';
import { MoveMessage, moveStep } from './messages';
import { cleanStep, drainStep, failed, freezeStep, switchStep, unwindStep, verifyStep } from './switch';

const steps: Record<Move['progress']['phase'], (c: StepContext) => StepResult | Promise<StepResult>> = {
  begin: beginStep,
  copy: copyStep,
  freeze: freezeStep,
  prune: pruneStep,
  reconcile: reconcileStep,
  verify: verifyStep,
  switch: switchStep,
  clean: cleanStep,
  drain: drainStep,
  unwind: unwindStep,
};

const FINAL: Move['state'][] = ['done', 'failed'];

export async function loadMove(env: Bindings, id: number): Promise<Move | undefined> {
  const [move] = await primaryDb(env, 0).select().from(accountMoves).where(eq(accountMoves.id, id));
  return move;
}

/**
 * Commits a step's outcome on shard 0 if the move still expects that step (two deliveries of one
 * message race here: one wins, the other changes nothing), with the step's directory statements in
 * the same batch, each guarded by the move having taken this step. True when this step won; the
 * next step's message is sent then.
 */
async function advance(env: Bindings, move: Move, result: StepResult, now: number): Promise<boolean> {
  const d1 = env.DB;
  const step = move.progress.step;
  const progress = { ...result.progress, step: step + 1 };
  const set = { ...result.set, progress, updatedAt: now, ...(result.tables && { tables: result.tables }) };
  const update = primaryDb(env, 0)
    .update(accountMoves)
    .set(set)
    .where(and(eq(accountMoves.id, move.id), sql`json_extract(${accountMoves.progress}, '$.step') = ${step}`))
    .returning({ id: accountMoves.id })
    .toSQL();
  const taken = `EXISTS (SELECT 1 FROM account_moves WHERE id = ${move.id} AND json_extract(progress, '$.step') = ${step + 1})`;
  const [won] = await d1.batch([
    d1.prepare(update.sql).bind(...update.params),
    ...(result.directory?.(d1, taken) ?? []),
  ]);
  if (!won?.results.length) return false;
  if (!FINAL.includes(set.state ?? move.state)) await env.MOVES.send(moveStep(move.id, step + 1));
  return true;
}

/** The phases that walk pages: a message runs several of their pages in a row. */
const PAGED: Move['progress']['phase'][] = ['copy', 'prune', 'reconcile', 'clean'];
/** How long one message keeps walking pages: a bounded step, and fewer queue hops while frozen. */
const STEP_BUDGET_MS = 1_500;
const STEP_PAGES = 40;

/**
 * Runs the step a message names, if the move still expects it: one page, or while the phase walks
 * pages, more of them within the budget, committed as one step (each page is repeatable, so a
 * message cut short redoes them all harmlessly).
 */
export async function runMoveStep(env: Bindings, message: MoveMessage, now = Date.now()): Promise<void> {
  const move = await loadMove(env, message.move_id);
  if (!move || FINAL.includes(move.state) || move.progress.step !== message.step) return;
  let result = await steps[move.progress.phase](stepContext(env, move, now));
  for (let page = 1; page < STEP_PAGES && Date.now() - now < STEP_BUDGET_MS; page++) {
    const phase = move.progress.phase;
    if (!PAGED.includes(phase) || result.progress.phase !== phase || result.set || result.directory) break;
    const walked: Move = {
      ...move,
      progress: { ...result.progress, step: move.progress.step },
      tables: result.tables ?? move.tables,
    };
    const next = await steps[phase](stepContext(env, walked, now));
    result = { ...next, tables: next.tables ?? walked.tables };
  }
  await advance(env, move, result, now);
}

/** Retries of one step before a move that froze its account gives up and unwinds. */
export const FAIL_AFTER_ATTEMPTS = 5;
const FROZEN_PHASES: Move['progress']['phase'][] = ['freeze', 'prune', 'reconcile', 'verify'];

/** A step that keeps failing while the account is frozen: the move fails, the account is served again. */
async function giveUp(env: Bindings, message: MoveMessage, err: unknown): Promise<void> {
  const move = await loadMove(env, message.move_id);
  if (!move || move.progress.step !== message.step || !FROZEN_PHASES.includes(move.progress.phase)) return;
  await advance(env, move, failed(err instanceof Error ? err.message : String(err)), Date.now());
}

/** The `crm-moves` queue's consumer: one step per message (max_batch_size = 1). */
export async function consumeMoves(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  for (const message of batch.messages) {
    const parsed = MoveMessage.safeParse(message.body);
    if (!parsed.success) {
      console.warn(JSON.stringify({ level: 'warn', msg: 'unknown move message', id: message.id }));
      message.ack();
      continue;
    }
    try {
      await runMoveStep(env, parsed.data);
      message.ack();
    } catch (err) {
      logError(err, `move:${parsed.data.move_id}:${parsed.data.step}`);
      if (message.attempts >= FAIL_AFTER_ATTEMPTS) await giveUp(env, parsed.data, err).catch(() => undefined);
      message.retry({ delaySeconds: Math.min(2 ** message.attempts, 60) });
    }
  }
}

/** A running move untouched this long lost its step message: the cron sends it again. */
export const MOVE_STALLED_MS = 5 * 60_000;

/** The cron's repair: the step message of each stalled move, sent again (a duplicate changes nothing). */
export async function requeueStalledMoves(env: Bindings, now = Date.now()): Promise<number> {
  const stalled = await primaryDb(env, 0)
    .select()
    .from(accountMoves)
    .where(and(notInArray(accountMoves.state, FINAL), lt(accountMoves.updatedAt, now - MOVE_STALLED_MS)));
  for (const move of stalled) await env.MOVES.send(moveStep(move.id, move.progress.step));
  return stalled.length;
}
