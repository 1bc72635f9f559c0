import { DomainError } from '../core/errors';
import { logError } from '../core/log';
import { messageShard } from '../core/message-shard';
import { type Db, primaryDb } from '../db/client';
import { forwardedShardOf } from '../db/forwards';
import { isShard } from '../db/shards';
import type { Bindings } from '../env';
import { ImportFailure, runChunk } from '../imports/chunk';
import { failImport, importState } from '../imports/store';
import { type ImportMessage, isImportMessage } from '../model/import-messages';

/** Deletes the stored file: an import that ended keeps no file against the quota. */
const dropFile = (env: Bindings, m: ImportMessage) => env.IMPORT_FILES.delete(m.file_key);

/**
 * A chunk whose write batch failed: already written by an earlier delivery (the import moved on),
 * cancelled, or a real failure (retried). A delivery that wrote the chunk may have lost its send of
 * the next one: when the import stands exactly where this chunk ends, the next is sent again (a
 * duplicate then fails its own guard and stops, as the import has moved past it).
 */
async function afterFailure(
  db: Db,
  env: Bindings,
  m: ImportMessage,
  next: number | undefined,
  error: unknown,
) {
  const [state] = await importState(db, m.import_id);
  if (!state || !['queued', 'running'].includes(state.status)) {
    await dropFile(env, m);
    return 'done';
  }
  if (state.offset === m.offset) throw error;
  if (next !== undefined && state.offset === next) {
    await env.IMPORTS.send({ ...m, offset: state.offset, line: state.line });
  }
  return 'done';
}

/**
 * Whether the import's account moved off the message's shard (its key forwarded elsewhere): the
 * move queued the import's next chunk on the new shard (src/moves/switch.ts), which reads the same
 * file. So this stale message is acked, and neither fails the import nor deletes its file.
 */
async function movedAway(env: Bindings, m: ImportMessage): Promise<boolean> {
  const shard = await forwardedShardOf(env, m.key_hash);
  return shard !== undefined && shard !== messageShard(m);
}

async function handle(env: Bindings, message: Message<unknown>): Promise<void> {
  const m = message.body;
  const shard = isImportMessage(m) ? messageShard(m) : undefined;
  // Not ours to drop (a binding removed): retried, then kept by the queue for a person to see.
  if (!isImportMessage(m) || !isShard(env, shard)) return message.retry();
  const db = primaryDb(env, shard);
  let next: number | undefined;
  try {
    const chunk = await runChunk(db, env.IMPORT_FILES, m, Date.now());
    next = chunk.next;
    if (chunk.done) await dropFile(env, m);
    else await env.IMPORTS.send({ ...m, offset: chunk.next, line: chunk.line });
    message.ack();
  } catch (error) {
    if (await movedAway(env, m)) return message.ack();
    if (error instanceof ImportFailure || (error instanceof DomainError && error.code === 'unauthorized')) {
      const reason =
        error instanceof ImportFailure ? error.message : 'The API key that started the import was revoked.';
      await db.batch([failImport(db, m.import_id, reason, Date.now())]);
      await dropFile(env, m);
      return message.ack();
    }
    try {
      await afterFailure(db, env, m, next, error);
      message.ack();
    } catch (failure) {
      logError(failure, `import:${m.import_id}`);
      message.retry({ delaySeconds: 5 * message.attempts });
    }
  }
}

/** The `crm-imports` queue's consumer: one chunk per message (max_batch_size = 1). */
export async function consumeImports(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  for (const message of batch.messages) await handle(env, message);
}
