import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { CompanyQuery, companySorts } from '../../src/contracts/companies';
import { TaskQuery, taskSorts } from '../../src/contracts/tasks';
import { createDb } from '../../src/db/client';
import { FastDialect } from '../../src/db/dialect';
import { KeyGrant } from '../../src/db/key-grant';
import { D1Meter } from '../../src/db/meter';
import { insertUnless, listQuery } from '../../src/db/own';
import { refsQuery } from '../../src/db/refs';
import { companies, contacts, tasks } from '../../src/db/schema';
import { accountOf } from '../../src/db/tenant';
import { keyset } from '../../src/http/pagination';
import { type CompanyRow, companyFilters, companySearch, companySpec } from '../../src/model/companies';
import { type TaskRow, taskFilters, taskSpec } from '../../src/model/tasks';

const db = createDb(env.DB.withSession('first-primary'), new D1Meter());
const drizzles = new SQLiteAsyncDialect();
const KEY = 'a'.repeat(64);

/** The app's statements of every kind the renderer meets: lists with searches, unions, inserts. */
function statements() {
  const companyList = (query: Record<string, string>) => {
    const q = CompanyQuery.parse(query);
    const page = keyset<CompanyRow>(companies, companySorts, q);
    return listQuery(db, KEY, companySpec, page, companyFilters(q, page.sortColumn), companySearch(q));
  };
  const taskList = (query: Record<string, string>) => {
    const q = TaskQuery.parse(query);
    const page = keyset<TaskRow>(tasks, taskSorts, q);
    return listQuery(db, KEY, taskSpec, page, taskFilters(q, accountOf(KEY), page.sortColumn));
  };
  return [
    companyList({}),
    companyList({ limit: '50', name__contains: 'magalhães', owner_id: '1,2' }),
    companyList({ sort: 'name', name__contains: 'si', created_at__gte: '2025-01-01' }),
    companyList({ sort: '-name', segment__contains: 'x"y', cnpj: '11222333000181' }),
    taskList({ is_completed: 'false', sort: 'due_date' }),
    taskList({ category: 'Ligação', owner_id: '3', due_date__lt: '2030-01-01' }),
    refsQuery(db, accountOf(KEY), { owner_id: ['user', 1], follower_ids: ['user', [1, 2, 3]] }),
    insertUnless(
      db,
      contacts,
      { accountId: 1, name: 'Ana', nameNorm: 'ana', phone: '+5511987654321', createdAt: 1, updatedAt: 1 },
      sql`${contacts.phone} = ${'+5511987654321'}`,
    ),
  ];
}

describe('the SQL renderer', () => {
  it("renders every kind of the app's statements exactly as Drizzle does, text and parameters", () => {
    for (const statement of statements()) {
      const theirs = drizzles.sqlToQuery(statement.getSQL());
      expect(new FastDialect().sqlToQuery(statement.getSQL())).toEqual({
        sql: theirs.sql,
        params: theirs.params,
      });
    }
  });

  it('gives the same answer for a text it has checked already, with the new parameters', () => {
    const dialect = new FastDialect();
    const query = (id: number) => db.select().from(companies).where(sql`${companies.id} = ${id}`);
    dialect.sqlToQuery(query(1).getSQL());
    const second = dialect.sqlToQuery(query(2).getSQL());
    expect(second).toEqual({ sql: drizzles.sqlToQuery(query(2).getSQL()).sql, params: [2] });
  });

  it('leaves to Drizzle what it does not render itself (placeholders, inlined parameters)', () => {
    const dialect = new FastDialect();
    for (const statement of [
      db
        .select()
        .from(companies)
        .where(sql`${companies.id} = ${sql.placeholder('id')}`),
      db.select().from(companies).where(sql`${companies.name} = ${"O'Brien"}`.inlineParams()),
    ]) {
      expect(dialect.sqlToQuery(statement.getSQL())).toEqual(drizzles.sqlToQuery(statement.getSQL()));
    }
  });
});

describe('a key grant in a statement', () => {
  it('renders the same text for requests in the same second, so the dialect checks it once', () => {
    const grant = (now: number) => new KeyGrant(KEY, 'companies:read', now);
    const text = (now: number) =>
      db
        .select({ id: companies.id })
        .from(companies)
        .where(eq(companies.accountId, accountOf(grant(now))))
        .toSQL().sql;
    const second = Date.UTC(2026, 10, 25, 12, 0, 30);
    expect(text(second + 1)).toBe(text(second + 1000));
    expect(text(second + 1001)).not.toBe(text(second + 1000));
    // Rounded up: a key is never taken after its expiry.
    expect(grant(second + 1).now).toBe(second + 1000);
  });
});
