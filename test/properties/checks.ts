import { env } from 'cloudflare:workers';
import { dereference, type OutputUnit, type Schema, validate } from '@cfworker/json-schema';
import { expect } from 'vitest';
import { allShards, homeShardOfId, shardOf } from '../../src/db/shards';
import { call, type Json } from '../helpers';
import { deref } from '../openapi';

/**
 * Every property runs with this seed (reproducible in CI) and its run count times PROPERTY_RUNS;
 * both are bindings of the test config, read there from the environment of `npm test`.
 */
export const SEED = Number(env.PROPERTY_SEED || 20261122);
const SCALE = Number(env.PROPERTY_RUNS || 1);

export const settings = (numRuns: number) => ({
  seed: SEED,
  numRuns: Math.max(1, Math.round(numRuns * SCALE)),
});

/** A property's time limit, which grows with its runs. */
export const TIMEOUT = 30_000 * Math.max(1, SCALE);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export type Operation = { method: string; path: string; op: Json };

/** The OpenAPI document as served, and what tests need from it. */
export class Contract {
  private readonly lookup: ReturnType<typeof dereference>;

  constructor(readonly doc: Json) {
    // The whole document is the root schema, so every `#/components/schemas/...` resolves.
    this.lookup = dereference({ $id: 'https://crm.test/openapi.json', ...doc });
  }

  /** Every documented method of every path. */
  operations(): Operation[] {
    return Object.entries<Json>(this.doc.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method, path, op: item[method] })),
    );
  }

  operation(method: string, path: string): Operation {
    const op = this.doc.paths[path]?.[method];
    if (!op) throw new Error(`${method} ${path} is not documented`);
    return { method, path, op };
  }

  /** Follows a local `$ref`. */
  resolve(node: Json): Json {
    return deref(this.doc, node);
  }

  /** The operation's parameters in `where` (query, header, path). */
  parameters(operation: Operation, where: string): Json[] {
    return (operation.op.parameters ?? [])
      .map((p: Json) => this.resolve(p))
      .filter((p: Json) => p.in === where);
  }

  /** The JSON schema of the operation's request body, if it takes one. */
  requestSchema(operation: Operation): Json | undefined {
    return this.resolve(operation.op.requestBody)?.content?.['application/json']?.schema;
  }

  /** The response the document declares for `status`: the exact code, its `4XX` range, or `default`. */
  response(operation: Operation, status: number): Json | undefined {
    const { responses } = operation.op;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    return declared && this.resolve(declared);
  }

  /** Schema errors of `value` against `schema`, a node of the document, as readable lines. */
  schemaErrors(value: unknown, schema: Schema): string[] {
    // A failure is reported at its leaf and again by every keyword around it; the leaves say what.
    return validate(value, schema, '2020-12', this.lookup, false)
      .errors.filter((e: OutputUnit) => !/subschema|did not match|do not match/i.test(e.error))
      .map((e: OutputUnit) => `${e.instanceLocation}: ${e.error} (${e.keywordLocation})`);
  }

  /**
   * Asserts that `res` is what the document promises for `operation`: never a 5xx, a status the
   * operation documents, the documented content type with a body valid against its schema (a
   * problem+json whose `status` is the response's for a 4xx), or no body when none is documented.
   * Returns the parsed body.
   */
  async expectDocumented(operation: Operation, res: Response, where: string): Promise<Json> {
    const at = `${where} -> ${res.status}`;
    const text = await res.text();
    expect(res.status, `${at}: ${text}`).toBeLessThan(500);
    const response = this.response(operation, res.status);
    expect(response, `${at} is not documented`).toBeDefined();
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      expect(text, `${at} documents no body`).toBe('');
      return undefined;
    }
    const type = (res.headers.get('Content-Type') ?? '').split(';')[0]?.trim() ?? '';
    expect(Object.keys(content), `${at}: Content-Type ${type}`).toContain(type);
    if (res.status >= 400) expect(type, at).toBe('application/problem+json');
    // An export's CSV: its text, a header line first, for the caller to look into.
    if (type === 'text/csv') {
      expect(text, at).toMatch(/^\uFEFF?id[,;]/);
      return text;
    }
    const body = JSON.parse(text);
    const schema = content[type]?.schema;
    if (schema) expect(this.schemaErrors(body, schema), `${at}: ${text.slice(0, 2000)}`).toEqual([]);
    if (res.status >= 400) expect(body.status, at).toBe(res.status);
    return body;
  }
}

let cached: Promise<Contract> | undefined;

/** The document the Worker serves at /openapi.json, fetched once per test file. */
export function contract(): Promise<Contract> {
  cached ??= call('/openapi.json').then(async (res) => {
    expect(res.status).toBe(200);
    return new Contract(await res.json());
  });
  return cached;
}

/** Row counts per table and a SHA-256 over every row, of the given accounts. */
export type Snapshot = { counts: Record<string, number>; sha256: string };

let tenantTables: Promise<string[]> | undefined;

/** Every table with an `account_id` column, found in the schema so that a new table is covered too. */
function tablesWithAccount(): Promise<string[]> {
  // D1 refuses pragma_table_info; the CREATE statement names the column as well. Idempotency keys
  // are a log of answers, 4xx included (the documented behaviour), not the account's data; so is
  // account_event_storage and webhook_event_storage, the usage that counts the rejected events below
  // too (their own accuracy: test/webhooks/event-storage.test.ts, event-floods.test.ts).
  tenantTables ??= env.DB.prepare(
    `select name from sqlite_master
     where type = 'table' and sql like '%account_id%' and sql not like 'create virtual%'
       and name not in ('idempotency_keys', 'account_event_storage', 'webhook_event_storage') order by name`,
  )
    .all<{ name: string }>()
    .then((r) => r.results.map((row) => row.name));
  return tenantTables;
}

// A key's last_used_at is the minute of its latest request past the key check, a 404 or 409 of the
// resource included (docs/api.md): a log of the key's use, which a refusal after the key check
// moves when the minute has turned since the key's previous request, so it is left out too.

// Refused ingest calls are kept as `rejected` events: like idempotency keys, a log of answers, 4xx
// included (the documented behaviour), not the account's data.
const REFUSALS_LEFT_OUT = " and status <> 'rejected'";

const hex = (bytes: ArrayBuffer) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Reads the given accounts and any newer one (the admin API writes there), and every row of the
 * given accounts in every tenant table, straight from D1, one batch per shard (an account's rows
 * are on its shard, src/db/shards.ts); rows are hashed in a stable order.
 */
export async function snapshot(accountIds: number[]): Promise<Snapshot> {
  const tables = await tablesWithAccount();
  const ids = JSON.stringify(accountIds);
  const perShard = await Promise.all(
    allShards(env).map((shard) => {
      const d1 = shardOf(env, shard);
      // The given accounts, and any made after the newest of them on this shard: the admin API
      // writes there, and the accounts of the files before this one in the same runtime are none
      // of its business.
      const here = accountIds.filter((id) => homeShardOfId('accounts', id) === shard);
      const newest = here.length ? Math.max(...here) : Number.MAX_SAFE_INTEGER;
      return d1.batch<Record<string, unknown>>([
        d1
          .prepare('select * from accounts where id in (select value from json_each(?1)) or id > ?2')
          .bind(ids, newest),
        ...tables.map((table) =>
          d1
            .prepare(
              `select * from "${table}" where account_id in (select value from json_each(?))${table === 'inbound_events' ? REFUSALS_LEFT_OUT : ''}`,
            )
            .bind(ids),
        ),
      ]);
    }),
  );
  const results = perShard[0]?.map((_, i) => ({
    results: perShard.flatMap((batch) => batch[i]?.results ?? []),
  }));
  if (!results) throw new Error('no shard');
  const counts: Record<string, number> = {};
  const lines: string[] = [];
  ['accounts', ...tables].forEach((table, i) => {
    const rows = (results[i]?.results ?? [])
      .map((row) => `${table}:${JSON.stringify(table === 'api_keys' ? { ...row, last_used_at: null } : row)}`)
      .sort();
    counts[table] = rows.length;
    lines.push(...rows);
  });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(lines.join('\n')));
  return { counts, sha256: hex(digest) };
}
