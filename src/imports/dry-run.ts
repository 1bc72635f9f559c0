/**
 * `dry_run=true`: the first chunk planned by the batch's own checks (its first round trip) and
 * stopped before its write batch: how each row would be written, nothing written.
 */
import type { FieldError } from '../core/errors';
import type { Db } from '../db/client';
import type { KeyRef } from '../db/tenant';
import { runBatch, type Tail } from '../model/batch';
import type { ImportMessage } from '../model/import-messages';
import { resources } from '../model/resources';
import { itemsOf, problemsOf, readChunk, reasonOf } from './chunk';
import type { ImportResource } from './fields';

/** Thrown by the batch's tail, before any write: what was planned and what failed. */
class Planned {
  constructor(
    readonly planned: { index: number; created: boolean }[],
    readonly failed: { index: number }[],
  ) {}
}

/** A row as it would be written; a failed one's `reason` in English and its `errors` as codes. */
export type DryRow = {
  line: number;
  action: 'create' | 'update' | 'fail';
  reason?: string;
  errors?: FieldError[];
};

export async function dryRun(db: Db, bucket: R2Bucket, keyHash: KeyRef, m: ImportMessage): Promise<DryRow[]> {
  const chunk = await readChunk(bucket, m);
  const { readable, input } = itemsOf(m, chunk.rows);
  const resource = resources[m.resource as ImportResource];
  let plan: Planned | undefined;
  try {
    const stop: Tail = (planned, failed) => {
      throw new Planned(planned, failed);
    };
    await runBatch(db, keyHash, resource as never, input, [], stop, true);
  } catch (error) {
    if (!(error instanceof Planned)) throw error;
    plan = error;
  }
  const rows: DryRow[] = chunk.rows.flatMap(({ line, problem }) =>
    problem
      ? [{ line, action: 'fail' as const, reason: problem.message, errors: [{ path: '', ...problem }] }]
      : [],
  );
  for (const p of plan?.planned ?? []) {
    rows.push({
      line: (readable[p.index] as { line: number }).line,
      action: p.created ? 'create' : 'update',
    });
  }
  for (const f of (plan?.failed ?? []) as { index: number; error?: unknown }[]) {
    rows.push({
      line: (readable[f.index] as { line: number }).line,
      action: 'fail',
      reason: reasonOf(f.error),
      errors: problemsOf(f.error),
    });
  }
  return rows.sort((a, b) => a.line - b.line);
}
