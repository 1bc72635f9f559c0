import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../src/db/client';
import { D1Meter } from '../../src/db/meter';
import { companies } from '../../src/db/schema';
import { Shapes, shapes } from '../../src/db/shapes';
import { accountsOnShard, callWithDb, json, qs, recordingD1, type Statement } from '../helpers';
import { eachFilter, eachSort, lists, pathOf, type Seeded, secondRows, seededAccount } from '../lists';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Two accounts with the same rows: their requests have the same shapes and different values (key,
// ids, cursors), so a statement prebuilt from one account's request serves the other's.
let a: Seeded;
let b: Seeded;

beforeAll(async () => {
  a = await seededAccount();
  b = await seededAccount();
  await secondRows(a);
  await secondRows(b);
  // One second for the whole file: the key's expiry check holds the request's second as a literal,
  // so a new second is a new shape (and the second request would be built, not prebuilt).
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now());
});

afterAll(() => {
  vi.useRealTimers();
});

/** The statements a request sent, and how many of them were prebuilt. */
async function sent(path: string, key: string): Promise<{ statements: Statement[]; prebuilt: number }> {
  const d1 = recordingD1(env.DB);
  const hits = shapes.hits;
  const res = await callWithDb(d1.db, path, { key });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return { statements: d1.statements, prebuilt: shapes.hits - hits };
}

/**
 * Each account's request prebuilt from the shape the two left, against the same request with
 * nothing known (every statement built by Drizzle): the same statements, text and parameters.
 * Both accounts teach the shape: one whose value happens to equal a constant of the code (an id 2
 * beside `limit + 1`) is not learnt from (src/db/shapes.ts), and the other's is.
 */
async function expectPrebuiltAsDrizzle(request: (s: Seeded) => string, prebuilt = 2) {
  shapes.clear();
  await sent(request(a), a.key);
  await sent(request(b), b.key);
  const ours = [await sent(request(a), a.key), await sent(request(b), b.key)];
  for (const [i, s] of [a, b].entries()) {
    shapes.clear();
    const drizzles = await sent(request(s), s.key);
    expect(drizzles.prebuilt, request(s)).toBe(0);
    // The key lookup and the row's statement.
    expect(ours[i]?.prebuilt, request(s)).toBe(prebuilt);
    expect(ours[i]?.statements, request(s)).toEqual(drizzles.statements);
  }
}

describe('statements prebuilt per shape', () => {
  for (const list of lists) {
    // A webhook's events, an endpoint's deliveries and the imports are listed by their own queries
    // (no shape), behind the prebuilt key lookup.
    const prebuilt = /\/(events|deliveries|imports)$/.test(list.path) ? 1 : 2;
    const page = (params: (s: Seeded) => Record<string, string>) => (s: Seeded) =>
      `${pathOf(list, s.ids)}?${qs(params(s))}`;

    it(`${list.path}: as Drizzle builds them, under each filter, all of them, each sort`, async () => {
      for (const sort of ['', ...eachSort(list)]) {
        const sorted = (params: Record<string, string>) => (sort ? { ...params, sort } : params);
        await expectPrebuiltAsDrizzle(
          page(() => sorted({})),
          prebuilt,
        );
        const count = eachFilter(list, a.ids).length;
        for (let i = 0; i < count; i++) {
          await expectPrebuiltAsDrizzle(
            page((s) => sorted(eachFilter(list, s.ids)[i] ?? {})),
            prebuilt,
          );
        }
        await expectPrebuiltAsDrizzle(
          page((s) => sorted(Object.assign({}, ...eachFilter(list, s.ids)))),
          prebuilt,
        );
      }
    });

    it(`${list.path}: as Drizzle builds them, on a next page of each sort`, async () => {
      for (const sort of ['', ...eachSort(list)]) {
        const first = { limit: '1', ...(sort ? { sort } : {}) };
        const cursors = new Map<Seeded, string>();
        for (const s of [a, b]) {
          const body = await json(await callWithDb(env.DB, page(() => first)(s), { key: s.key }));
          cursors.set(s, body.meta.next_cursor);
        }
        await expectPrebuiltAsDrizzle(
          page((s) => ({ ...first, cursor: cursors.get(s) ?? '' })),
          prebuilt,
        );
      }
    });
  }

  it.each([
    ['users', 'user'],
    ['companies', 'company'],
    ['contacts', 'contact'],
    ['deals', 'deal'],
    ['tasks', 'task'],
  ] as const)('GET /v1/%s/{id}: as Drizzle builds it', async (resource, id) => {
    await expectPrebuiltAsDrizzle((s) => `/v1/${resource}/${s.ids[id]}`);
  });
});

describe('a shape', () => {
  const db = createDb(env.DB.withSession('first-primary'), new D1Meter());
  const queryOf = (item: unknown) =>
    (item as { _prepare(): { getQuery(): { sql: string; params: unknown[] } } })._prepare().getQuery();

  it("is reused with the next request's values when the statement is built from its pieces", () => {
    const known = new Shapes();
    const byId = (id: number) => {
      const piece = eq(companies.id, id);
      return known.statement(db, 'by id', [piece], () => db.select().from(companies).where(piece));
    };
    byId(1);
    const second = queryOf(byId(2));
    expect(known.hits).toBe(1);
    expect(second).toEqual(db.select().from(companies).where(eq(companies.id, 2)).toSQL());
  });

  it('is not kept when a value of the request sits outside its pieces (it would reach the next request)', () => {
    const known = new Shapes();
    // The statement repeats the value in a condition of its own, not the piece.
    const byId = (id: number) =>
      known.statement(db, 'by id', [eq(companies.id, id)], () =>
        db.select().from(companies).where(eq(companies.id, id)),
      );
    byId(1);
    byId(2);
    expect(known.hits).toBe(0);
    expect(known.size).toBe(0);
  });
});
