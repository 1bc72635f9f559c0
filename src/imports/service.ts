/**
 * What `/v1/imports` and the panel's import page both do with an import: check there is room and
 * scope to start one, preview a stored file, read one the key may read, write its failed rows.
 */
import { sql } from 'drizzle-orm';
import { csvLine } from '../core/csv';
import { conflict, notFound } from '../core/errors';
import { writeScopes } from '../core/scopes';
import type { Db } from '../db/client';
import { KeyGrant } from '../db/key-grant';
import { apiKeys } from '../db/schema';
import { type KeyRef, scoped } from '../db/tenant';
import type { ImportMessage } from '../model/import-messages';
import { readHeader } from './create';
import { dryRun } from './dry-run';
import { type ImportResource, mapHeader } from './fields';
import {
  activeImports,
  type ImportRow,
  importById,
  importErrors,
  importOfFile,
  MAX_ACTIVE_IMPORTS,
  type RowError,
} from './store';

type Mode = ImportMessage['mode'];

const requireAll = (key: KeyRef, resource: ImportResource, mode: Mode) => {
  if (key instanceof KeyGrant) key.requireAll(writeScopes(resource, [mode]));
};

/**
 * The account's id and the key's hash (what an import's chunks write with: a panel session's key
 * is known by its session), once the key holds the scopes and the account has room for an import;
 * `started`: the import already made of the stored file `fileKey`, if one was.
 */
export async function roomForImport(db: Db, key: KeyRef, resource: ImportResource, mode: Mode, fileKey = '') {
  const [accountId, [active], [own], [started]] = await scoped(
    db,
    key,
    activeImports(db, key),
    db.select({ hash: apiKeys.keyHash }).from(apiKeys).where(sql`${apiKeys.keyHash} = ${key}`),
    importOfFile(db, key, fileKey),
  );
  requireAll(key, resource, mode);
  // The same stored file started twice (a double click) is the import it started.
  if (started) return { accountId, keyHash: own?.hash ?? '', started: started.id };
  if ((active?.n ?? 0) >= MAX_ACTIVE_IMPORTS) {
    throw conflict(
      `At most ${MAX_ACTIVE_IMPORTS} imports of an account run at once: wait for one to end, or cancel one.`,
    );
  }
  return { accountId, keyHash: own?.hash ?? '', started: undefined };
}

/** How a stored file would be read and its first rows written (`dry_run=true`), writing nothing. */
export async function previewFile(
  db: Db,
  bucket: R2Bucket,
  key: KeyRef,
  file: { key: string; size: number },
  options: { resource: ImportResource; mode: Mode; mapping?: Record<string, string | null> },
) {
  const { resource, mode } = options;
  const head = await readHeader(bucket, file.key);
  const mapping = mapHeader(resource, head.header, options.mapping);
  const message: ImportMessage = {
    ...{ kind: 'import_chunk', import_id: 0, key_hash: '', resource, mode, file_key: file.key },
    ...{ delimiter: head.delimiter, mapping, offset: head.offset, line: head.line },
  };
  const rows = head.offset >= file.size ? [] : await dryRun(db, bucket, key, message);
  return {
    resource,
    mode,
    columns: head.header.map((header, i) => ({ header, field: mapping[i] ?? null })),
    ignored_columns: head.header.filter((_, i) => mapping[i] === null),
    rows,
  };
}

/** The import, read with the key; 404 for another account's; 403 without its scopes. */
export async function readImport(db: Db, key: KeyRef, id: number): Promise<ImportRow> {
  const [, rows] = await scoped(db, key, importById(db, key, id));
  const row = rows[0];
  if (!row) throw notFound();
  requireAll(key, row.resource as ImportResource, row.mode as Mode);
  return row;
}

/** Every failed row in the file's own columns, with its line number and the reason, as CSV. */
export async function errorsCsv(db: Db, row: ImportRow): Promise<string> {
  const chunks = await importErrors(db, row.id);
  const errors = chunks.flatMap((chunk) => (chunk.errors ?? []) as RowError[]);
  return [
    csvLine(['line', ...row.header, 'error'], 'csv'),
    ...errors.map((e) => csvLine([e.line, ...row.header.map((_, i) => e.cells[i] ?? ''), e.reason], 'csv')),
  ].join('');
}
