import { describe, expect, it } from 'vitest';
import { call, create, expectProblem, type Json, json, newAccount, pageWithNext } from '../helpers';
import { idFilters } from '../lists';
import { resolvePointer } from '../openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Request schemas with no length limit on purpose, each with the reason: the only ones allowed.
 * Everything else that takes a string must say `maxLength`, and every list `maxItems`.
 */
const UNBOUNDED: Record<string, string> = {
  'POST /hooks/{token} body': "the sender's own JSON: bounded by 256 KiB and 32 levels of nesting",
};

type Finding = { at: string; problem: string };

const ANNOTATIONS = new Set([
  'description',
  'example',
  'examples',
  'title',
  'default',
  'deprecated',
  'writeOnly',
]);

/** Every string without maxLength, array without maxItems and map without maxProperties under `schema`. */
function unbounded(
  doc: Json,
  schema: Json,
  at: string,
  seen = new Set<string>(),
  allOfMember = false,
): Finding[] {
  if (schema === true || schema === undefined) return [];
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return [];
    return unbounded(doc, resolvePointer(doc, schema.$ref), at, new Set([...seen, schema.$ref]));
  }
  // Read-only members are accepted on write and ignored; the body's own size limit bounds them.
  if (schema.readOnly) return [];
  const found: Finding[] = [];
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const fixed = schema.enum !== undefined || schema.const !== undefined;
  if (types.includes('string') && !fixed && schema.maxLength === undefined) {
    found.push({ at, problem: 'string without maxLength' });
  }
  if (types.includes('array') && schema.maxItems === undefined) {
    found.push({ at, problem: 'array without maxItems' });
  }
  const map = schema.additionalProperties;
  if (map !== undefined && map !== false && schema.maxProperties === undefined) {
    found.push({ at, problem: 'map without maxProperties' });
  }
  // `{}` takes anything; a member of allOf that only describes (a description, an example) is fine.
  if (Object.keys(schema).every((key) => ANNOTATIONS.has(key)) && !allOfMember) {
    found.push({ at, problem: 'no type: anything goes' });
  }
  for (const [key, sub] of Object.entries<Json>(schema.properties ?? {})) {
    found.push(...unbounded(doc, sub, `${at}.${key}`, seen));
  }
  if (typeof map === 'object') found.push(...unbounded(doc, map, `${at}.*`, seen));
  if (schema.propertyNames) found.push(...unbounded(doc, schema.propertyNames, `${at}.<key>`, seen));
  if (schema.items) found.push(...unbounded(doc, schema.items, `${at}[]`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    (schema[key] ?? []).forEach((sub: Json, i: number) => {
      found.push(...unbounded(doc, sub, `${at}|${key}${i}`, seen, key === 'allOf'));
    });
  }
  return found;
}

describe('every request input has a documented size limit', () => {
  it('strings have maxLength, arrays maxItems, maps maxProperties: in every body and query parameter', async () => {
    const doc = await json(await call('/openapi.json'));
    const findings: Finding[] = [];
    let inputs = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        for (const param of op.parameters ?? []) {
          if (param.in !== 'query') continue;
          inputs++;
          findings.push(...unbounded(doc, param.schema, `${where} ?${param.name}`));
        }
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body === undefined) continue;
        inputs++;
        if (`${where} body` in UNBOUNDED) continue;
        findings.push(...unbounded(doc, body, `${where} body`));
      }
    }
    expect(inputs).toBeGreaterThan(50);
    expect(findings).toEqual([]);
  });
});

describe('query lists', () => {
  it('take at most 100 ids, once each: more, a repeated parameter or an over-long value is a 400', async () => {
    const { key } = await newAccount();
    const filters = await idFilters();
    expect(filters.map(({ path, name }) => `${path}?${name}`).sort()).toEqual([
      '/v1/companies/export?owner_id',
      '/v1/companies?owner_id',
      '/v1/contacts/export?company_id',
      '/v1/contacts/export?owner_id',
      '/v1/contacts?company_id',
      '/v1/contacts?owner_id',
      '/v1/deals/export?company_id',
      '/v1/deals/export?contact_id',
      '/v1/deals/export?owner_id',
      '/v1/deals?company_id',
      '/v1/deals?contact_id',
      '/v1/deals?owner_id',
      '/v1/events?record_id',
      '/v1/tasks/export?deal_id',
      '/v1/tasks/export?owner_id',
      '/v1/tasks?deal_id',
      '/v1/tasks?owner_id',
    ]);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    for (const { path, name } of filters) {
      expect((await call(`${path}?${name}=${ids(100)}`, { key })).status, `${path}?${name}`).toBe(200);
      for (const [query, code] of [
        [`${name}=${ids(101)}`, 'invalid'],
        [`${name}=1&${name}=2`, 'repeated'],
        [`${name}=${'1, '.repeat(700)}1`, 'too_big'],
      ] as const) {
        const body = await expectProblem(await call(`${path}?${query}`, { key }), 400, 'invalid_query');
        expect(body.errors[0], `${path}?${query.slice(0, 40)}`).toMatchObject({ path: name, code });
      }
    }
  });

  it('refuse an over-long status list or date bound with a 400', async () => {
    const { key } = await newAccount();
    for (const [path, query] of [
      ['/v1/deals', `status=${'open,'.repeat(20)}won`],
      ['/v1/deals', `created_at__gte=2024-01-01T00:00:00.${'0'.repeat(60)}Z`],
      ['/v1/tasks', `due_date__lt=2024-01-01T00:00:00.${'0'.repeat(60)}Z`],
    ] as const) {
      await expectProblem(await call(`${path}?${query}`, { key }), 400, 'invalid_query');
    }
    expect((await call(`/v1/deals?status=${'open,'.repeat(18)}won`, { key })).status).toBe(200);
  });
});

describe('cursors', () => {
  it('of the longest names fit the 4 KiB cursor limit and page on; a longer cursor is a 400', async () => {
    const { key } = await newAccount();
    // The names whose cursors are longest: JSON writes each control character as 6 bytes, and
    // NFC turns U+1D160 into three astral characters (12 bytes for 2 UTF-16 units).
    for (const [i, name] of ['\u0001'.repeat(255), '\u{1D160}'.repeat(127)].entries()) {
      for (const n of [1, 2]) await create(key, '/v1/users', { name, email: `u${i}${n}@example.com` });
    }
    for (const sort of ['name', '-name']) {
      const { page, next } = await pageWithNext(key, `/v1/users?sort=${sort}&limit=1`);
      expect(page.meta.next_cursor.length).toBeGreaterThan(2_000);
      expect(page.meta.next_cursor.length).toBeLessThanOrEqual(4_096);
      expect((await call(next.pathname + next.search, { key })).status).toBe(200);
    }
    await expectProblem(await call(`/v1/users?cursor=${'A'.repeat(4_097)}`, { key }), 400, 'invalid_query');
  });
});

describe('webhook configuration limits', () => {
  const string = (key: string) => ({ key, type: 'string' });
  const deal = { action: 'create_deal', name: 'Deal' };
  const task = { action: 'create_task', name: 'Call', category: 'Calls' };

  it('take 100 fields, 20 actions and key paths 32 levels deep, and refuse one more of each', async () => {
    const { key } = await newAccount();
    const post = (body: Record<string, unknown>) =>
      call('/v1/inbound-webhooks', { method: 'POST', key, body: { name: 'Limits', ...body } });
    const fields = Array.from({ length: 101 }, (_, i) => string(`f${i}`));
    const flows = [deal, ...Array.from({ length: 20 }, () => task)];
    const path = (levels: number) => Array.from({ length: levels }, (_, i) => `l${i}`).join('.');

    expect((await post({ fields: fields.slice(0, 100), flows: flows.slice(0, 20) })).status).toBe(201);
    expect((await post({ fields: [string(path(32))] })).status).toBe(201);
    for (const [body, at] of [
      [{ fields }, 'fields'],
      [{ flows }, 'flows'],
      [{ fields: [string(path(33))] }, 'fields.0.key'],
      [
        { fields: [{ ...string('x'), target: `contact.custom_fields.${'x'.repeat(200)}` }] },
        'fields.0.target',
      ],
      [
        { flows: [{ ...deal, owner: { round_robin: Array.from({ length: 101 }, (_, i) => i + 1) } }] },
        'flows.0.owner',
      ],
      [{ flows: [{ action: 'upsert_contact', match_on: ['phone', 'email', 'phone'] }] }, 'flows.0.match_on'],
    ] as const) {
      const problem = await expectProblem(await post(body), 422, 'validation_failed');
      expect(
        problem.errors.map((e: Json) => e.path),
        at,
      ).toContain(at);
    }
  });
});
