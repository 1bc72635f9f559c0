import { z } from '@hono/zod-openapi';
import { DomainError } from '../../core/errors';
import type { KeyGrant } from '../../db/key-grant';
import { imports } from '../../db/schema';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import { readHeader, startImport } from '../../imports/create';
import { IMPORT_RESOURCES, type ImportResource, importFields } from '../../imports/fields';
import { errorsCsv, previewFile, readImport, roomForImport } from '../../imports/service';
import { cancelImport, type ImportRow, listImports } from '../../imports/store';
import { importWords } from '../import-words';
import { type C, idOf, pageOf } from '../page';
import { importPage, importsPage, previewPage } from '../views/imports';

// The import page (docs/import-export.md#the-panel): the same service functions as /v1/imports
// (src/imports/), with the session's key; the file sent once is kept in R2 under the account's
// prefix between the preview and the start, and named by its key in the form.

/** The largest file the panel's form takes: it is read whole by the form parser, not streamed. */
export const PANEL_FILE_BYTES = 25 * 1024 * 1024;

/** How many recent imports the page lists. */
const RECENT = 20;

const Choice = z.object({
  resource: z.enum(IMPORT_RESOURCES),
  mode: z.enum(['upsert', 'create', 'update']),
});

type Form = Record<string, string | File | (string | File)[]>;

const choiceOf = (form: Form) => {
  const parsed = Choice.safeParse({ resource: form.resource, mode: form.mode });
  if (!parsed.success) throw badRequest('invalid_query', 'Choose what the rows are and how to write them.');
  return parsed.data;
};

/** Whether the key may start an import of some kind: it holds a resource's insert or update. */
const canImport = (c: C) => {
  const p = pageOf(c, true);
  return IMPORT_RESOURCES.some((r) => p.can(`${r}:insert`) || p.can(`${r}:update`));
};

/** The file form and the recent imports; with `error`, the form refused for it. */
async function listed(c: C, key: KeyGrant, error?: string) {
  const page = keyset<ImportRow>(imports, { created_at: 'createdAt' }, { limit: RECENT });
  const rows = await listImports(c.get('db'), key, page);
  const body = importsPage(pageOf(c, true), rows.slice(0, RECENT), canImport(c), error);
  return error ? c.html(body, 422) : c.html(body);
}

export const importsList = (c: C, key: KeyGrant) => listed(c, key);

/** The stored file a form names: one of this account's, still in R2. */
async function storedFile(c: C, accountId: number, fileKey: unknown) {
  const ok =
    typeof fileKey === 'string' && new RegExp(`^imports/${accountId}/[0-9a-f-]{36}\\.csv$`).test(fileKey);
  const head = ok ? await c.env.IMPORT_FILES.head(fileKey) : null;
  return head ? { key: head.key, size: head.size } : undefined;
}

/** The form's column choices as `/v1`'s mapping (header → field, null: ignored). */
async function mappingOf(c: C, fileKey: string, resource: ImportResource, form: Form) {
  if (!Object.keys(form).some((name) => name.startsWith('map.'))) return undefined;
  const { header } = await readHeader(c.env.IMPORT_FILES, fileKey);
  // Own properties, even for a header named `__proto__`.
  return Object.fromEntries(
    header.map((cell, i) => {
      const field = form[`map.${i}`];
      return [cell, typeof field === 'string' && Object.hasOwn(importFields[resource], field) ? field : null];
    }),
  );
}

/** The file sent now (stored under the account's prefix), or the one an earlier preview stored. */
async function fileOf(c: C, accountId: number, form: Form) {
  const file = form.file;
  if (file instanceof File && file.size > 0) {
    const key = `imports/${accountId}/${crypto.randomUUID()}.csv`;
    const stored = await c.env.IMPORT_FILES.put(key, file, { httpMetadata: { contentType: 'text/csv' } });
    return { key, size: stored?.size ?? file.size };
  }
  return storedFile(c, accountId, form.file_key);
}

/** The columns and the first rows as `dry_run=true` gives them, nothing written. */
export async function previewImport(c: C, key: KeyGrant): Promise<Response> {
  const form = (await c.req.parseBody()) as Form;
  const w = importWords[pageOf(c, true).lang];
  const { resource, mode } = choiceOf(form);
  const { accountId } = await roomForImport(c.get('db'), key, resource, mode);
  const file = await fileOf(c, accountId, form);
  if (!file) return listed(c, key, form.file_key ? w.fileGone : w.noFile);
  try {
    const mapping = await mappingOf(c, file.key, resource, form);
    const preview = await previewFile(c.get('db'), c.env.IMPORT_FILES, key, file, {
      resource,
      mode,
      mapping,
    });
    return c.html(previewPage(pageOf(c, true), file.key, preview));
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'validation_failed') throw err;
    await c.env.IMPORT_FILES.delete(file.key);
    return listed(c, key, err.errors?.[0]?.message ?? err.message);
  }
}

/** Starts the import of the previewed file with the columns chosen; to its progress page. */
export async function startFromPanel(c: C, key: KeyGrant): Promise<Response> {
  const form = (await c.req.parseBody()) as Form;
  const { resource, mode } = choiceOf(form);
  const db = c.get('db');
  const fileKey = typeof form.file_key === 'string' ? form.file_key : '';
  const room = await roomForImport(db, key, resource, mode, fileKey);
  if (room.started) return c.redirect(`/panel/imports/${room.started}`, 303);
  const { accountId, keyHash } = room;
  const file = await storedFile(c, accountId, fileKey);
  if (!file) return listed(c, key, importWords[pageOf(c, true).lang].fileGone);
  const mapping = await mappingOf(c, file.key, resource, form);
  const { row } = await startImport(
    db,
    c.env,
    { ...file, keyHash, accountId },
    { resource, mode, mapping },
    Date.now(),
  );
  return c.redirect(`/panel/imports/${row.id}`, 303);
}

export async function importShown(c: C, key: KeyGrant): Promise<Response> {
  const row = await readImport(c.get('db'), key, idOf(c));
  return c.html(importPage(pageOf(c, true), row, true));
}

export async function cancelFromPanel(c: C, key: KeyGrant): Promise<Response> {
  const row = await readImport(c.get('db'), key, idOf(c));
  const [cancelled] = await cancelImport(c.get('db'), key, row.id, Date.now());
  if (cancelled) await c.env.IMPORT_FILES.delete(cancelled.fileKey);
  return c.redirect(`/panel/imports/${row.id}`, 303);
}

export async function importErrorsCsv(c: C, key: KeyGrant): Promise<Response> {
  const row = await readImport(c.get('db'), key, idOf(c));
  return c.body(await errorsCsv(c.get('db'), row), 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="import-${row.id}-errors.csv"`,
  });
}
