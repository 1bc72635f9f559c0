import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { idSpan, shardOf } from '../../src/db/shards';
import worker from '../../src/index';
import { foldChecksum, readPage } from '../../src/moves/pages';
import { MOVE_TABLES } from '../../src/moves/tables';
import { adminHeaders, callWithEnv, type Json, json } from '../helpers';

// Moves (src/moves/) driven step by step: the Worker's step messages go to a queue nothing reads
// (PARKED_MOVES, vitest.config.ts), and the test runs each step through the queue handler itself,
// as the `crm-moves` consumer would, so it can look at the account between steps.

export const parked = { MOVES: env.PARKED_MOVES };

/** Whether `id` is in shard `shard`'s id range of `table` (src/core/id-ranges.ts). */
export const inRange = (table: string, shard: number, id: number) =>
  id >= shard * idSpan(table) && id < (shard + 1) * idSpan(table);

/** POST /admin/accounts/{id}/move with the parked queue. */
export const startMove = (accountId: number, body: unknown) =>
  callWithEnv(parked, `/admin/accounts/${accountId}/move`, { method: 'POST', headers: adminHeaders(), body });

type MoveRow = { id: number; state: string; progress: { phase: string; step: number }; [k: string]: unknown };

export async function moveRow(id: number): Promise<MoveRow> {
  const row = await env.DB.prepare('SELECT * FROM account_moves WHERE id = ?').bind(id).first<Json>();
  if (!row) throw new Error(`no move ${id}`);
  return { ...row, progress: JSON.parse(row.progress), tables: JSON.parse(row.tables) };
}

/** Delivers one `crm-moves` message to the Worker's queue handler; returns what it acked. */
export async function deliverStep(body: unknown, attempts = 1) {
  const batch = createMessageBatch('crm-moves', [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...parked });
  return getQueueResult(batch, ctx);
}

export const stepMessage = (moveId: number, step: number) => ({ kind: 'move_step', move_id: moveId, step });

/** Runs the move's steps until `until` holds of its row (or it ends); returns the row. */
export async function stepUntil(
  id: number,
  until: (row: MoveRow) => boolean = () => false,
): Promise<MoveRow> {
  for (let i = 0; i < 2000; i++) {
    const row = await moveRow(id);
    if (until(row) || row.state === 'done' || row.state === 'failed') return row;
    const result = await deliverStep(stepMessage(id, row.progress.step));
    expect(result.retryMessages, `step ${row.progress.step} (${row.progress.phase}) retried`).toEqual([]);
  }
  throw new Error('the move never ended');
}

/** Starts moving the account to `to` and runs every step; the move as GET /admin/moves/{id} shows it. */
export async function move(accountId: number, to: number): Promise<Json> {
  const res = await startMove(accountId, { to });
  expect(res.status, await res.clone().text()).toBe(202);
  const { data } = await json(res);
  await stepUntil(data.id);
  return (await json(await callWithEnv(parked, `/admin/moves/${data.id}`, { headers: adminHeaders() }))).data;
}

/** Each moving table's row count and checksum of the account on `shard`, as a move computes them. */
export async function fingerprint(
  shard: number,
  accountId: number,
): Promise<Record<string, [number, string]>> {
  const d1 = shardOf(env, shard);
  const out: Record<string, [number, string]> = {};
  for (const t of MOVE_TABLES) {
    const rows = await readPage(d1, t, accountId, { after: null, limit: 100_000 });
    out[t.name] = [rows.length, await foldChecksum('', rows)];
  }
  return out;
}
