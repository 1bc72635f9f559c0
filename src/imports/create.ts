/** Starting an import: its file stored in R2, its header read and mapped, its first chunk queued. */
import { bomLength, detectDelimiter, readRecords } from '../core/csv-read';
import { invalid } from '../core/errors';
import type { Db } from '../db/client';
import type { Bindings } from '../env';
import { type ImportMessage, nextChunk } from '../model/import-messages';
import { cellText, WINDOW_BYTES } from './chunk';
import { type ImportResource, mapHeader } from './fields';
import { type ImportRow, insertImport, quotaRefused, tooManyImports } from './store';

/** The largest file an import takes (bytes): 100 MB, the request body Cloudflare's plans all take. */
export const MAX_FILE_BYTES = 100_000_000;

export type ImportOptions = {
  resource: ImportResource;
  mode: ImportMessage['mode'];
  mapping?: Record<string, string | null>;
};

/** The header of a stored file: its cells, delimiter, and where the first row starts. */
export async function readHeader(bucket: R2Bucket, fileKey: string) {
  const object = await bucket.get(fileKey, { range: { offset: 0, length: WINDOW_BYTES } });
  const bytes = new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0));
  const bom = bomLength(bytes);
  const body = bytes.subarray(bom);
  const delimiter = detectDelimiter(body);
  const read = readRecords(body, delimiter, 1, bytes.length < WINDOW_BYTES, 1);
  const header = read.records[0];
  if (!header || header.tooLong) {
    throw invalid([
      { path: 'file', code: 'no_header', message: 'The file has no header row (or one over the row limit).' },
    ]);
  }
  return {
    header: header.cells.map((cell) => cellText(cell).trim()),
    delimiter,
    offset: bom + read.used,
    line: 1 + read.lines,
  };
}

/** The import row and its first chunk's message, once the file is stored. */
async function start(
  db: Db,
  env: Bindings,
  file: { key: string; size: number; keyHash: string; accountId: number },
  options: ImportOptions,
  now: number,
  started: (row: ImportRow) => void,
): Promise<{ row: ImportRow; ignored: string[] }> {
  const { header, delimiter, offset, line } = await readHeader(env.IMPORT_FILES, file.key);
  const mapping = mapHeader(options.resource, header, options.mapping);
  // A header and no row: nothing to queue.
  const empty = offset >= file.size;
  const inserted = await db
    .batch([
      insertImport(db, {
        accountId: file.accountId,
        keyHash: file.keyHash,
        resource: options.resource,
        mode: options.mode,
        status: empty ? 'completed' : 'queued',
        finishedAt: empty ? now : null,
        fileKey: file.key,
        fileBytes: file.size,
        header,
        delimiter,
        mapping,
        offset,
        line,
        createdAt: now,
      }),
    ])
    .catch((error: unknown) => Promise.reject(quotaRefused(error) ? tooManyImports() : error));
  const created = (inserted[0] as ImportRow[])[0] as ImportRow;
  started(created);
  if (empty) await env.IMPORT_FILES.delete(file.key);
  else await env.IMPORTS.send(nextChunk(created, db.shard));
  return { row: created, ignored: header.filter((_, i) => mapping[i] === null) };
}

/**
 * Starts the import of the stored file. A file refused before its import row is written (no
 * header, the account's imports at their quota) is deleted: a refusal leaves nothing stored.
 */
export async function startImport(
  db: Db,
  env: Bindings,
  file: { key: string; size: number; keyHash: string; accountId: number },
  options: ImportOptions,
  now: number,
): Promise<{ row: ImportRow; ignored: string[] }> {
  let row: ImportRow | undefined;
  try {
    return await start(db, env, file, options, now, (created) => {
      row = created;
    });
  } catch (error) {
    if (!row) await env.IMPORT_FILES.delete(file.key);
    throw error;
  }
}
