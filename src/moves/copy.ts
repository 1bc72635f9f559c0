import { brokenConstraint } from '../db/errors';
import { emptyStats, nextPage, PAGE_ROWS, type StepContext, type StepResult, statsOf } from './context';
import { deleteKeys, foldChecksum, type Key, keyOf, type Row, readPage, writeRows } from './pages';
import { MOVE_TABLES, type MoveTable, moveTable, VERIFY_ORDER } from './tables';

/** The tables in reverse: extras are deleted children first, as foreign keys need. */
export const PRUNE_ORDER: readonly number[] = MOVE_TABLES.map((_, i) => MOVE_TABLES.length - 1 - i);
const COPY_ORDER: readonly number[] = MOVE_TABLES.map((_, i) => i);

const tableAt = (order: readonly number[], position: number): MoveTable =>
  moveTable(order[position] as number);

/** Deletes `extras` and writes `rows` on the new shard, in one batch. */
function writeBatch(c: StepContext, t: MoveTable, rows: readonly Row[], extras: readonly Key[] = []) {
  const { move } = c;
  const statements = [
    ...deleteKeys(c.to, t, move.accountId, extras, true),
    ...writeRows(c.to, t, move.accountId, rows),
  ];
  return statements.length ? c.to.batch(statements) : Promise.resolve([]);
}

/** The new shard takes the account: `incoming`, which the copy's writes check. */
export async function beginStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  await c.to
    .prepare(
      "INSERT INTO account_freezes (account_id, state, move_id) VALUES (?, 'incoming', ?) ON CONFLICT (account_id) DO UPDATE SET state = 'incoming', move_id = excluded.move_id",
    )
    .bind(move.accountId, move.id)
    .run();
  const tables = Object.fromEntries(MOVE_TABLES.map((t) => [t.name, emptyStats()]));
  return { progress: { phase: 'copy', table: 0, after: null }, tables };
}

/**
 * One page of one table copied with writes open. A page whose rows reference a parent row made
 * after that parent's table was copied breaks a foreign key: it is left to the verify, which
 * copies parents first with writes frozen.
 */
export async function copyStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const progress = move.progress;
  const t = tableAt(COPY_ORDER, progress.table);
  const rows = await readPage(c.from, t, move.accountId, { after: progress.after, limit: PAGE_ROWS });
  const stats = statsOf(move, t.name);
  try {
    await writeBatch(c, t, rows);
    stats.copied += rows.length;
  } catch (err) {
    if (brokenConstraint(err) !== 'foreign_key') throw err;
    stats.deferred += 1;
  }
  const last = rows.at(-1);
  return {
    progress: nextPage(progress, COPY_ORDER, rows.length === PAGE_ROWS, last ? keyOf(t, last) : null, {
      phase: 'freeze',
      table: 0,
      after: null,
    }),
    tables: { ...move.tables, [t.name]: stats },
  };
}

/** With writes frozen: the new shard's rows the old one no longer has (deleted since copied) go. */
export async function pruneStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const progress = move.progress;
  const t = tableAt(PRUNE_ORDER, progress.table);
  const keys = await readPage(c.to, t, move.accountId, {
    after: progress.after,
    limit: PAGE_ROWS,
    keysOnly: true,
  });
  if (keys.length) {
    const last = keys.at(-1) as Key;
    const kept = await readPage(c.from, t, move.accountId, {
      after: progress.after,
      upTo: last,
      limit: Number.MAX_SAFE_INTEGER,
      keysOnly: true,
    });
    const old = new Set(kept.map((k) => JSON.stringify(k)));
    const extras = (keys as Key[]).filter((k) => !old.has(JSON.stringify(k)));
    if (extras.length) await c.to.batch(deleteKeys(c.to, t, move.accountId, extras, true));
  }
  return {
    progress: nextPage(progress, PRUNE_ORDER, keys.length === PAGE_ROWS, (keys.at(-1) as Key) ?? null, {
      phase: 'reconcile',
      table: 0,
      after: null,
    }),
  };
}

const byKey = (t: MoveTable, rows: readonly Row[]) =>
  new Map(rows.map((row) => [JSON.stringify(keyOf(t, row)), JSON.stringify(row)]));

/**
 * With writes frozen: one page compared on both shards, repaired on the new one where it differs,
 * and folded into each side's row count and checksum (the verify's figures). The pages split at
 * the old shard's keys, so equal tables fold equal pages.
 */
export async function reconcileStep(c: StepContext): Promise<StepResult> {
  const { move } = c;
  const progress = move.progress;
  const t = tableAt(VERIFY_ORDER, progress.table);
  const old = await readPage(c.from, t, move.accountId, { after: progress.after, limit: PAGE_ROWS });
  const full = old.length === PAGE_ROWS;
  const upTo = full ? keyOf(t, old.at(-1) as Row) : undefined;
  const range = { after: progress.after, upTo, limit: Number.MAX_SAFE_INTEGER };
  let fresh = await readPage(c.to, t, move.accountId, range);
  // A table's last pass starts its figures afresh (the counters' tables are walked twice).
  const stats = progress.after
    ? statsOf(move, t.name)
    : { ...statsOf(move, t.name), rows_from: 0, rows_to: 0, checksum_from: '', checksum_to: '' };
  const want = byKey(t, old);
  const have = byKey(t, fresh);
  const differing = old.filter((row) => have.get(JSON.stringify(keyOf(t, row))) !== JSON.stringify(row));
  const extras = fresh.map((row) => keyOf(t, row)).filter((k) => !want.has(JSON.stringify(k)));
  if (differing.length || extras.length) {
    await writeBatch(c, t, differing, extras);
    stats.repaired += differing.length + extras.length;
    fresh = await readPage(c.to, t, move.accountId, range);
  }
  stats.rows_from += old.length;
  stats.rows_to += fresh.length;
  stats.checksum_from = await foldChecksum(stats.checksum_from, old);
  stats.checksum_to = await foldChecksum(stats.checksum_to, fresh);
  return {
    progress: nextPage(progress, VERIFY_ORDER, full, upTo ?? null, {
      phase: 'verify',
      table: 0,
      after: null,
    }),
    tables: { ...move.tables, [t.name]: stats },
  };
}
