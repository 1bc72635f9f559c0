/**
 * `dry_run=true`: the first chunk planned by the batch's own checks (its first round trip) and
 * stopped before its write batch: how each row would be written, nothing written.
 */
import type { Db } from '../db/client';
import type { KeyRef } from '../db/tenant';
import { runBatch } from '../model/batch';
import { batchResources } from '../model/batch-resources';
import type { ImportMessage } from '../model/import-messages';
import { itemsOf, readChunk, reasonOf } from './chunk';
import type { ImportResource } from './fields';

/** Thrown by the batch's tail, before any write: what was planned and what failed. */
class Planned {
  constructor(
    readonly planned: { index: number; created: boolean }[],
    readonly failed: { index: number }[],
  ) {}
}

export type DryRow = { line: number; action: 'create' | 'update' | 'fail'; reason?: string };

export async function dryRun(db: Db, bucket: R2Bucket, keyHash: KeyRef, m: ImportMessage): Promise<DryRow[]> {
  const chunk = await readChunk(bucket, m);
  const { readable, input, failedBefore } = itemsOf(m, chunk.rows);
  const resource = batchResources[m.resource as ImportResource];
  let plan: Planned | undefined;
  try {
    await runBatch(db, keyHash, resource as never, input, [], (planned, failed) => {
      throw new Planned(planned, failed);
    });
  } catch (error) {
    if (!(error instanceof Planned)) throw error;
    plan = error;
  }
  const rows: DryRow[] = failedBefore.map((f) => ({ line: f.line, action: 'fail', reason: f.reason }));
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
    });
  }
  return rows.sort((a, b) => a.line - b.line);
}
