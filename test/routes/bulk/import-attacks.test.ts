import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../../src/index';
import { accountsOnShard, BASE, call, expectProblem, json, newAccount } from '../../helpers';
import { postImport, runImport, storedFiles } from './import-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

/** A body that never ends: `chunk` again and again for as long as it is read; `pulled` counts reads. */
function endless(chunk: Uint8Array) {
  const read = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      read.pulled++;
      controller.enqueue(chunk);
    },
  });
  return { body, read };
}

/**
 * POST /v1/imports with a streamed body, handed to the Worker in this isolate (through `exports`
 * the runtime pipes the stream across and logs the pipe's abort when the Worker stops reading).
 */
const postStream = (key: string, body: ReadableStream, headers: Record<string, string> = {}) =>
  worker.fetch(
    new Request(`${BASE}/v1/imports?resource=contacts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/csv', ...headers },
      body,
    }),
    env,
    createExecutionContext(),
  );

const MiB = 1024 * 1024;

describe('imports: huge lines, endless files, quotas', () => {
  it('a 5 MiB line with no line break fails alone with its reason; the rows around it are written', async () => {
    const { id, key } = await newAccount();
    const huge = 'x'.repeat(5 * MiB);
    const quoted = `"${'y'.repeat(4 * MiB)}\n${'y'.repeat(MiB)}"`;
    const file = `name,email\nAna,ana@h.example\n${huge},h@h.example\nBia,bia@h.example\n${quoted},q@h.example\nCai,cai@h.example\n`;
    const done = await runImport(key, 'resource=contacts&mode=create', file);
    expect(done).toMatchObject({
      status: 'completed',
      error: null,
      counts: { rows: 5, created: 3, failed: 2 },
    });
    const errors = (await (await call(`/v1/imports/${done.id}/errors.csv`, { key })).text()).split('\r\n');
    // The quoted one holds a line break: the row after it starts on line 7.
    expect(errors.slice(1, 3)).toEqual(['3,,,The row is over 32 KiB.', '5,,,The row is over 32 KiB.']);
    const names = (await json(await call('/v1/contacts?sort=name', { key }))).data.map(
      (c: { name: string }) => c.name,
    );
    expect(names).toEqual(['Ana', 'Bia', 'Cai']);
    expect(await storedFiles(id)).toBe(0);
  });

  it('a quoted cell that opens on a long line and never closes fails alone at the end', async () => {
    const { key } = await newAccount();
    const file = `name,email\nAna,ana@u.example\n"${'z'.repeat(4 * MiB)},u@u.example\nnever,closed\n`;
    const done = await runImport(key, 'resource=contacts&mode=create', file);
    expect(done).toMatchObject({ status: 'completed', counts: { rows: 2, created: 1, failed: 1 } });
    const errors = await (await call(`/v1/imports/${done.id}/errors.csv`, { key })).text();
    expect(errors.split('\r\n')[1]).toBe('3,,,A quoted cell never ends.');
  });

  it('a header line of 5 MiB is a 422, and the file is not kept', async () => {
    const { id, key } = await newAccount();
    const res = await postImport(key, 'resource=contacts', `${'h'.repeat(5 * MiB)}\nAna\n`);
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors[0]).toMatchObject({ path: 'file', code: 'no_header' });
    expect(await storedFiles(id)).toBe(0);
  });

  it('a file that never ends: 413 when its length is over the limit, 422 without a length; nothing read or stored', async () => {
    const { id, key } = await newAccount();
    const over = endless(new TextEncoder().encode('name,email\nAna,a@e.example\n'.repeat(1000)));
    const res = await postStream(key, over.body, { 'Content-Length': String(200_000_000) });
    const problem = await expectProblem(res, 413, 'body_too_large');
    expect(problem.detail).toBe('The body is over 100000000 bytes.');
    expect(over.read.pulled).toBeLessThan(3);
    const unframed = endless(new Uint8Array(64 * 1024).fill(0x61));
    await expectProblem(await postStream(key, unframed.body), 422, 'validation_failed');
    expect(unframed.read.pulled).toBeLessThan(3);
    // An Idempotency-Key makes the gate read the body: it stops at its 1 MiB.
    const gated = endless(new Uint8Array(64 * 1024).fill(0x61));
    await expectProblem(await postStream(key, gated.body, { 'Idempotency-Key': 'endless-1' }), 413);
    expect(gated.read.pulled).toBeLessThan(40);
    expect(await storedFiles(id)).toBe(0);
    const imports = await env.DB.prepare('SELECT count(*) AS n FROM imports WHERE account_id = ?')
      .bind(id)
      .first<{ n: number }>();
    expect(imports?.n).toBe(0);
  });

  it('at most 3 imports queued or running per account, also when started at once: 409, no file kept', async () => {
    const { id, key } = await newAccount();
    const file = (n: number) =>
      `name,email\n${Array.from({ length: 2_000 }, (_, i) => `P${i},q${n}.${i}@quota.example`).join('\n')}\n`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => postImport(key, 'resource=contacts&mode=create', file(n))),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 202, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) {
      const problem = await expectProblem(res, 409, 'conflict');
      expect(problem.detail).toMatch(/^At most 3 imports/);
    }
    const started = await Promise.all(
      answers.filter((r) => r.status === 202).map(async (r) => (await json(r)).data.id),
    );
    expect(await storedFiles(id)).toBeLessThanOrEqual(3);
    await expectProblem(await postImport(key, 'resource=contacts', file(7)), 409, 'conflict');
    for (const importId of started) await call(`/v1/imports/${importId}/cancel`, { method: 'POST', key });
    expect(await storedFiles(id)).toBe(0);
    // Room again once they ended.
    const next = await runImport(key, 'resource=contacts&mode=create', 'name,email\nZé,ze@quota.example\n');
    expect(next.counts).toMatchObject({ created: 1 });
  });
});
