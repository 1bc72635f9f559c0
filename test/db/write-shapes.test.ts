import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../src/db/client';
import { D1Meter } from '../../src/db/meter';
import { companies, inboundEvents } from '../../src/db/schema';
import { shapes } from '../../src/db/shapes';
import { bumped, created } from '../../src/db/updated';
import { insertRow, insertShaped, updateRow } from '../../src/db/write-shapes';
import { withCheckDigits } from '../cnpj';
import {
  accountsOnShard,
  callWithDb,
  capturingLogs,
  create,
  type Json,
  newAccount,
  newUser,
  newWebhook,
  type Statement,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// The write path's statements prebuilt per shape (src/db/write-shapes.ts, and the shapes of
// refs.ts, links.ts, own.ts's read back, event-log.ts's store) against Drizzle's own: a request of
// one account served from the shapes another account's request left sends exactly the statements
// that Drizzle builds for it with nothing known.

type Side = { key: string; users: number[]; company: number; hook: string };
let a: Side;
let b: Side;

async function side(): Promise<Side> {
  const { key } = await newAccount();
  const users = [(await newUser(key, 'Ana')).id, (await newUser(key, 'Bia')).id];
  const company = (
    await create(key, '/v1/companies', { name: 'Base', cnpj: withCheckDigits('000000000001') })
  ).id;
  const hook = await newWebhook(key, { fields: [{ key: 'nome', type: 'string', required: true }] });
  return { key, users, company, hook: hook.path };
}

beforeAll(async () => {
  a = await side();
  b = await side();
  // One instant for the file: the key's expiry check holds the second as a literal, and a write's
  // timestamps are parameters, so the two runs of a request must see the same clock.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now());
});

afterAll(() => {
  vi.useRealTimers();
});

/**
 * The real D1 seen through a layer that notes every statement, runs the batches that only read,
 * and refuses any batch that writes a row (after noting it): the same request can be sent twice.
 */
function dryD1() {
  const statements: Statement[] = [];
  const sqlOf = new WeakMap<object, string>();
  const session = (inner: D1DatabaseSession) => ({
    prepare: (sql: string) => ({
      bind: (...params: unknown[]) => {
        statements.push({ sql, params });
        const bound = inner.prepare(sql).bind(...params);
        sqlOf.set(bound, sql);
        return bound;
      },
    }),
    batch: (batch: D1PreparedStatement[]) => {
      // The key's own touch (its last use) rides in the first batch: that one runs.
      if (batch.some((s) => /^\s*(insert|delete|update (?!"api_keys"))/i.test(sqlOf.get(s) ?? ''))) {
        return Promise.reject(new Error('dry run: the write batch is not sent'));
      }
      return inner.batch(batch);
    },
    getBookmark: () => inner.getBookmark(),
  });
  const db = { withSession: (c: string) => session(env.DB.withSession(c)) } as unknown as D1Database;
  return { db, statements };
}

async function sent(path: string, options: Json) {
  const d1 = dryD1();
  const hits = shapes.hits;
  const { value: res, logged } = await capturingLogs(() => callWithDb(d1.db, path, options));
  // The dry batch fails the request (and only it): what matters is what it sent.
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(500);
  expect(logged.map((line) => line.cause)).toEqual(['dry run: the write batch is not sent']);
  return { statements: d1.statements, prebuilt: shapes.hits - hits };
}

/** `request(b)` prebuilt from `request(a)`'s shapes, against `request(b)` with nothing known. */
async function expectPrebuiltAsDrizzle(request: (s: Side) => [string, Json], prebuilt: number) {
  shapes.clear();
  await sent(...request(a));
  const ours = await sent(...request(b));
  shapes.clear();
  const drizzles = await sent(...request(b));
  expect(drizzles.prebuilt).toBe(0);
  expect(ours.prebuilt).toBe(prebuilt);
  expect(ours.statements).toEqual(drizzles.statements);
  // The write batch was built, and sent (with the key lookup and the references before it).
  expect(ours.statements.some((s) => /^insert/i.test(s.sql))).toBe(true);
}

const post = (s: Side, path: string, body: Json, headers = {}): [string, Json] => [
  path,
  { method: 'POST', key: s.key, body, headers },
];

describe('write statements prebuilt per shape', () => {
  it('POST /v1/companies with an owner and followers: key, its last use, references, insert, links, its journal entry, read back', async () => {
    await expectPrebuiltAsDrizzle(
      (s) =>
        post(s, '/v1/companies', {
          name: 'Magalhães Ltda',
          cnpj: withCheckDigits('000000000002'),
          owner_id: s.users[0],
          follower_ids: [s.users[1], s.users[0]],
          segment: 'Varejo',
        }),
      // 7, and the journal's 2 for a new row (issue 39: its entry and its version, in the batch).
      9,
    );
  });

  it('POST /v1/companies with nothing but its name and CNPJ', async () => {
    await expectPrebuiltAsDrizzle(
      (s) => post(s, '/v1/companies', { name: 'Só Nome', cnpj: withCheckDigits('000000000003') }),
      7,
    );
  });

  it('PUT /v1/companies/{id} with followers: key, its last use, the row, references, the journal placeholder, the update, links, the journal entry, read back', async () => {
    await expectPrebuiltAsDrizzle(
      (s) => [
        `/v1/companies/${s.company}`,
        { method: 'PUT', key: s.key, body: { name: 'Base 2', follower_ids: [s.users[1]] } },
      ],
      // 8, and the journal's 5: its placeholder before the update, its 4 after.
      13,
    );
  });

  it('POST /hooks/{token}, without and with an Idempotency-Key: the lookup and the batch', async () => {
    const ingest = (headers: Record<string, string>) => (s: Side) =>
      [s.hook, { method: 'POST', body: { nome: 'Ana' }, headers }] as [string, Json];
    // The webhook's lookup and the store; with a key, its release and its holder too.
    await expectPrebuiltAsDrizzle(ingest({}), 2);
    await expectPrebuiltAsDrizzle(ingest({ 'Idempotency-Key': 'k-1' }), 4);
  });
});

describe('insertRow and updateRow', () => {
  const db = () => createDb(env.DB.withSession('first-primary'), new D1Meter());
  const prepared = (statement: unknown) =>
    (statement as { _prepare(): { getQuery(): Statement } })._prepare().getQuery();
  const query = (statement: { toSQL(): Statement }) => {
    const { sql, params } = statement.toSQL();
    return { sql, params };
  };

  it('renders as Drizzle renders the row given as plain values, learnt or prebuilt', async () => {
    const company = (accountId: number, name: string) => {
      const stamp = created(companies, accountId, Date.now());
      return {
        accountId,
        name,
        nameNorm: name.toLowerCase(),
        cnpj: `C${accountId}`,
        ownerId: null,
        segment: undefined,
        createdAt: stamp,
        updatedAt: stamp,
      };
    };
    shapes.clear();
    const first = company(7, 'Um');
    expect(query(insertRow(db(), companies, first))).toEqual(query(db().insert(companies).values(first)));
    const second = company(8, 'Dois');
    const hits = shapes.hits;
    expect(prepared(insertRow(db(), companies, second))).toEqual(
      query(db().insert(companies).values(second)),
    );
    expect(shapes.hits - hits).toBe(1);
  });

  it('updateRow renders as Drizzle renders the same set given as plain values', async () => {
    const change = (id: number, name: string | null) => ({
      set: { name: name ?? undefined, ownerId: null, segment: name, updatedAt: bumped(companies.updatedAt) },
      where: and(eq(companies.accountId, id), eq(companies.id, id * 10)),
    });
    for (const name of ['Um', null]) {
      shapes.clear();
      const first = change(5, name);
      const drizzles = (c: typeof first) => query(db().update(companies).set(c.set).where(c.where));
      expect(query(updateRow(db(), companies, first.set, first.where))).toEqual(drizzles(first));
      const second = change(6, name && `${name}!`);
      const hits = shapes.hits;
      expect(prepared(updateRow(db(), companies, second.set, second.where))).toEqual(drizzles(second));
      expect(shapes.hits - hits).toBe(1);
    }
  });

  it('renders an event (JSON columns, a key left out, ON CONFLICT and RETURNING) as Drizzle does', async () => {
    const event = (accountId: number, key: string | undefined) => ({
      accountId,
      webhookId: accountId + 1,
      mode: 'production' as const,
      status: 'pending' as const,
      payload: `{"n":${accountId}}`,
      headers: { 'content-type': 'application/json' },
      idempotencyKey: key,
      warnings: [{ path: 'x', code: 'dropped', message: `m${accountId}` }],
      receivedAt: 1000 + accountId,
      queuedAt: 1000 + accountId,
    });
    const store = (row: ReturnType<typeof event>) =>
      insertShaped(db(), inboundEvents, row, 'test', (q) =>
        q.onConflictDoNothing().returning({ id: inboundEvents.id }),
      );
    const drizzles = (row: ReturnType<typeof event>) =>
      query(db().insert(inboundEvents).values(row).onConflictDoNothing().returning({ id: inboundEvents.id }));
    for (const key of [undefined, 'k']) {
      shapes.clear();
      expect(query(store(event(3, key)))).toEqual(drizzles(event(3, key)));
      expect(prepared(store(event(4, key)))).toEqual(drizzles(event(4, key)));
    }
  });
});
