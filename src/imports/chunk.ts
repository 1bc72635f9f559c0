/**
 * One chunk of an import: at most CHUNK_ROWS rows read from R2 at the import's byte offset, written
 * as one non-atomic batch of model/batch (the batch route's write path: its rules, relations by
 * natural key, two D1 round trips), with the chunk's mark and the import's progress in the same
 * write batch: a redelivered or cancelled chunk writes nothing.
 */
import type { BatchInput } from '../contracts/batch';
import { MAX_RECORD_BYTES, readRecords } from '../core/csv-read';
import { DomainError, type FieldError } from '../core/errors';
import type { Params } from '../core/said';
import type { Db } from '../db/client';
import { runBatch } from '../model/batch';
import type { ImportMessage } from '../model/import-messages';
import { resources } from '../model/resources';
import { decodeText } from '../webhooks/ingest/charset';
import { type ImportResource, rowData } from './fields';
import { skipLongRow } from './long-row';
import { advance, chunkGuard, keepUnchanged, type RowError } from './store';

export const CHUNK_ROWS = 100;
/** What one chunk reads of the file: room for CHUNK_ROWS rows of the longest a row may be. */
export const WINDOW_BYTES = (CHUNK_ROWS + 1) * MAX_RECORD_BYTES;

/** The import as a whole cannot go on (its key revoked, its file gone). */
export class ImportFailure extends Error {}

/** A cell as text: UTF-8, or Windows-1252 (pt-BR Excel's CSV) when its bytes are not UTF-8. */
export const cellText = (cell: Uint8Array): string => decodeText(cell, 'utf-8').text;

/** What broke a row before any batch read it (the CSV itself), as a code with its English words. */
export type CsvProblem = { code: 'row_too_long' | 'unclosed_quote'; params?: Params; message: string };

export type Row = { line: number; cells: string[]; problem?: CsvProblem };

const TOO_LONG: CsvProblem = {
  code: 'row_too_long',
  params: { max_kib: MAX_RECORD_BYTES / 1024 },
  message: `The row is over ${MAX_RECORD_BYTES / 1024} KiB.`,
};

const UNCLOSED: CsvProblem = { code: 'unclosed_quote', message: 'A quoted cell never ends.' };

/** The rows of the window at `offset`; `next`: where the following chunk starts. */
export async function readChunk(
  bucket: R2Bucket,
  m: Pick<ImportMessage, 'file_key' | 'offset' | 'delimiter' | 'line'>,
) {
  const object = await bucket.get(m.file_key, { range: { offset: m.offset, length: WINDOW_BYTES } });
  if (!object) throw new ImportFailure('The file is no longer stored.');
  const bytes = new Uint8Array(await object.arrayBuffer());
  const eof = m.offset + bytes.length >= object.size;
  const read = readRecords(bytes, m.delimiter, CHUNK_ROWS, eof, m.line);
  const rows: Row[] = read.records.map((r) =>
    r.tooLong
      ? { line: r.line, cells: [], problem: TOO_LONG }
      : { line: r.line, cells: r.cells.map(cellText) },
  );
  let used = read.used;
  let lines = read.lines;
  if (rows.length < CHUNK_ROWS && used < bytes.length) {
    if (eof) {
      // At the file's end, what is left is a row whose quote never closes: it fails alone.
      rows.push({ line: lines + m.line, cells: [], problem: UNCLOSED });
      used = bytes.length;
    } else if (used === 0) {
      // A row longer than the window, first in it: found where it ends, it fails alone.
      const at = { fileKey: m.file_key, offset: m.offset, size: object.size, delimiter: m.delimiter };
      const long = await skipLongRow(bucket, { ...at, window: WINDOW_BYTES });
      rows.push({ line: m.line, cells: [], problem: long.unclosed ? UNCLOSED : TOO_LONG });
      used = long.next - m.offset;
      lines = long.lines;
    }
  }
  const next = m.offset + used;
  return { rows, next, line: m.line + lines, done: next >= object.size };
}

/**
 * Why an item failed, as data: each field's error (path, code, params), or the problem's own code
 * when it names no field (a record gone between the read and the write).
 */
export function problemsOf(error: unknown): FieldError[] {
  if (!(error instanceof DomainError)) throw error;
  return error.errors?.length ? error.errors : [{ path: '', code: error.code, message: error.message }];
}

/** Why an item failed, in words: the problem's detail and each field's message. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof DomainError)) throw error;
  const fields = (error.errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message));
  return fields.length ? fields.join('; ') : error.message;
}

/** A row's batch item: its op by the import's mode, an `id` column pinning the record. */
function itemOf(m: ImportMessage, row: Row): BatchInput['items'][number] {
  const data = rowData(m.resource as ImportResource, m.mapping, row.cells);
  const idAt = m.mapping.indexOf('id');
  const id = idAt < 0 ? undefined : Number(row.cells[idAt]?.trim() || Number.NaN);
  const op = m.mode;
  if (op === 'create' || id === undefined || Number.isNaN(id)) return { op, data };
  return { op, id, data };
}

/** The chunk's rows as batch items (the readable ones), and the rows that failed before any batch. */
export function itemsOf(m: ImportMessage, rows: Row[]) {
  const readable = rows.filter((row) => !row.problem);
  const input: BatchInput = { atomic: false, items: readable.map((row) => itemOf(m, row)) };
  const failedBefore: RowError[] = rows
    .filter((row) => row.problem)
    .map((row) => ({ line: row.line, cells: row.cells, reason: row.problem?.message ?? '' }));
  return { readable, input, failedBefore };
}

/** Writes the chunk; answers where the next one starts, or done. */
export async function runChunk(db: Db, bucket: R2Bucket, m: ImportMessage, now: number) {
  const chunk = await readChunk(bucket, m);
  const resource = resources[m.resource as ImportResource];
  const { readable, input, failedBefore } = itemsOf(m, chunk.rows);
  await runBatch(db, m.key_hash, resource as never, input, [], (planned, failed) => {
    const errors = [
      ...failedBefore,
      ...failed.map((f) => {
        const row = readable[f.index] as Row;
        return { line: row.line, cells: row.cells, reason: 'error' in f ? reasonOf(f.error) : '' };
      }),
    ].sort((a, b) => a.line - b.line);
    const created = planned.filter((p) => p.created).length;
    const progress = {
      ...{ next: chunk.next, line: chunk.line, rows: chunk.rows.length, created },
      ...{ updated: planned.flatMap((p) => p.read ?? []), failed: errors.length, done: chunk.done, now },
    };
    // The progress goes last: it counts the updates whose record the journal left at its version.
    return {
      first: [chunkGuard(db, m.import_id, m.offset, errors)],
      last: [
        ...(progress.updated.length ? [keepUnchanged(db, resource.spec.table, progress.updated)] : []),
        advance(db, m.import_id, resource.spec.table, progress),
      ],
    };
  });
  return chunk;
}
