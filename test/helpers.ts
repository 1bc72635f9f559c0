import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';

export const BASE = 'http://crm.test';

type Options = { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string> };

/** A request through the Worker's own fetch handler, as a client would make it. */
export async function call(path: string, options: Options = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set('Authorization', `Bearer ${options.key}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  return exports.default.fetch(
    new Request(`${BASE}${path}`, { method: options.method ?? 'GET', headers, body }),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
export type Json = any;

export async function json(res: Response): Promise<Json> {
  return res.json();
}

/** Asserts an RFC 9457 problem response with the given status and code; returns its body. */
export async function expectProblem(res: Response, status: number, code?: string): Promise<Json> {
  expect(res.status).toBe(status);
  expect(res.headers.get('Content-Type')).toBe('application/problem+json');
  const body = await json(res);
  expect(body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  if (code) expect(body.code).toBe(code);
  return body;
}

export const adminHeaders = () => ({ Authorization: `Bearer ${env.ADMIN_TOKEN}` });

/** A new account and its first API key, through the admin API. */
export async function newAccount(name = 'Acme'): Promise<{ id: number; key: string; keyId: number }> {
  const res = await call('/admin/accounts', { method: 'POST', body: { name }, headers: adminHeaders() });
  expect(res.status).toBe(201);
  const { data } = await json(res);
  return { id: data.account.id, key: data.api_key.key, keyId: data.api_key.id };
}

/** POSTs a resource and returns its body's `data`, failing the test on anything but 201. */
export async function create(key: string, path: string, body: unknown): Promise<Json> {
  const res = await call(path, { method: 'POST', key, body });
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status}: ${await res.text()}`);
  return (await json(res)).data;
}

/** Follows `next_cursor` to the end and returns every id, in order. */
export async function allIds(key: string, path: string): Promise<number[]> {
  const ids: number[] = [];
  let url: string | null = path;
  while (url) {
    const res = await call(url, { key });
    expect(res.status).toBe(200);
    const page = await json(res);
    ids.push(...page.data.map((row: { id: number }) => row.id));
    const next: string | null = page.meta.next_cursor;
    url = next ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next)}` : null;
  }
  return ids;
}

const D1_TIMING = /d1;dur=[\d.]+;desc="(\d+) round trips?"/;
const TOTAL_TIMING = /total;dur=[\d.]+/;

/** The number of D1 round trips a response reports in Server-Timing. */
export function roundTrips(res: Response): number {
  const header = res.headers.get('Server-Timing') ?? '';
  expect(header).toMatch(D1_TIMING);
  expect(header).toMatch(TOTAL_TIMING);
  const trips = Number(D1_TIMING.exec(header)?.[1]);
  expect(header).toContain(trips === 1 ? '"1 round trip"' : `"${trips} round trips"`);
  return trips;
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const idsOf = (body: Json): number[] => body.data.map((row: Json) => row.id);

export const qs = (params: Record<string, string>): string => new URLSearchParams(params).toString();

export const ms = (iso: string): number => Date.parse(iso);

/** GETs a list, asserting 200, and returns the parsed body. */
export async function list(key: string, path: string): Promise<Json> {
  const res = await call(path, { key });
  expect(res.status, `GET ${path}`).toBe(200);
  return json(res);
}

/** Shorthands for one `/v1` resource: `resource('/v1/deals').get(key, id)`. */
export function resource(path: string) {
  return {
    listIds: async (key: string, params: Record<string, string>): Promise<number[]> =>
      idsOf(await list(key, `${path}?${qs(params)}`)),
    put: (key: string, id: number | string, body: unknown): Promise<Response> =>
      call(`${path}/${id}`, { method: 'PUT', key, body }),
    get: async (key: string, id: number): Promise<Json> => {
      const res = await call(`${path}/${id}`, { key });
      expect(res.status).toBe(200);
      return (await json(res)).data;
    },
  };
}

/** A row written straight to D1 (to choose timestamps, or for tables without an API yet); its id. */
export async function insertRow(table: string, row: Record<string, string | number | null>): Promise<number> {
  const columns = Object.keys(row);
  const inserted = await env.DB.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING id`,
  )
    .bind(...Object.values(row))
    .first<{ id: number }>();
  if (!inserted) throw new Error(`${table} insert returned no row`);
  return inserted.id;
}

/** A company written straight to D1, for tests that are not about the companies API. */
export function insertCompany(accountId: number, name: string, cnpj: string): Promise<number> {
  const now = Date.now();
  return insertRow('companies', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    cnpj,
    created_at: now,
    updated_at: now,
  });
}
