import { type SQL, sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Scope } from '../../src/core/scopes';
import { FastDialect } from '../../src/db/dialect';
import { grantAccountQuery, grantQuery, KeyGrant } from '../../src/db/key-grant';
import { accountOf, accountQuery } from '../../src/db/tenant';

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
    for (const key of [HASH, SESSION_KEY])
      expect(rendered(accountOf(key))).toEqual(rendered(accountQuery(key)));
    expect(rendered(accountOf(HASH)).params).toEqual([HASH]);
    for (const grant of [new KeyGrant(HASH, 'companies:read', NOW), new KeyGrant(SESSION_KEY, null, NOW)]) {
      const template = grantAccountQuery(grant.scope)(grant.key, sql.raw(String(grant.now)));
      expect(rendered(accountOf(grant))).toEqual(rendered(template));
    }
  });

  it("a grant's account is one lookup of its key, with the grant's checks", () => {
    const { sql: text, params } = rendered(accountOf(new KeyGrant(HASH, 'deals:read', NOW)));
    expect(text.match(/from "api_keys"/g)).toHaveLength(1);
    expect(text).toMatch(
      /^\(select "api_keys"\."account_id" from "api_keys" where "api_keys"\."key_hash" = \?/,
    );
    expect(text).toContain('"api_keys"."revoked_at" is null');
    expect(text).toContain(`"api_keys"."expires_at" > ${Math.ceil(NOW / 1000) * 1000}`);
    expect(text).toContain("'deals:read', 'deals:*', '*:read', '*:*'");
    expect(params).toEqual([HASH]);
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
