import { env } from 'cloudflare:workers';
import { getTableName } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { primaryDb } from '../../src/db/client';
import { searchIndexes } from '../../src/db/search';
import { purgeTrash } from '../../src/db/trash';
import { journals } from '../../src/model/journals';
import { accountsOnShard, callWithDb, json, qs, recordingD1, type Statement } from '../helpers';
import { eachFilter, eachSort, lists, pathOf, type Seeded, secondRows, seededAccount } from '../lists';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

type Step = { id: number; parent: number; detail: string };

/** The query plan of a statement exactly as a route sent it, parameters included. */
async function planOf({ sql, params }: Statement): Promise<Step[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<Step>();
  return results;
}

const render = (steps: Step[]): string => {
  const depth = (step: Step): number => {
    const parent = steps.find((s) => s.id === step.parent);
    return parent ? depth(parent) + 1 : 0;
  };
  return steps.map((step) => `${'  '.repeat(depth(step))}${step.detail}`).join('\n');
};

/** The steps under `root` (itself included). */
const subtree = (steps: Step[], root: Step): Step[] => [
  root,
  ...steps.filter((s) => s.parent === root.id).flatMap((child) => subtree(steps, child)),
];

/** The compound part a step belongs to (LEFT/RIGHT of a MERGE...), if any. */
function branchOf(steps: Step[], step: Step): Step[] {
  let at: Step | undefined = step;
  while (at && !/^(LEFT|RIGHT|LEFT-MOST SUBQUERY|UNION ALL)$/.test(at.detail)) {
    const parentId: number = at.parent;
    at = steps.find((s) => s.id === parentId);
  }
  return at ? subtree(steps, at) : [];
}

let tables: { real: Set<string>; search: Set<string> };

/**
 * What counts as a full scan, per step of the plan:
 * - `SCAN <table>` of a real table, in any form (`USING INDEX` and `USING COVERING INDEX` included:
 *   those read the whole index, every account's rows). Bounded access reads `SEARCH <table> ...`
 *   with at least the account as a constraint.
 * - A virtual table is scanned by its own xBestIndex plan: `json_each` walks the one JSON parameter
 *   an id list is bound as (100 ids at most), which is fine. An FTS5 search table is only fine with
 *   a MATCH (`M` in its index string) and a rowid range on both sides (`>` and `<`): its rowids put
 *   the account in their high bits, so the range is the account's slice of the index.
 * - `SCAN (subquery-n)` / `SCAN CONSTANT ROW` read rows an earlier step already bounded.
 * - `USE TEMP B-TREE FOR ORDER BY` sorts whatever its branch produced. It is only fine in a compound
 *   part fed by a search table's matches through rowid lookups (the few way of a search by name):
 *   that part runs only while the account has fewer matches than a fixed cap, so the sort does not
 *   grow with the account. Anywhere else it
 *   would sort a share of the account's rows, and every list sort has an index to walk instead.
 */
function fullScans(steps: Step[]): string[] {
  return steps.flatMap((step): string[] => {
    const scan = /^SCAN (\S+)(.*)$/.exec(step.detail);
    if (scan) {
      const [, name = '', rest = ''] = scan;
      if (tables.real.has(name)) return [step.detail];
      if (tables.search.has(name)) {
        const index = /^ VIRTUAL TABLE INDEX \d+:(.*)$/.exec(rest)?.[1] ?? '';
        return /M/.test(index) && /</.test(index) && />/.test(index) ? [] : [step.detail];
      }
      return [];
    }
    if (step.detail.startsWith('USE TEMP B-TREE')) {
      const branch = branchOf(steps, step).map((s) => s.detail);
      const fedBySearch =
        branch.some((d) => /^SEARCH \S+ USING INTEGER PRIMARY KEY \(rowid=\?\)$/.test(d)) &&
        branch.some((d) => [...tables.search].some((name) => d.startsWith(`SCAN ${name} VIRTUAL TABLE`)));
      return fedBySearch ? [] : [step.detail];
    }
    return [];
  });
}

let seeded: Seeded;

beforeAll(async () => {
  const { results } = await env.DB.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all<{
    name: string;
    sql: string;
  }>();
  const virtual = results.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql));
  tables = {
    real: new Set(results.filter((t) => !virtual.includes(t)).map((t) => t.name)),
    search: new Set(virtual.filter((t) => /USING fts5/i.test(t.sql)).map((t) => t.name)),
  };
  seeded = await seededAccount();
  await secondRows(seeded);
});

/** Runs the list request through a recording D1 and returns the plans of the statements it sent. */
async function plansOf(path: string): Promise<{ sql: string; steps: Step[] }[]> {
  const d1 = recordingD1(env.DB);
  const res = await callWithDb(d1.db, path, { key: seeded.key });
  expect(res.status, path).toBe(200);
  expect(d1.statements.length, path).toBeGreaterThan(0);
  for (const { sql, params } of d1.statements) {
    // D1's limits per statement: 100 bound parameters, 100 KB of SQL.
    expect(params.length, `${path}\n${sql}`).toBeLessThanOrEqual(100);
    expect(sql.length, path).toBeLessThanOrEqual(100_000);
    // A column compared with itself is a condition that scopes nothing (such as an unqualified
    // `"account_id" = "account_id"` in a subquery).
    expect(sql, path).not.toMatch(/("[\w.]+") = \1(?![\w."])/);
  }
  return Promise.all(d1.statements.map(async (s) => ({ sql: s.sql, steps: await planOf(s) })));
}

async function expectIndexed(path: string): Promise<void> {
  for (const { sql, steps } of await plansOf(path)) {
    expect.soft(fullScans(steps), `${path}\n${sql}\n${render(steps)}`).toEqual([]);
  }
}

describe('EXPLAIN QUERY PLAN of every list query', () => {
  it('sees the tables it judges, and judges them by the rules above', () => {
    expect(tables.real.has('tasks')).toBe(true);
    expect([...tables.search].sort()).toEqual([
      'companies_search',
      'contacts_search',
      'inbound_event_text',
      'users_search',
    ]);
    const judge = (...details: string[]) =>
      fullScans(details.map((detail, i) => ({ id: i + 2, parent: i ? 2 : 0, detail })));
    expect(judge('SCAN tasks')).toHaveLength(1);
    expect(judge('SCAN tasks USING INDEX tasks_due_idx')).toHaveLength(1);
    expect(judge('SCAN tasks USING COVERING INDEX tasks_due_idx')).toHaveLength(1);
    expect(judge('SEARCH tasks USING INDEX tasks_due_idx (account_id=?)')).toEqual([]);
    expect(judge('SCAN json_each VIRTUAL TABLE INDEX 1:')).toEqual([]);
    expect(judge('SCAN users_search VIRTUAL TABLE INDEX 0:M1><')).toEqual([]);
    expect(judge('SCAN users_search VIRTUAL TABLE INDEX 0:M1')).toHaveLength(1);
    expect(judge('SCAN users_search VIRTUAL TABLE INDEX 0:')).toHaveLength(1);
    expect(judge('USE TEMP B-TREE FOR ORDER BY')).toHaveLength(1);
    expect(
      judge(
        'LEFT',
        'USE TEMP B-TREE FOR ORDER BY',
        'SEARCH users USING INTEGER PRIMARY KEY (rowid=?)',
        'SCAN users_search VIRTUAL TABLE INDEX 0:M1><',
      ),
    ).toEqual([]);
    // Outside a compound part (such as in a subquery of the walk in search index order): a sort.
    expect(
      judge(
        'USE TEMP B-TREE FOR ORDER BY',
        'SEARCH users USING INTEGER PRIMARY KEY (rowid=?)',
        'SCAN users_search VIRTUAL TABLE INDEX 0:M1><',
      ),
    ).toHaveLength(1);
  });

  for (const list of lists) {
    describe(list.path, () => {
      const sorts = ['', ...eachSort(list)];

      it.each(sorts)('sort "%s", alone and under each filter', async (sort) => {
        const path = pathOf(list, seeded.ids);
        const params = (more: Record<string, string>) => qs(sort ? { ...more, sort } : more);
        await expectIndexed(`${path}?${params({})}`);
        for (const filter of eachFilter(list, seeded.ids)) {
          await expectIndexed(`${path}?${params(filter)}`);
        }
        await expectIndexed(`${path}?${params(Object.assign({}, ...eachFilter(list, seeded.ids)))}`);
      });

      it.each(sorts)('sort "%s", next page', async (sort) => {
        const first = `${pathOf(list, seeded.ids)}?${qs(sort ? { sort, limit: '1' } : { limit: '1' })}`;
        const cursor = (await json(await callWithDb(env.DB, first, { key: seeded.key }))).meta.next_cursor;
        expect(cursor, first).toEqual(expect.any(String));
        await expectIndexed(`${first}&cursor=${encodeURIComponent(cursor)}`);
      });
    });
  }

  it.each([
    ['/v1/users', 'users', ['created', 'name']],
    ['/v1/companies', 'companies', ['created', 'name']],
    ['/v1/contacts', 'contacts', ['created', 'name']],
    ['/v1/deals', 'deals', ['created', 'updated', 'name']],
    ['/v1/tasks', 'tasks', ['created', 'updated', 'deal', 'due']],
  ] as const)(
    '%s?deleted=true walks the trash indexes, which hold trashed rows only',
    async (path, table, sorts) => {
      for (const sort of sorts) {
        const field = {
          created: 'created_at',
          updated: 'updated_at',
          name: 'name',
          deal: 'deal_id',
          due: 'due_date',
        }[sort];
        for (const direction of ['', '-']) {
          const [, list] = await plansOf(`${path}?deleted=true&sort=${direction}${field}`);
          const details = list?.steps.map((s) => s.detail) ?? [];
          expect(details, `${path} ${sort}\n${render(list?.steps ?? [])}`).toContainEqual(
            expect.stringMatching(
              new RegExp(`^SEARCH ${table} USING INDEX ${table}_${sort}_trash_idx \\(account_id=\\?`),
            ),
          );
        }
      }
    },
  );

  it("the cron's purge and an erasure read by index: a run that finds nothing due scans no table", async () => {
    const d1 = recordingD1(env.DB);
    await purgeTrash(primaryDb({ DB: d1.db }, 0), Date.now(), journals);
    const res = await callWithDb(d1.db, `/v1/contacts/${seeded.ids.contact}?erase=true`, {
      method: 'DELETE',
      key: seeded.key,
    });
    expect(res.status).toBe(204);
    expect(d1.statements.length).toBeGreaterThan(20);
    for (const statement of d1.statements) {
      const steps = await planOf(statement);
      expect.soft(fullScans(steps), `${statement.sql}\n${render(steps)}`).toEqual([]);
    }
  });

  it("a write's journal finds a record's entry of one version by index, not by walking the record's history", async () => {
    const d1 = recordingD1(env.DB);
    const res = await callWithDb(d1.db, `/v1/companies/${seeded.ids.company}`, {
      method: 'PUT',
      key: seeded.key,
      body: { observations: `Revisada ${Date.now()}` },
    });
    expect(res.status).toBe(200);
    const versioned = d1.statements.filter((s) => /"journal_entries"\."version" = /.test(s.sql));
    // The created entry's check and the version's move.
    expect(versioned.length).toBeGreaterThanOrEqual(2);
    for (const statement of versioned) {
      const steps = await planOf(statement);
      expect(
        steps.map((step) => step.detail),
        `${statement.sql}\n${render(steps)}`,
      ).toContainEqual(
        expect.stringMatching(
          /^SEARCH journal_entries USING (COVERING )?INDEX journal_entries_version_idx \(account_id=\? AND record_type=\? AND record_id=\? AND version=\?\)$/,
        ),
      );
    }
  });

  it("a webhook's sample fields read its test events on their own index", async () => {
    await expectIndexed(`/v1/inbound-webhooks/${seeded.ids.webhook}/sample-fields`);
  });

  it('tasks by due date: both directions walk tasks_due_idx, dated rows then undated, without a sort', async () => {
    for (const sort of ['due_date', '-due_date']) {
      const [, list] = await plansOf(`/v1/tasks?sort=${sort}`);
      const details = list?.steps.map((s) => s.detail) ?? [];
      expect(details).toContain('MERGE (UNION ALL)');
      expect(details).toContain('SEARCH tasks USING INDEX tasks_due_idx (account_id=? AND due_date>?)');
      expect(details).toContain('SEARCH tasks USING INDEX tasks_due_idx (account_id=? AND due_date=?)');
      expect(details.filter((d) => d.startsWith('USE TEMP B-TREE'))).toEqual([]);
    }
  });

  // Every `__contains` filter: a searchable column of searchIndexes, on the list of its resource.
  const searched = Object.entries(searchIndexes).flatMap(([resource, index]) =>
    Object.entries(index.columns).map(
      ([column, c]) => [`/v1/${resource}`, `${column}__contains`, getTableName(c.table)] as const,
    ),
  );
  const values = ['a', 'li', 'lim', 'ana souza', '"*'];

  it.each(searched)(
    "%s %s by name: few matches from the account's slice of the search index, else (dense or many) the sort's walk",
    async (path, param, table) => {
      for (const value of values) {
        for (const sort of ['name', '-name']) {
          const [, list] = await plansOf(`${path}?${qs({ [param]: value, sort })}`);
          const steps = list?.steps ?? [];
          const where = `${path} ${param}=${value} sort=${sort}\n${render(steps)}`;
          const merges = steps.filter((s) => s.detail === 'MERGE (UNION ALL)');
          const part = (merge: Step | undefined, detail: string) => {
            const root = steps.find((s) => s.parent === merge?.id && s.detail === detail);
            return root ? subtree(steps, root).map((s) => s.detail) : [];
          };
          // few UNION ALL walk, each behind its gate, which probes the first rows of the walk.
          const [merge] = merges;
          const index = `${table}_name_idx`;
          const walk = expect.stringMatching(
            new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX ${index} \\(account_id=\\?\\)$`),
          );
          expect(merges, where).toHaveLength(1);
          expect(part(merge, 'LEFT'), where).toEqual(
            expect.arrayContaining([
              'CO-ROUTINE probed',
              walk,
              `SEARCH ${table} USING INTEGER PRIMARY KEY (rowid=?)`,
              expect.stringMatching(new RegExp(`^SCAN ${table}_search VIRTUAL TABLE INDEX \\d+:M\\d+><$`)),
            ]),
          );
          expect(part(merge, 'RIGHT'), where).toEqual(expect.arrayContaining(['CO-ROUTINE probed', walk]));
          expect(part(merge, 'RIGHT'), where).toContain(
            `SEARCH ${table} USING INDEX ${index} (account_id=?)`,
          );
          expect(
            part(merge, 'RIGHT').filter((d) => d.startsWith('USE TEMP B-TREE')),
            where,
          ).toEqual([]);
        }
      }
    },
  );

  it.each(searched)(
    '%s %s by created_at: the matches in the search index order, which is the sort, without a sort step',
    async (path, param, table) => {
      for (const value of values) {
        for (const sort of ['created_at', '-created_at']) {
          const first = `${path}?${qs({ [param]: value, sort, limit: '1' })}`;
          const cursor = (await json(await callWithDb(env.DB, first, { key: seeded.key }))).meta.next_cursor;
          const pages = [first, ...(cursor ? [`${first}&cursor=${encodeURIComponent(cursor)}`] : [])];
          for (const page of pages) {
            const [, list] = await plansOf(page);
            const details = list?.steps.map((s) => s.detail) ?? [];
            const where = `${page}\n${render(list?.steps ?? [])}`;
            // The loops: the two ends of the filtered walk (one row each, their ids read from the
            // created_at index), the search index's matches in rowid order, and each match's row.
            // No compound query, no sort.
            const pk = `SEARCH ${table} USING INTEGER PRIMARY KEY (rowid=?)`;
            const loops = (list?.steps ?? [])
              .filter((s) => s.parent === 0 && !/SUBQUERY/.test(s.detail))
              .map((s) => s.detail);
            expect(loops, where).toEqual([
              pk,
              pk,
              expect.stringMatching(new RegExp(`^SCAN ${table}_search VIRTUAL TABLE INDEX \\d+:M\\d+><$`)),
              pk,
            ]);
            expect(details, where).toContainEqual(
              expect.stringMatching(
                new RegExp(
                  `^SEARCH ${table} USING COVERING INDEX ${table}_created_idx \\(account_id=\\?( AND created_at[<>]\\?)?\\)$`,
                ),
              ),
            );
            expect(
              details.filter((d) => /^(MERGE|USE TEMP B-TREE)/.test(d)),
              where,
            ).toEqual([]);
          }
        }
      }
    },
  );
});
