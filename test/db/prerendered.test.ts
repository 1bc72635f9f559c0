import { type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Scope } from '../../src/core/scopes';
import { normalizeText } from '../../src/core/text';
import { FastDialect } from '../../src/db/dialect';
import { grantQuery, KeyGrant } from '../../src/db/key-grant';
import { tasks } from '../../src/db/schema';
import {
  exactCondition,
  type SearchIndex,
  search,
  searchIndexes,
  unqualifiedCondition,
} from '../../src/db/search';
import { accountOf, accountQuery } from '../../src/db/tenant';
import { categoryQuery, taskFilters, taskSpec } from '../../src/model/tasks';

const HASH = 'a'.repeat(64);
// A key as the panel holds it: a subquery on its session, with parameters of its own.
const SESSION_KEY = sql<string>`(select key_hash from panel_sessions where token_hash = ${'b'.repeat(64)})`;
const NOW = Date.UTC(2026, 10, 26, 3, 40, 1);

/** Text and parameters, as Drizzle renders them and as the app's dialect does. */
const rendered = (query: SQL) => {
  const { sql: text, params } = new SQLiteAsyncDialect().sqlToQuery(query);
  expect(new FastDialect().sqlToQuery(query)).toEqual({ sql: text, params });
  return { sql: text, params };
};

describe('key subqueries from prerendered text', () => {
  it('accountOf renders as its Drizzle template, for a hash, a session subquery and a grant', () => {
    const keys = [
      HASH,
      SESSION_KEY,
      new KeyGrant(HASH, 'companies:read', NOW),
      new KeyGrant(SESSION_KEY, null, NOW),
    ];
    for (const key of keys) expect(rendered(accountOf(key))).toEqual(rendered(accountQuery(key)));
    expect(rendered(accountOf(HASH)).params).toEqual([HASH]);
  });

  it('a grant renders as its Drizzle template, for every scope, none, and either kind of key', () => {
    const scopes: (Scope | null)[] = [null, ...ALL_SCOPES];
    for (const scope of scopes) {
      for (const key of [HASH, SESSION_KEY]) {
        const grant = new KeyGrant(key, scope, NOW);
        const template = grantQuery(scope)(key, sql.raw(String(grant.now)));
        expect(rendered(grant.getSQL()), `${scope}`).toEqual(rendered(template));
      }
    }
    const text = rendered(new KeyGrant(HASH, 'deals:update', NOW).getSQL()).sql;
    expect(text).toContain(`"api_keys"."expires_at" > ${Math.ceil(NOW / 1000) * 1000}`);
    expect(text).toContain("'deals:update', 'deals:*', '*:update', '*:*'");
  });
});

describe('search conditions from prerendered text', () => {
  it('each searchable column of every index: exact and unqualified render as their Drizzle templates', () => {
    const values = ['magalhães', 'Ação "x" ?', 'ab', '\u0000a'];
    for (const index of Object.values(searchIndexes)) {
      for (const [name, column] of Object.entries<AnySQLiteColumn>(index.columns)) {
        for (const value of values) {
          const found = search<SearchIndex>(index, { [name]: value });
          const normalized = normalizeText(value);
          expect(rendered(found?.exact[0] as SQL)).toEqual(rendered(exactCondition(column, normalized)));
          expect(rendered(found?.unqualified[0] as SQL)).toEqual(
            rendered(unqualifiedCondition(column, normalized)),
          );
          expect(found?.columns).toEqual({ [column.name]: column });
        }
      }
    }
  });
});

describe("a task category's subquery from prerendered text", () => {
  it('renders as its Drizzle template in the category filter (any key) and in a write', () => {
    const name = 'Ligação "x"';
    for (const key of [HASH, SESSION_KEY, new KeyGrant(HASH, 'tasks:read', NOW)]) {
      const account = accountOf(key);
      const [, filter] = taskFilters({ category: name, limit: 50 }, account, tasks.createdAt);
      const template = sql`${tasks.categoryId} = ${categoryQuery(account, normalizeText(name))}`;
      expect(rendered(filter as SQL)).toEqual(rendered(template));
    }
    const written = taskSpec.update({ category: name }, 7).categoryId as SQL;
    expect(rendered(written)).toEqual(rendered(categoryQuery(7, normalizeText(name))));
    expect(rendered(written).params).toEqual([7, normalizeText(name)]);
  });
});
