import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sameSql, searchSchema } from '../../src/db/search-ddl';

type Master = { type: string; name: string; sql: string };

describe('the search schema generated from searchIndexes', () => {
  it('is exactly what the migrations built: every view, FTS5 table and trigger of the search', async () => {
    const { results } = await env.DB.prepare(
      `SELECT type, name, sql FROM sqlite_master
       WHERE (type = 'view' AND name LIKE 'search\\_%' ESCAPE '\\')
          OR (type = 'trigger' AND name LIKE '%\\_search\\_%' ESCAPE '\\')
          OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name <> 'inbound_event_text')
       ORDER BY name`,
    ).all<Master>();
    const built = results.map((o) => ({ type: o.type, name: o.name, sql: sameSql(o.sql) }));
    const generated = searchSchema()
      .map((o) => ({ ...o, sql: sameSql(o.sql) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(generated.length).toBeGreaterThan(0);
    expect(generated).toEqual(built);
  });
});
