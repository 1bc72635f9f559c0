import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import worker from '../../../src/index';
import { BASE, d1OfRow, type Json, json } from '../../helpers';

/** Windows-1252 bytes of `text` (every character of it within Latin-1). */
export function cp1252(text: string): Uint8Array {
  return Uint8Array.from(
    [...text].map((ch) => {
      const code = ch.charCodeAt(0);
      if (code > 0xff) throw new Error(`not Latin-1: ${ch}`);
      return code;
    }),
  );
}

/** POST /v1/imports with `file` as a text/csv body (its bytes, its Content-Length). */
export function postImport(
  key: string,
  query: string,
  file: Uint8Array | string,
  type = 'text/csv',
  headers: Record<string, string> = {},
) {
  return exports.default.fetch(importRequest(key, query, file, type, headers));
}

function importRequest(
  key: string,
  query: string,
  file: Uint8Array | string,
  type = 'text/csv',
  headers: Record<string, string> = {},
) {
  const body = typeof file === 'string' ? new TextEncoder().encode(file) : file;
  return new Request(`${BASE}/v1/imports?${query}`, {
    method: 'POST',
    headers: {
      ...headers,
      Authorization: `Bearer ${key}`,
      'Content-Type': type,
      'Content-Length': String(body.length),
    },
    body,
  });
}

/**
 * POST /v1/imports whose chunks go to a queue nothing reads (vitest.config.ts PARKED_MOVES): the
 * import stays queued with its file, as one whose chunk message is late or was refused.
 */
export function postParkedImport(key: string, query: string, file: Uint8Array | string) {
  const parked = { ...env, IMPORTS: env.PARKED_MOVES as unknown as typeof env.IMPORTS };
  return worker.fetch(importRequest(key, query, file), parked, createExecutionContext());
}

const ENDED = ['completed', 'failed', 'cancelled'];

/** The import once it ended, read through GET /v1/imports/{id} (the real queue runs its chunks). */
export async function ended(key: string, id: number): Promise<Json> {
  for (let i = 0; i < 2000; i++) {
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/imports/${id}`, { headers: { Authorization: `Bearer ${key}` } }),
    );
    const { data } = await json(res);
    if (ENDED.includes(data.status)) return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} did not end`);
}

/** An import started and run to its end: its final state. */
export async function runImport(key: string, query: string, file: Uint8Array | string): Promise<Json> {
  const res = await postImport(key, query, file);
  const body = await res.clone().text();
  expect(res.status, body).toBe(202);
  return ended(key, JSON.parse(body).data.id);
}

/** Whether R2 still holds a file under the account's prefix. */
export async function storedFiles(accountId: number): Promise<number> {
  return (await env.IMPORT_FILES.list({ prefix: `imports/${accountId}/` })).objects.length;
}

/** The import's stored row, as the queue reads it (its file's key, its first chunk's offset). */
export const importRow = (id: number) =>
  d1OfRow('imports', id).prepare('SELECT * FROM imports WHERE id = ?').bind(id).first<Json>();

/** Delivers one chunk message to the Worker's queue handler, as a redelivery would. */
export async function deliverChunk(body: Json) {
  const batch = createMessageBatch('crm-imports', [
    { id: 'redelivered', timestamp: new Date(), attempts: 2, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}
