import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { shardOf } from '../../src/db/shards';
import worker from '../../src/index';
import { withCheckDigits } from '../cnpj';
import {
  adminHeaders,
  call,
  callWithEnv,
  countOnEveryShard,
  create,
  expectProblem,
  type Json,
  json,
  newAccount,
  newKey,
  newWebhook,
  postEvent,
} from '../helpers';
import { runImport } from '../routes/bulk/import-support';
import {
  deliverStep,
  fingerprint,
  inRange,
  move,
  moveRow,
  parked,
  startMove,
  stepMessage,
  stepUntil,
} from './support';

// Moving an account between shards (src/moves/, docs/scaling.md "Moving an account"). The suite's
// Worker has 3 shards; each test makes its own small account.

let serial = 0;
/** An account on `shard` with a row in most tables: users, companies, contacts, deals, tasks, a webhook and its event. */
async function seeded(shard: number, name = 'Movida') {
  const account = await newAccount(name, shard);
  const key = account.key;
  serial += 1;
  const user = await create(key, '/v1/users', {
    name: `Vendedor ${name}`,
    email: `v${serial}-${crypto.randomUUID()}@example.com`,
  });
  const cnpj = withCheckDigits(
    `${String(Date.now() % 1e8).padStart(8, '0')}${shard}${serial % 10}01`.slice(-12),
  );
  const company = await create(key, '/v1/companies', { name: `Empresa ${name}`, cnpj, owner_id: user.id });
  const contact = await create(key, '/v1/contacts', { name: `Zenaide ${name}`, company_id: company.id });
  const deal = await create(key, '/v1/deals', { name: `Negócio ${name}`, contact_id: contact.id });
  const task = await create(key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Ligar',
    category: 'Call',
    owner_id: user.id,
  });
  const idem = await call('/v1/contacts', {
    method: 'POST',
    key,
    body: { name: `Idem ${name}` },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  expect(idem.status).toBe(201);
  const hook = await newWebhook(key);
  // Kept off the real queue: the event stays pending, and the move queues it on the new shard.
  expect((await postEvent(hook.path, { nome: 'Lead', __fault: 'send' })).status).toBe(204);
  return { ...account, user, company, contact, deal, task, hook };
}

const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
  callWithEnv(parked, path, { ...init, headers: adminHeaders() });

describe('moving an account', () => {
  it('copies every table with its ids to the new shard, verified by counts and checksums, and leaves its neighbours alone', async () => {
    const [mover, neighbourFrom, neighbourTo] = await Promise.all([
      seeded(1),
      seeded(1, 'Vizinho'),
      seeded(2, 'Outro'),
    ]);
    const before = await fingerprint(1, mover.id);
    const neighbours = [await fingerprint(1, neighbourFrom.id), await fingerprint(2, neighbourTo.id)];
    expect(Object.values(before).filter(([n]) => n > 0).length).toBeGreaterThanOrEqual(15);

    const done = await move(mover.id, 2);
    expect(done).toMatchObject({
      account_id: mover.id,
      from: 1,
      to: 2,
      state: 'done',
      phase: 'drain',
      error: null,
    });
    for (const [table, stats] of Object.entries(done.tables as Record<string, Json>)) {
      expect(stats.rows_to, table).toBe(stats.rows_from);
      expect(stats.checksum_to, table).toBe(stats.checksum_from);
      expect(stats.rows_from, table).toBe(before[table]?.[0]);
    }
    expect(done.frozen_seconds).toBeGreaterThanOrEqual(0);

    // Every row on shard 2 as it was on shard 1 (the derived counters included), none left on 1.
    expect(await fingerprint(2, mover.id)).toEqual(before);
    const gone = await fingerprint(1, mover.id);
    for (const [table, [n]] of Object.entries(gone)) expect(n, table).toBe(0);
    expect(await fingerprint(1, neighbourFrom.id)).toEqual(neighbours[0]);
    expect(await fingerprint(2, neighbourTo.id)).toEqual(neighbours[1]);

    // The directory names shard 2; a key made now is shard 2's, and reads the moved rows by their ids.
    const entry = await json(await admin(`/admin/accounts/${mover.id}`));
    expect(entry.data.shard).toBe(2);
    const key = (await newKey(mover.id, ['*:*'])).key as string;
    expect(key).toMatch(/^crm_s2_/);
    const contact = await json(await call(`/v1/contacts/${mover.contact.id}`, { key }));
    expect(contact.data).toMatchObject({ id: mover.contact.id, company_id: mover.company.id });
    // The search index was filled by the base table's triggers on the new shard.
    const found = await json(await call('/v1/contacts?name__contains=zenaide', { key }));
    expect(found.data.map((c: Json) => c.id)).toEqual([mover.contact.id]);
    const categories = await json(await call('/v1/task-categories', { key }));
    expect(categories.data).toEqual([expect.objectContaining({ name: 'Call', task_count: 1 })]);

    // Rows made after the move, by it and by a neighbour, take ids of shard 2's range, above the moved ones.
    const later = await create(key, '/v1/contacts', { name: 'Depois' });
    expect(inRange('contacts', 2, later.id)).toBe(true);
    const neighbourContact = await create(neighbourTo.key, '/v1/contacts', { name: 'Vizinho depois' });
    expect(inRange('contacts', 2, neighbourContact.id)).toBe(true);
    expect(later.id).not.toBe(neighbourContact.id);
  });

  it('refuses its writes with 503 account_moving and Retry-After while frozen; reads answer 200', async () => {
    const mover = await seeded(0);
    const res = await startMove(mover.id, { to: 2 });
    expect(res.status).toBe(202);
    const { data } = await json(res);
    expect(res.headers.get('Location')).toBe(`/admin/moves/${data.id}`);
    const frozen = await stepUntil(data.id, (row) => row.progress.phase === 'prune');
    expect(frozen.state).toBe('switching');

    const refused = await call('/v1/contacts', { method: 'POST', key: mover.key, body: { name: 'Durante' } });
    const problem = await expectProblem(refused, 503, 'account_moving');
    expect(refused.headers.get('Retry-After')).toBe('5');
    expect(problem.detail).toMatch(/being moved/);
    const update = await call(`/v1/contacts/${mover.contact.id}`, {
      method: 'PUT',
      key: mover.key,
      body: { name: 'Outro' },
    });
    await expectProblem(update, 503, 'account_moving');
    expect((await call(`/v1/contacts/${mover.contact.id}`, { key: mover.key })).status).toBe(200);
    expect((await call('/v1/contacts', { key: mover.key })).status).toBe(200);

    const seen = await json(await admin(`/admin/moves/${data.id}`));
    expect(seen.data).toMatchObject({ state: 'switching', from: 0, to: 2 });
    expect(seen.data.frozen_seconds).toBeGreaterThanOrEqual(0);
    expect((await stepUntil(data.id)).state).toBe('done');
    const moved = await fingerprint(2, mover.id);
    expect(moved.contacts?.[0]).toBe(2);
  });

  it("waits for the account's imports: 409 import_running while one is queued or running", async () => {
    const mover = await newAccount('Importa', 0);
    const done = await runImport(mover.key, 'resource=contacts&mode=create', 'name\nAna\n');
    expect(done.status).toBe('completed');
    // The import as it was while its chunks ran (each would be refused for the length of the freeze).
    const setStatus = (status: string) =>
      shardOf(env, 0).prepare('UPDATE imports SET status = ? WHERE id = ?').bind(status, done.id).run();
    for (const status of ['queued', 'running']) {
      await setStatus(status);
      await expectProblem(await startMove(mover.id, { to: 1 }), 409, 'import_running');
    }
    await setStatus('completed');
    const started = await startMove(mover.id, { to: 1 });
    expect(started.status, await started.clone().text()).toBe(202);
    expect((await stepUntil((await json(started)).data.id)).state).toBe('done');
  });

  it('answers 404 for an unknown account or move, 422 for a shard it lacks or the one it is on, 409 while a move runs', async () => {
    const mover = await newAccount('Movida', 1);
    await expectProblem(await startMove(999_999, { to: 1 }), 404, 'not_found');
    await expectProblem(await admin('/admin/moves/999999'), 404, 'not_found');
    const missing = await expectProblem(await startMove(mover.id, { to: 3 }), 422, 'validation_failed');
    expect(missing.errors).toEqual([expect.objectContaining({ path: 'to', code: 'invalid' })]);
    const same = await expectProblem(await startMove(mover.id, { to: 1 }), 422, 'validation_failed');
    expect(same.errors).toEqual([expect.objectContaining({ path: 'to', code: 'same_shard' })]);
    await expectProblem(await startMove(mover.id, { to: 64 }), 422, 'validation_failed');
    // Down is refused: SQLite would give shard 0's later rows ids after the moved ones, in shard 1's range.
    const down = await expectProblem(await startMove(mover.id, { to: 0 }), 422, 'validation_failed');
    expect(down.errors).toEqual([expect.objectContaining({ path: 'to', code: 'lower_shard' })]);
    await expectProblem(await startMove(mover.id, { to: '2' }), 422, 'validation_failed');
    const none = await expectProblem(await startMove(mover.id, {}), 422, 'validation_failed');
    expect(none.errors).toEqual([expect.objectContaining({ path: 'to', code: 'required' })]);
    // An unknown account is a 404 whatever the body.
    await expectProblem(await startMove(999_999, {}), 404, 'not_found');
    const first = await startMove(mover.id, { to: 2 });
    expect(first.status).toBe(202);
    await expectProblem(await startMove(mover.id, { to: 2 }), 409, 'move_in_progress');
    // Admin-only, as every /admin route.
    const anonymous = await call(`/admin/accounts/${mover.id}/move`, {
      method: 'POST',
      body: { to: 2 },
      key: mover.key,
    });
    await expectProblem(anonymous, 401, 'unauthorized');
    expect((await stepUntil((await json(first)).data.id)).state).toBe('done');
    // Done, and on shard 2, the highest: no further move up.
    await expectProblem(await startMove(mover.id, { to: 1 }), 422, 'validation_failed');
  });

  it('changes nothing when a step message is delivered again, or names no step of a move', async () => {
    const mover = await seeded(1);
    const { data } = await json(await startMove(mover.id, { to: 2 }));
    const copying = await stepUntil(data.id, (row) => row.progress.phase === 'copy' && row.progress.step > 3);
    const stale = stepMessage(data.id, copying.progress.step - 1);
    const result = await deliverStep(stale);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await moveRow(data.id)).toEqual(copying);
    const odd = await deliverStep({ kind: 'move_step', move_id: 'x', step: 1 });
    expect(odd.explicitAcks).toHaveLength(1);
    const done = await stepUntil(data.id);
    // The last step again: the move is done and stays so.
    await deliverStep(stepMessage(data.id, done.progress.step - 1));
    expect(await moveRow(data.id)).toEqual(done);
    expect(done.state).toBe('done');
    for (const [table, [n]] of Object.entries(await fingerprint(1, mover.id))) expect(n, table).toBe(0);
  });

  it('the cron sends again the step of a move untouched for five minutes, which then runs to its end; a recent one is left', async () => {
    const [stalled, recent] = await Promise.all([seeded(1, 'Parada'), seeded(1, 'Recente')]);
    // Both first steps are parked: lost, as a send that never arrived.
    const lost = (await json(await startMove(stalled.id, { to: 2 }))).data.id;
    const waiting = (await json(await startMove(recent.id, { to: 2 }))).data.id;
    await env.DB.prepare('UPDATE account_moves SET updated_at = ? WHERE id = ?')
      .bind(Date.now() - 6 * 60_000, lost)
      .run();
    const before = await moveRow(waiting);
    // The real queue's consumer runs the step the cron sends, and each step sends the next.
    await worker.scheduled(createScheduledController({ cron: '*/5 * * * *' }), env);
    await vi.waitFor(async () => expect((await moveRow(lost)).state).toBe('done'), {
      timeout: 20_000,
      interval: 200,
    });
    expect((await fingerprint(2, stalled.id)).contacts?.[0]).toBeGreaterThan(0);
    expect(await moveRow(waiting)).toEqual(before);
  });

  it('fails a move whose verify finds the shards differ: the account is served from the old shard, the new copy deleted', async () => {
    const mover = await seeded(0);
    const before = await fingerprint(0, mover.id);
    const { data } = await json(await startMove(mover.id, { to: 1 }));
    await stepUntil(data.id, (row) => row.progress.phase === 'verify');
    // A difference the verify must catch (planted in its figures: the copy itself never differs).
    await env.DB.prepare(
      "UPDATE account_moves SET tables = json_set(tables, '$.contacts.checksum_to', 'x') WHERE id = ?",
    )
      .bind(data.id)
      .run();
    const failed = await stepUntil(data.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/contacts differs/);
    expect((await json(await admin(`/admin/accounts/${mover.id}`))).data.shard).toBe(0);
    expect(await fingerprint(0, mover.id)).toEqual(before);
    for (const [table, [n]] of Object.entries(await fingerprint(1, mover.id))) expect(n, table).toBe(0);
    const freezes = await countOnEveryShard(
      'SELECT count(*) AS n FROM account_freezes WHERE account_id = ?',
      mover.id,
    );
    expect(freezes).toBe(0);
    expect(
      (await call('/v1/contacts', { method: 'POST', key: mover.key, body: { name: 'Depois' } })).status,
    ).toBe(201);
  });

  it('moves an account of more than a page while it is written to and posted to: every acknowledged row once, none left behind', async () => {
    const account = await newAccount('Cheia', 0);
    const hook = await newWebhook(account.key, {
      fields: [{ key: 'nome', type: 'string', target: 'contact.name' }],
    });
    const items = Array.from({ length: 100 }, (_, i) => ({ op: 'create', data: { name: `Semente ${i}` } }));
    for (let b = 0; b < 6; b++)
      expect(
        (await call('/v1/contacts/batch', { method: 'POST', key: account.key, body: { items } })).status,
      ).toBe(200);
    const { data } = await json(await startMove(account.id, { to: 1 }));
    const created: number[] = [];
    let accepted = 0;
    const statuses = new Set<number>();
    for (let i = 0; ; i++) {
      const row = await moveRow(data.id);
      if (row.state === 'done' || row.state === 'failed') break;
      // Between every two steps: a write (201, or 503 while frozen) and a webhook call (always 204).
      const res = await call('/v1/contacts', {
        method: 'POST',
        key: account.key,
        body: { name: `Durante ${i}` },
      });
      statuses.add(res.status);
      if (res.status === 201) created.push((await json(res)).data.id);
      else await expectProblem(res, 503, 'account_moving');
      expect((await postEvent(hook.path, { nome: `Lead ${i}` })).status).toBe(204);
      accepted += 1;
      await deliverStep(stepMessage(data.id, row.progress.step));
    }
    expect((await moveRow(data.id)).state).toBe('done');
    expect([...statuses].sort()).toEqual([201, 503]);
    const on = (shard: number, sql: string) =>
      shardOf(env, shard).prepare(sql).bind(account.id).first<number>('n');
    expect(await on(1, 'SELECT count(*) AS n FROM contacts WHERE account_id = ?')).toBe(600 + created.length);
    expect(await on(1, 'SELECT count(DISTINCT id) AS n FROM contacts WHERE account_id = ?')).toBe(
      600 + created.length,
    );
    const ids = await shardOf(env, 1)
      .prepare(`SELECT count(*) AS n FROM contacts WHERE account_id = ? AND id IN (${created.join(',')})`)
      .bind(account.id)
      .first<number>('n');
    expect(ids).toBe(created.length);
    expect(await on(1, 'SELECT count(*) AS n FROM inbound_events WHERE account_id = ?')).toBe(accepted);
    for (const table of ['contacts', 'inbound_events', 'journal_entries', 'held_events', 'accounts'])
      expect(
        await on(
          0,
          `SELECT count(*) AS n FROM ${table} WHERE ${table === 'accounts' ? 'id' : 'account_id'} = ?`,
        ),
        table,
      ).toBe(0);
  });
});
