/** The stored files of imports (R2, `imports/<account>/<uuid>.csv`): which the cron deletes. */
import { allShards, shardOf } from '../db/shards';
import type { Bindings } from '../env';

/**
 * How long a stored file may wait for an import to take it up. The panel's preview stores the file
 * before the person chooses its columns and starts (or does not): a preview never started would
 * otherwise stay in R2 for good, and a flood of previews fill it. An import's own file goes when
 * it ends (src/queue/imports.ts); one still queued or running is kept however old.
 */
export const UNCLAIMED_FILE_MS = 24 * 3_600_000;

/** R2 deletes up to 1,000 keys per call; a list page holds as many. */
const PAGE = 1000;

/** The files every shard's queued or running imports read: the ones kept whatever their age. */
async function filesInUse(env: Bindings): Promise<Set<string>> {
  const used = new Set<string>();
  for (const shard of allShards(env)) {
    const { results } = await shardOf(env, shard)
      .prepare("SELECT file_key FROM imports WHERE status IN ('queued', 'running')")
      .all<{ file_key: string }>();
    for (const row of results) used.add(row.file_key);
  }
  return used;
}

/**
 * The cron's sweep: every stored file older than UNCLAIMED_FILE_MS that no queued or running import
 * reads is deleted (a preview never started, or a file an ended import failed to delete). The
 * files are listed before the imports are read, so a file an import took up in between is kept.
 * A preview started after its file was swept finds it gone, and the panel says so.
 */
export async function sweepUnclaimedFiles(env: Bindings, now: number): Promise<number> {
  const old: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.IMPORT_FILES.list({ prefix: 'imports/', limit: PAGE, ...(cursor && { cursor }) });
    for (const object of page.objects) {
      if (object.uploaded.getTime() < now - UNCLAIMED_FILE_MS) old.push(object.key);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  if (!old.length) return 0;
  const used = await filesInUse(env);
  const unclaimed = old.filter((key) => !used.has(key));
  for (let i = 0; i < unclaimed.length; i += PAGE)
    await env.IMPORT_FILES.delete(unclaimed.slice(i, i + PAGE));
  return unclaimed.length;
}
