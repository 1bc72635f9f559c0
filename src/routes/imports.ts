import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { list, one } from '../contracts/common';
import { DryRun, Import, ImportListQuery, ImportQuery, importSorts } from '../contracts/imports';
import { invalid } from '../core/errors';
import { imports } from '../db/schema';
import type { AppEnv } from '../env';
import { bodyTooLarge } from '../http/body-limit';
import {
  bookmarkParam,
  errorResponses,
  IdParam,
  idempotencyParam,
  jsonContent,
  router,
  traceHeaders,
} from '../http/openapi';
import { keyset } from '../http/pagination';
import { ApiError } from '../http/problem';
import { linkHeader } from '../http/routes';
import { MAX_FILE_BYTES, startImport } from '../imports/create';
import { errorsCsv, previewFile, readImport, roomForImport } from '../imports/service';
import { cancelImport, type ImportRow, listImports, MAX_ACTIVE_IMPORTS } from '../imports/store';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An import as the API shows it. */
export function presentImport(row: ImportRow, c: Context<AppEnv>) {
  return {
    id: row.id,
    status: row.status as z.infer<typeof Import>['status'],
    resource: row.resource,
    mode: row.mode,
    counts: {
      rows: row.rows,
      created: row.created,
      updated: row.updated,
      unchanged: row.unchanged,
      failed: row.failed,
    },
    columns: row.header.map((header, i) => ({ header, field: row.mapping[i] ?? null })),
    ignored_columns: row.header.filter((_, i) => row.mapping[i] === null),
    error: row.error,
    errors_url: new URL(`/v1/imports/${row.id}/errors.csv`, c.req.url).toString(),
    created_at: iso(row.createdAt) as string,
    finished_at: iso(row.finishedAt),
  };
}

/** The scopes an import of `resource` in `mode` needs, to start it, read it or cancel it. */

/** The file's bytes as R2 stores them: a `text/csv` body streamed, or a multipart `file` part. */
async function fileOf(c: Context<AppEnv>): Promise<{ body: ReadableStream | Blob; size: number }> {
  const type = c.req.header('Content-Type') ?? '';
  if (/^multipart\/form-data/i.test(type)) {
    const form = await c.req.parseBody();
    const file = form.file;
    if (!(file instanceof File)) {
      throw invalid([{ path: 'file', code: 'required', message: 'Send the CSV as the form part `file`.' }]);
    }
    if (file.size === 0) throw invalid([{ path: 'file', code: 'required', message: 'The file is empty.' }]);
    return { body: file, size: file.size };
  }
  if (!/^text\/(csv|plain)/i.test(type)) {
    throw new ApiError(
      415,
      'unsupported_media_type',
      'Send the CSV as text/csv, or as multipart/form-data with a `file` part.',
    );
  }
  const size = Number(c.req.header('Content-Length') ?? Number.NaN);
  if (!c.req.raw.body || !Number.isInteger(size)) {
    throw invalid([
      { path: 'file', code: 'required', message: 'Send the file as the body, with its Content-Length.' },
    ]);
  }
  // With an Idempotency-Key the gate has read the body (to hash it, 1 MiB at most): its copy.
  if (c.req.header('Idempotency-Key') !== undefined)
    return { body: new Blob([await c.req.arrayBuffer()]), size };
  return { body: c.req.raw.body, size };
}

function mappingOf(raw: string | undefined): Record<string, string | null> | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    const ok =
      parsed !== null &&
      typeof parsed === 'object' &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((v) => v === null || typeof v === 'string');
    if (ok) return parsed as Record<string, string | null>;
  } catch {}
  throw invalid([
    {
      path: 'mapping',
      code: 'invalid',
      message: 'mapping must be a JSON object of header → field name (or null).',
    },
  ]);
}

const startRoute = createRoute({
  method: 'post',
  path: '/',
  operationId: 'startImport',
  tags: ['Imports'],
  security: [{ bearerAuth: [] }],
  summary: 'Import a CSV file',
  parameters: [idempotencyParam],
  description: `The file (a \`text/csv\` body, or multipart \`file\`, up to ${MAX_FILE_BYTES} bytes) is stored and read in chunks of 100 rows by a queue, each chunk written as one batch (\`POST /v1/{resource}/batch\`'s rules). 202 with the import; \`GET /v1/imports/{id}\` shows its progress. Needs the resource's scopes for the mode: \`:insert\` to create, \`:update\` to update (both for upserts). At most ${MAX_ACTIVE_IMPORTS} imports of an account queued or running at once.`,
  request: {
    query: ImportQuery,
    body: {
      content: {
        'text/csv': { schema: z.string() },
        'multipart/form-data': { schema: z.object({ file: z.string().openapi({ format: 'binary' }) }) },
      },
    },
  },
  responses: {
    200: jsonContent(one(DryRun, 'ImportDryRun'), '`dry_run=true`: how the first 100 rows would be written'),
    202: jsonContent(one(Import, 'Import'), 'Queued'),
    ...errorResponses(400, 403, 409, 413, 415, 422, 429),
  },
});

const listRoute = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listImports',
  tags: ['Imports'],
  security: [{ bearerAuth: [] }],
  summary: "The account's imports, newest first",
  description:
    "Each import the key may read: those of a resource whose scopes it holds for the import's mode (as `GET /v1/imports/{id}`). Keyset pages, as every list.",
  parameters: [bookmarkParam],
  request: { query: ImportListQuery },
  responses: {
    200: jsonContent(list(Import, 'Import'), 'One page', linkHeader),
    ...errorResponses(400, 429),
  },
});

const getImport = createRoute({
  method: 'get',
  path: '/{id}',
  operationId: 'getImport',
  tags: ['Imports'],
  security: [{ bearerAuth: [] }],
  summary: 'An import and its progress',
  description:
    'Its status, its counts so far (rows read, created, updated, failed), each column and the field it maps to, and the URL of its failed rows.',
  parameters: [bookmarkParam],
  request: { params: IdParam },
  responses: { 200: jsonContent(one(Import, 'Import'), 'The import'), ...errorResponses(400, 403, 404, 429) },
});

const cancelRoute = createRoute({
  method: 'post',
  path: '/{id}/cancel',
  operationId: 'cancelImport',
  tags: ['Imports'],
  security: [{ bearerAuth: [] }],
  summary: 'Cancel an import',
  parameters: [idempotencyParam],
  description: 'Chunks written stay written; the chunk in flight writes nothing; the file is deleted.',
  request: { params: IdParam },
  responses: {
    200: jsonContent(one(Import, 'Import'), 'Cancelled (or already ended)'),
    ...errorResponses(400, 403, 404, 409, 422, 429),
  },
});

const errorsRoute = createRoute({
  method: 'get',
  path: '/{id}/errors.csv',
  operationId: 'getImportErrors',
  tags: ['Imports'],
  security: [{ bearerAuth: [] }],
  summary: "An import's failed rows as CSV",
  description: "Each failed row in the file's own columns, with its line number and the reason.",
  parameters: [bookmarkParam],
  request: { params: z.object({ id: IdParam.shape.id }) },
  responses: {
    200: { description: 'The CSV', headers: traceHeaders, content: { 'text/csv': { schema: z.string() } } },
    ...errorResponses(400, 403, 404, 429),
  },
});

/** A dry run on the stored file, which is deleted after it. */
async function tryFile(c: Context<AppEnv>, file: { key: string; size: number }, options: PreviewOptions) {
  try {
    return await previewFile(c.get('db'), c.env.IMPORT_FILES, c.get('keyHash'), file, options);
  } finally {
    await c.env.IMPORT_FILES.delete(file.key);
  }
}

type PreviewOptions = Parameters<typeof previewFile>[4];

export const importsRouter = router()
  .openapi(listRoute, async (c) => {
    const page = keyset<ImportRow>(imports, importSorts, c.req.valid('query'));
    const rows = await listImports(c.get('db'), c.get('keyHash'), page);
    return c.json(
      page.page(c, rows, (row) => presentImport(row, c)),
      200,
    );
  })
  .openapi(startRoute, async (c) => {
    const q = c.req.valid('query');
    const mode = q.mode ?? 'upsert';
    const mapping = mappingOf(q.mapping);
    const db = c.get('db');
    const { accountId } = await roomForImport(db, c.get('keyHash'), q.resource, mode);
    const file = await fileOf(c);
    if (file.size > MAX_FILE_BYTES) throw bodyTooLarge(MAX_FILE_BYTES);
    const key = `imports/${accountId}/${crypto.randomUUID()}.csv`;
    const stored = await c.env.IMPORT_FILES.put(key, file.body, {
      httpMetadata: { contentType: 'text/csv' },
    });
    // What R2 holds is the file's size, whatever a header said.
    if (!stored?.size) {
      await c.env.IMPORT_FILES.delete(key);
      throw invalid([{ path: 'file', code: 'required', message: 'The file is empty.' }]);
    }
    if (q.dry_run === 'true')
      return c.json(
        { data: await tryFile(c, { key, size: stored.size }, { resource: q.resource, mode, mapping }) },
        200,
      );
    const { row } = await startImport(
      db,
      c.env,
      { key, size: stored.size, keyHash: c.get('apiKeyHash'), accountId },
      { resource: q.resource, mode, mapping },
      Date.now(),
    );
    return c.json({ data: presentImport(row, c) }, 202);
  })
  .openapi(getImport, async (c) =>
    c.json(
      { data: presentImport(await readImport(c.get('db'), c.get('keyHash'), c.req.valid('param').id), c) },
      200,
    ),
  )
  .openapi(cancelRoute, async (c) => {
    const row = await readImport(c.get('db'), c.get('keyHash'), c.req.valid('param').id);
    const [cancelled] = await cancelImport(c.get('db'), c.get('keyHash'), row.id, Date.now());
    if (cancelled) await c.env.IMPORT_FILES.delete(cancelled.fileKey);
    return c.json({ data: presentImport(cancelled ?? row, c) }, 200);
  })
  .openapi(errorsRoute, async (c) => {
    const row = await readImport(c.get('db'), c.get('keyHash'), c.req.valid('param').id);
    const csv = await errorsCsv(c.get('db'), row);
    return c.body(csv, 200, { 'Content-Type': 'text/csv; charset=utf-8' }) as never;
  });
