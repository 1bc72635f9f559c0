import { env } from 'cloudflare:workers';
import { expect, it, onTestFinished } from 'vitest';
import { accountsOnShard, postEvent } from '../helpers';
import { ingest, leadHook } from '../queue/webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// drizzle/0021_event_index_bytes.sql builds an event's indexed text in one walk of its payload and
// counts it once (index_bytes). These are 0020's two walks, kept here as the definition both must
// still give: the body (each value's first 100 characters, then a refused call's body, 1,000 at
// most) and the digits (each phone-like value as its digits, 200 at most).
const DIGITS = (value: string) =>
  ['/', '.', '+', ')', '(', '-', ' '].reduceRight((acc, c) => `replace(${acc}, '${c}', '')`, value);
const OLD_BODY = `substr(coalesce((SELECT group_concat(substr(CAST(value AS TEXT), 1, 100), ' ') FROM json_tree(e.payload) WHERE type IN ('text', 'integer', 'real')), '') || ' ' || coalesce(substr(json_extract(e.rejection, '$.body'), 1, 500), ''), 1, 1000)`;
const OLD_DIGITS = `substr(coalesce((SELECT group_concat(d, ' ') FROM (SELECT ${DIGITS('substr(CAST(value AS TEXT), 1, 100)')} AS d FROM json_tree(e.payload) WHERE type IN ('text', 'integer')) WHERE length(d) >= 8 AND d NOT GLOB '*[^0-9]*'), ''), 1, 200)`;

const SPAN = 1099511627776;

/** Every token of the index for `rowids`, with its column and position, through fts5vocab. */
async function tokens(table: string, rowids: number[]): Promise<string[]> {
  await env.DB.prepare(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${table}_v USING fts5vocab(${table}, 'instance')`,
  ).run();
  const { results } = await env.DB.prepare(
    `SELECT doc, col, offset, term FROM ${table}_v WHERE doc IN (SELECT value FROM json_each(?)) ORDER BY doc, col, offset`,
  )
    .bind(JSON.stringify(rowids))
    .all<{ doc: number; col: string; offset: number; term: string }>();
  return results.map((t) => `${t.doc} ${t.col} ${t.offset} ${t.term}`);
}

it("indexes and counts each event's text as the two walks of 0020 did, once per write", async () => {
  const { id: accountId, hook } = await leadHook();
  const long = 'x'.repeat(150);
  const ids = [
    await ingest(hook, {
      nome: 'Fernanda Magalhães',
      telefone: '(11) 98765-4321',
      email: 'f@exemplo.com.br',
    }),
    await ingest(hook, {
      telefone: '+55 11 91234.5678',
      lead: { nested: { deep: ['João', 12345678901, 1.5, 2e300, true, null, { fone: '11/3333-4444' }] } },
      long,
      many: Array.from({ length: 40 }, (_, i) => `valor número ${i} ${'é'.repeat(20)}`),
      digits: Array.from({ length: 30 }, (_, i) => `1199999${String(i).padStart(4, '0')}`),
    }),
    await ingest(hook, { telefone: '11933330000', vazio: '', zero: 0, negativo: -12345678, texto: '12-34' }),
  ];
  expect((await postEvent(hook.url, '{"nome": "Rejeitado 11 98888-7777", "telefone":')).status).toBe(400);
  const { results: events } = await env.DB.prepare(
    `SELECT e.id, e.index_bytes AS counted, 16 * (length(CAST(${OLD_BODY} AS BLOB)) + length(${OLD_DIGITS})) AS expected,
       ${OLD_BODY} AS body, ${OLD_DIGITS} AS digits
     FROM inbound_events e WHERE e.webhook_id = ? ORDER BY e.id`,
  )
    .bind(hook.id)
    .all<{ id: number; counted: number; expected: number; body: string; digits: string }>();
  expect(events).toHaveLength(4);
  for (const e of events) expect(e.counted, `event ${e.id}`).toBe(e.expected);
  expect(events.map((e) => e.id).slice(0, 3)).toEqual(ids);

  // The same texts through the old definition, into an index of the same kind: same tokens, same places.
  // The database outlives this file: the tables made here go when the test ends.
  onTestFinished(async () => {
    await env.DB.batch(
      ['inbound_event_text_v', 'old_event_text_v', 'old_event_text'].map((table) =>
        env.DB.prepare(`DROP TABLE IF EXISTS ${table}`),
      ),
    );
  });
  await env.DB.prepare(
    "CREATE VIRTUAL TABLE old_event_text USING fts5(body, digits, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')",
  ).run();
  const rowids = events.map((e) => accountId * SPAN + e.id);
  await env.DB.batch(
    events.map((e, i) =>
      env.DB.prepare('INSERT INTO old_event_text (rowid, body, digits) VALUES (?, ?, ?)').bind(
        rowids[i],
        e.body,
        e.digits,
      ),
    ),
  );
  const now = await tokens('inbound_event_text', rowids);
  expect(now.length).toBeGreaterThan(100);
  expect(now).toEqual(await tokens('old_event_text', rowids));
});
