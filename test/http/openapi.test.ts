import { describe, expect, it } from 'vitest';
import { adminHeaders, call, type Json, json, newAccount } from '../helpers';
import { resolvePointer } from '../openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Operation = { method: string; path: string; op: Json };

async function loadDocument(): Promise<Json> {
  const res = await call('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
  return json(res);
}

function operations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) ops.push({ method, path, op: item[method] });
    }
  }
  return ops;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every `$ref` in the document, with where it was found. */
function refs(node: unknown, at = '#'): { at: string; ref: unknown }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => refs(item, `${at}/${i}`));
  if (!isObject(node)) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' ? [{ at, ref: value }] : refs(value, `${at}/${key}`),
  );
}

/** The parameters an operation declares, its path item's included, with `$ref`s followed. */
function parametersOf(doc: Json, path: string, op: Json): Json[] {
  const declared = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])];
  return declared.map((p: Json) => (typeof p.$ref === 'string' ? resolvePointer(doc, p.$ref) : p));
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1.0 document with info', async () => {
    const doc = await loadDocument();
    expect(doc.openapi).toBe('3.1.0');
    expect(typeof doc.info.title).toBe('string');
    expect(doc.info.title.length).toBeGreaterThan(0);
    expect(typeof doc.info.version).toBe('string');
    expect(doc.info.version.length).toBeGreaterThan(0);
    expect(isObject(doc.paths)).toBe(true);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
  });

  it('answers without an API key', async () => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
  });

  it('uses /-rooted paths with {param} templates, each declared as a required path parameter', async () => {
    const doc = await loadDocument();
    for (const path of Object.keys(doc.paths)) {
      expect(path.startsWith('/'), path).toBe(true);
      expect(path, path).not.toMatch(/\/:/);
      expect(path, path).not.toMatch(/[{}]{2}|\{[^}]*\{|\}[^{/]*\}/);
    }
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(0);
    for (const { method, path, op } of ops) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const params = parametersOf(doc, path, op);
      for (const name of templated) {
        const param = params.find((p: Json) => p?.name === name && p?.in === 'path');
        expect(param, `${method.toUpperCase()} ${path}: {${name}}`).toBeDefined();
        expect(param.required, `${method.toUpperCase()} ${path}: {${name}} required`).toBe(true);
      }
      // And no path parameter that the path does not template.
      for (const p of params.filter((p: Json) => p?.in === 'path')) {
        expect(templated, `${method.toUpperCase()} ${path}: ${p.name}`).toContain(p.name);
      }
      // Parameter names are unique per location.
      const keys = params.map((p: Json) => `${p.in}:${p.name}`);
      expect(new Set(keys).size, `${method.toUpperCase()} ${path}`).toBe(keys.length);
    }
  });

  it('gives every operation a non-empty responses object keyed by status code or default', async () => {
    const doc = await loadDocument();
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(isObject(op.responses), where).toBe(true);
      const codes = Object.keys(op.responses);
      expect(codes.length, where).toBeGreaterThan(0);
      for (const code of codes) {
        expect(code, where).toMatch(/^(?:[1-5](?:\d\d|XX)|default)$/);
        expect(
          typeof op.responses[code].description === 'string' || '$ref' in op.responses[code],
          where,
        ).toBe(true);
      }
      expect(
        codes.some((c) => /^2/.test(c)),
        `${where} has a success response`,
      ).toBe(true);
    }
  });

  it('has only local $refs into components, each resolving to an object', async () => {
    const doc = await loadDocument();
    const found = refs(doc);
    expect(found.length).toBeGreaterThan(0);
    for (const { at, ref } of found) {
      expect(typeof ref, at).toBe('string');
      expect(ref as string, at).toMatch(/^#\/components\/[^/]+\/[^/]+$/);
      expect(isObject(resolvePointer(doc, ref as string)), `${at}: ${ref}`).toBe(true);
    }
  });

  it('names only declared security schemes', async () => {
    const doc = await loadDocument();
    const schemes = doc.components?.securitySchemes ?? {};
    const requirements: { where: string; req: Json }[] = [
      ...(doc.security ?? []).map((req: Json) => ({ where: 'top level', req })),
      ...operations(doc).flatMap(({ method, path, op }) =>
        (op.security ?? []).map((req: Json) => ({ where: `${method.toUpperCase()} ${path}`, req })),
      ),
    ];
    expect(requirements.length).toBeGreaterThan(0);
    for (const { where, req } of requirements) {
      for (const [name, scopes] of Object.entries(req)) {
        expect(isObject(schemes[name]), `${where}: ${name}`).toBe(true);
        expect(Array.isArray(scopes), `${where}: ${name}`).toBe(true);
      }
    }
    for (const scheme of Object.values<Json>(schemes)) {
      expect(['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect']).toContain(scheme.type);
    }
  });

  it('secures every /v1 operation with the API key and every admin one with the admin token', async () => {
    const doc = await loadDocument();
    const secured = operations(doc).filter(({ path }) => /^\/(?:v1|admin)\//.test(path));
    expect(secured.length).toBeGreaterThan(0);
    for (const { method, path, op } of secured) {
      const names = (op.security ?? doc.security ?? []).flatMap((req: Json) => Object.keys(req));
      const expected = path.startsWith('/admin/') ? 'adminToken' : 'bearerAuth';
      expect(names, `${method.toUpperCase()} ${path}`).toEqual([expected]);
    }
  });

  it('declares the Problem schema, and error responses use it', async () => {
    const doc = await loadDocument();
    const problem = doc.components?.schemas?.Problem;
    expect(isObject(problem)).toBe(true);
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']));
    const secured = operations(doc).filter(({ op }) => (op.security ?? doc.security ?? []).length > 0);
    expect(secured.length).toBeGreaterThan(0);
    for (const { method, path, op } of secured) {
      const unauthorized = op.responses['401'];
      expect(unauthorized, `${method.toUpperCase()} ${path} documents 401`).toBeDefined();
      expect(unauthorized.content['application/problem+json'].schema.$ref).toBe(
        '#/components/schemas/Problem',
      );
    }
  });

  it('documents every mounted route', async () => {
    const doc = await loadDocument();
    const expected: [string, string][] = [];
    for (const resource of ['users', 'companies', 'contacts', 'deals', 'tasks']) {
      expected.push(
        ['get', `/v1/${resource}`],
        ['post', `/v1/${resource}`],
        ['get', `/v1/${resource}/{id}`],
        ['put', `/v1/${resource}/{id}`],
      );
    }
    expected.push(
      ['get', '/v1/task-categories'],
      ['post', '/admin/accounts'],
      ['post', '/admin/accounts/{id}/api-keys'],
      ['delete', '/admin/api-keys/{id}'],
    );
    for (const [method, path] of expected) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
  });

  it('documents only routes that exist', async () => {
    const doc = await loadDocument();
    // Two accounts, so that revoking key 1 (the first account's) leaves the key in use working.
    await newAccount('First');
    const { key, keyId } = await newAccount('Second');
    expect(keyId).not.toBe(1);
    // Deletes last, so nothing the other calls rely on is gone before them.
    const ops = operations(doc).sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { method, path } of ops) {
      const url = path.replace(/\{[^}]+\}/g, '1');
      const admin = path.startsWith('/admin/');
      const body = method === 'post' || method === 'put' ? {} : undefined;
      const res = await call(url, {
        method: method.toUpperCase(),
        key: admin ? null : key,
        headers: admin ? adminHeaders() : undefined,
        body,
      });
      const where = `${method.toUpperCase()} ${url} -> ${res.status}`;
      expect(res.status, where).not.toBe(405);
      expect(res.status, where).not.toBe(401);
      // A body or id that does not fit is a 4xx, never a failure of the Worker.
      expect(res.status, where).toBeLessThan(500);
      if (res.status === 404 && path.startsWith('/hooks/')) {
        // Ingest answers an unknown token with an empty 404; the app's own 404 has a problem body.
        expect(await res.text(), where).toBe('');
      } else if (res.status === 404) {
        const problem = await json(res);
        expect(problem.detail, where).not.toBe('No such route.');
      }
    }
  });
});

describe('what generated clients rely on', () => {
  it('gives every operation a unique camelCase operationId, the resources theirs by verb and name', async () => {
    const doc = await loadDocument();
    const ids = operations(doc).map(({ method, path, op }) => {
      expect(op.operationId, `${method.toUpperCase()} ${path}`).toMatch(/^[a-z]+(?:[A-Z][a-z]*)+$/);
      return op.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    const expected: [string, string, string][] = [
      ['get', '/v1/companies', 'listCompanies'],
      ['post', '/v1/companies', 'createCompany'],
      ['get', '/v1/companies/{id}', 'getCompany'],
      ['put', '/v1/companies/{id}', 'updateCompany'],
      ['post', '/v1/tasks', 'createTask'],
      ['get', '/v1/task-categories', 'listTaskCategories'],
      ['get', '/v1/inbound-webhooks', 'listInboundWebhooks'],
      ['post', '/v1/inbound-webhooks/{id}/events/{event_id}/replay', 'replayInboundWebhookEvent'],
      ['post', '/hooks/{token}', 'ingestWebhookEvent'],
      ['post', '/admin/accounts', 'createAccount'],
      ['get', '/health', 'getHealth'],
    ];
    for (const [method, path, id] of expected) expect(doc.paths[path][method].operationId).toBe(id);
  });

  it('declares every tag an operation uses, each with a description', async () => {
    const doc = await loadDocument();
    const declared = new Map((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
    expect([...used].sort()).toEqual([...declared.keys()].sort());
    for (const description of declared.values()) expect(description.length).toBeGreaterThan(0);
  });

  it('names the server: the origin it was fetched from', async () => {
    const doc = await loadDocument();
    expect(doc.servers).toEqual([{ url: 'http://crm.test' }]);
  });

  it('says which operations need no credentials with an empty security list', async () => {
    const doc = await loadDocument();
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/hooks/{token}'].post.security).toEqual([]);
  });

  it('answers with named envelopes: <Resource>Response for one, <Resource>Page for a list', async () => {
    const doc = await loadDocument();
    const schemaOf = (method: string, path: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema.$ref;
    for (const [plural, name] of [
      ['users', 'User'],
      ['contacts', 'Contact'],
      ['companies', 'Company'],
      ['deals', 'Deal'],
      ['tasks', 'Task'],
      ['inbound-webhooks', 'InboundWebhook'],
    ]) {
      expect(schemaOf('get', `/v1/${plural}`, '200')).toBe(`#/components/schemas/${name}Page`);
      expect(schemaOf('post', `/v1/${plural}`, '201')).toBe(`#/components/schemas/${name}Response`);
      expect(schemaOf('get', `/v1/${plural}/{id}`, '200')).toBe(`#/components/schemas/${name}Response`);
      expect(schemaOf('put', `/v1/${plural}/{id}`, '200')).toBe(`#/components/schemas/${name}WriteResponse`);
      const page = doc.components.schemas[`${name}Page`];
      expect(page.properties.data.items.$ref).toBe(`#/components/schemas/${name}`);
      expect(page.properties.meta.$ref).toBe('#/components/schemas/PageMeta');
      expect(doc.components.schemas[`${name}Response`].properties.data.$ref).toBe(
        `#/components/schemas/${name}`,
      );
    }
    // No success response is an anonymous object.
    for (const { method, path, op } of operations(doc)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (status.startsWith('2') && schema)
          expect(schema.$ref, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it('keeps request fields the API defaults optional, without the default keyword generators would require', async () => {
    const doc = await loadDocument();
    const seen = new Set<unknown>();
    const properties: { at: string; property: Json; required: boolean }[] = [];
    const walk = (node: unknown, at: string): void => {
      const schema = isObject(node) && typeof node.$ref === 'string' ? resolvePointer(doc, node.$ref) : node;
      if (!isObject(schema) || seen.has(schema)) return;
      seen.add(schema);
      const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
      for (const [key, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        const resolved =
          isObject(property) && typeof property.$ref === 'string'
            ? resolvePointer(doc, property.$ref)
            : property;
        properties.push({ at: `${at}.${key}`, property: resolved, required: required.includes(key) });
        walk(property, `${at}.${key}`);
      }
      for (const part of ['items', 'additionalProperties'] as const) walk(schema[part], `${at}[]`);
      for (const list of ['oneOf', 'anyOf', 'allOf'] as const) {
        const parts: unknown[] = Array.isArray(schema[list]) ? schema[list] : [];
        for (const [i, part] of parts.entries()) walk(part, `${at}|${i}`);
      }
    };
    for (const { method, path, op } of operations(doc)) {
      walk(op.requestBody?.content?.['application/json']?.schema, `${method.toUpperCase()} ${path}`);
    }
    // openapi-typescript makes a property with `default` required in its types, request bodies included.
    for (const { at, property } of properties) expect('default' in property, at).toBe(false);
    const defaulted = properties.filter(({ property }) => /\bDefault\b/.test(property.description ?? ''));
    const names = new Set(defaulted.map(({ at }) => at.replace(/^.*\./, '')));
    expect([...names].sort()).toEqual(['days', 'enabled', 'hours', 'match_on', 'mode', 'name', 'required']);
    for (const { at, required } of defaulted) expect(required, at).toBe(false);
  });

  it('types an event payload as the JSON object ingest stored (null for a rejected event)', async () => {
    const doc = await loadDocument();
    const payload = doc.components.schemas.WebhookEvent.properties.payload;
    expect(payload.type).toEqual(['object', 'null']);
    expect(doc.components.schemas.WebhookEvent.required).toContain('payload');
  });

  it('links the 201 of every create to the get and update of what it created', async () => {
    const doc = await loadDocument();
    const byId = new Map(operations(doc).map((o) => [o.op.operationId, o]));
    const creates = operations(doc).filter(({ op }) => /^create(?!Account|ApiKey)/.test(op.operationId));
    expect(creates.map(({ op }) => op.operationId).sort()).toEqual([
      'createCompany',
      'createContact',
      'createDeal',
      'createInboundWebhook',
      'createTask',
      'createUser',
      'createWebhookEndpoint',
    ]);
    for (const { op, path } of creates) {
      const links = op.responses['201'].links;
      const name = op.operationId.slice('create'.length);
      expect(Object.keys(links).sort(), path).toEqual([`get${name}`, `update${name}`]);
      for (const link of Object.values<Json>(links)) {
        expect(link.parameters).toEqual({ id: '$response.body#/data/id' });
        const target = byId.get(link.operationId);
        expect(target?.path, link.operationId).toBe(`${path}/{id}`);
      }
    }
  });
});

describe('formats the API enforces, in the document', () => {
  /** The pattern as a JSON Schema validator runs it: ECMA-262 with the `u` flag, unanchored. */
  const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

  /** Every value the API accepts matches the pattern, and every one it refuses here does not. */
  function expectAgree(pattern: string, accepted: string[], refused: string[], apiAccepts: boolean[]) {
    const values = [...accepted, ...refused];
    values.forEach((value, i) => {
      expect(apiAccepts[i], `API on ${JSON.stringify(value)}`).toBe(i < accepted.length);
      expect(matches(pattern, value), `pattern on ${JSON.stringify(value)}`).toBe(i < accepted.length);
    });
  }

  const queryParams = (doc: Json, path: string) =>
    ((doc.paths[path].get.parameters ?? []) as Json[]).filter((p) => p.in === 'query');

  it('date bounds: a date or a date-time with an offset, on every __gte/__lte/__gt/__lt', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const bounds = Object.keys(doc.paths).flatMap((path) =>
      doc.paths[path].get ? queryParams(doc, path).filter((p) => /__(gte|lte|gt|lt)$/.test(p.name)) : [],
    );
    expect(bounds.length).toBeGreaterThanOrEqual(16);
    const pattern = bounds[0].schema.pattern;
    for (const bound of bounds) expect(bound.schema.pattern, bound.name).toBe(pattern);
    const accepted = [
      '2026-01-02',
      '2026-01-02T10:00Z',
      '2026-01-02t10:00:00.123456789z',
      '2026-01-02T10:00:00+0300',
      '2026-01-02T10:00:00-03:00',
    ];
    const refused = [
      '2026-1-2',
      'yesterday',
      '2026-01-02 10:00Z',
      '2026-01-02T10:00',
      '20260102',
      '2026-13-01',
      '2026-01-32',
      '2026-00-10',
      '2026-01-02T24:00Z',
      '2026-01-02T10:60Z',
      '2026-01-02T10:00:60Z',
      '2026-01-02T10:00+99:99',
      '2026-01-02T10:00+24:00',
      '2026-01-02T10:00-03:60',
    ];
    const statuses = [];
    for (const value of [...accepted, ...refused]) {
      statuses.push(
        (await call(`/v1/users?created_at__gte=${encodeURIComponent(value)}`, { key })).status === 200,
      );
    }
    expectAgree(pattern, accepted, refused, statuses);
  });

  it('id lists: up to 100 positive ids, comma-separated, on every id filter', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    // `external_id` is the record's id in another system: text, not one of ours.
    const idFilter = (p: { name: string }) => /_id$/.test(p.name) && p.name !== 'external_id';
    const filters = queryParams(doc, '/v1/tasks').filter(idFilter);
    expect(filters.map((p) => p.name).sort()).toEqual(['deal_id', 'owner_id']);
    const pattern = filters[0].schema.pattern;
    for (const path of ['/v1/contacts', '/v1/deals', '/v1/companies', '/v1/tasks']) {
      for (const p of queryParams(doc, path).filter(idFilter)) {
        expect(p.schema.pattern, `${path} ${p.name}`).toBe(pattern);
      }
    }
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(',');
    const accepted = ['3', '3,7', ' 3 , 7 ', '1,1', hundred, '9007199254740991'];
    const refused = ['0', '3,', 'a', '01', '-1', `${hundred},101`, '3;7'];
    const statuses = [];
    for (const value of [...accepted, ...refused]) {
      statuses.push((await call(`/v1/deals?owner_id=${encodeURIComponent(value)}`, { key })).status === 200);
    }
    expectAgree(pattern, accepted, refused, statuses);
  });

  it('phones: the shapes the API reads in, E.164 out', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const schemas = doc.components.schemas;
    const pattern = schemas.ContactCreate.properties.phone.pattern;
    expect(queryParams(doc, '/v1/contacts').find((p) => p.name === 'phone').schema.pattern).toBe(pattern);
    const accepted = [
      '(11) 98765-4321',
      '+55 11 98765-4321',
      '0055 11 98765-4321',
      '011 98765-4321',
      '+1 415 555 2671',
    ];
    const refused = ['abc', '12', '+55 11 98765 4321 ext', '55+11987654321', ''];
    const created: Json[] = [];
    const statuses = [];
    for (const phone of [...accepted, ...refused]) {
      const res = await call('/v1/contacts', { method: 'POST', key, body: { name: 'P', phone } });
      statuses.push(res.status === 201);
      if (res.status === 201) created.push((await json(res)).data);
    }
    expectAgree(pattern, accepted, refused, statuses);
    const out = schemas.Contact.properties.phone.pattern;
    for (const contact of created) expect(matches(out, contact.phone), contact.phone).toBe(true);
  });

  it('CNPJs: bare or masked in, 14 upper-case characters out', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const schemas = doc.components.schemas;
    const pattern = schemas.CompanyCreate.properties.cnpj.pattern;
    const accepted = ['12.ABC.345/01DE-35', ' 11.222.333/0001-81 ', '45723174000110'];
    const refused = ['x', '11.222.333/000181', '11 222 333 0001 81', '12.ABC.345/01DE-3'];
    const created: Json[] = [];
    const statuses = [];
    for (const [i, cnpj] of [...accepted, ...refused].entries()) {
      const res = await call('/v1/companies', { method: 'POST', key, body: { name: `C${i}`, cnpj } });
      statuses.push(res.status === 201);
      if (res.status === 201) created.push((await json(res)).data);
    }
    expectAgree(pattern, accepted, refused, statuses);
    const out = schemas.Company.properties.cnpj.pattern;
    for (const company of created) expect(matches(out, company.cnpj), company.cnpj).toBe(true);
  });

  it('names must not be blank; emails are format email; custom_fields keys have their rules', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const schemas = doc.components.schemas;
    const names = [
      schemas.UserCreate.properties.name,
      schemas.ContactCreate.properties.name,
      schemas.CompanyCreate.properties.name,
      schemas.DealCreate.properties.name,
      schemas.TaskCreate.properties.name,
      schemas.TaskCreate.properties.category,
      schemas.InboundWebhookCreate.properties.name,
      schemas.AccountCreate.properties.name,
    ];
    for (const name of names) expect(name.pattern).toBe(names[0].pattern);
    const accepted = ['Ana', ' Ana ', 'a'];
    const refused = ['   ', '\t\n', '\u00a0\u3000'];
    const statuses = [];
    for (const [i, name] of [...accepted, ...refused].entries()) {
      const body = { name, email: `n${i}@example.com` };
      statuses.push((await call('/v1/users', { method: 'POST', key, body })).status === 201);
    }
    expectAgree(names[0].pattern, accepted, refused, statuses);

    expect(schemas.UserCreate.properties.email.format).toBe('email');
    expect(schemas.ContactCreate.properties.email.format).toBe('email');
    const email = schemas.UserCreate.properties.email.pattern;
    expect(schemas.ContactCreate.properties.email.pattern).toBe(email);
    const emails = ['ana@acme.com', 'ana.souza+crm@mail.acme.com.br', "o'neil@x.io"];
    // `format: email` admits the dotless domain; the API does not.
    const badEmails = ['ana@localhost', 'ana', 'ana@acme', '@acme.com', 'ana@acme.c', 'ana@@acme.com'];
    const emailStatuses = [];
    for (const address of [...emails, ...badEmails]) {
      const body = { name: 'E', email: address };
      emailStatuses.push((await call('/v1/users', { method: 'POST', key, body })).status === 201);
    }
    expectAgree(email, emails, badEmails, emailStatuses);

    expect(schemas.CustomFields.propertyNames).toEqual({
      minLength: 1,
      maxLength: 100,
      not: { enum: ['__proto__', 'prototype', 'constructor'] },
    });
    for (const custom_fields of [{ '': 1 }, { ['k'.repeat(101)]: 1 }]) {
      const res = await call('/v1/deals', { method: 'POST', key, body: { name: 'D', custom_fields } });
      expect(res.status).toBe(422);
    }
    expect(
      (
        await call('/v1/deals', {
          method: 'POST',
          key,
          body: { name: 'D', custom_fields: { ['k'.repeat(100)]: 1 } },
        })
      ).status,
    ).toBe(201);
  });

  it('due dates: a date-time with an offset', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const deal = (await json(await call('/v1/deals', { method: 'POST', key, body: { name: 'D' } }))).data;
    const pattern = doc.components.schemas.TaskCreate.properties.due_date.pattern;
    const accepted = ['2026-12-01T10:00:00-03:00', '2026-12-01t10:00z', '2026-12-01T10:00:00.5+0000'];
    const refused = [
      '2026-12-01',
      '2026-12-01T10:00',
      'tomorrow',
      '2026-13-01T10:00Z',
      '2026-12-32T10:00Z',
      '2026-12-01T24:00Z',
      '2026-12-01T10:00+99:99',
    ];
    const statuses = [];
    for (const due_date of [...accepted, ...refused]) {
      const body = { deal_id: deal.id, name: 'T', category: 'C', due_date };
      statuses.push((await call('/v1/tasks', { method: 'POST', key, body })).status === 201);
    }
    expectAgree(pattern, accepted, refused, statuses);
  });

  it('headers: Idempotency-Key the same on ingest and /v1; X-D1-Bookmark may be empty, as the API takes it', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const header = (op: Json, name: string) =>
      op.parameters.find((p: Json) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase())
        .schema;
    const ingest = header(doc.paths['/hooks/{token}'].post, 'Idempotency-Key');
    const v1 = header(doc.paths['/v1/users'].post, 'Idempotency-Key');
    expect(ingest).toMatchObject({ minLength: 1, maxLength: 255, pattern: v1.pattern });
    expect(matches(v1.pattern, 'order-42 (retry)')).toBe(true);
    expect(matches(v1.pattern, 'ação')).toBe(false);

    const bookmark = header(doc.paths['/v1/users'].get, 'X-D1-Bookmark');
    expect(matches(bookmark.pattern, '')).toBe(true);
    expect(matches(bookmark.pattern, 'nope')).toBe(false);
    expect((await call('/v1/users', { key, headers: { 'X-D1-Bookmark': '' } })).status).toBe(200);
    expect((await call('/v1/users', { key, headers: { 'X-D1-Bookmark': 'nope' } })).status).toBe(400);
  });
});

describe('GET /docs', () => {
  it('serves the Swagger UI page pointing at /openapi.json', async () => {
    const res = await call('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<div id="swagger-ui">');
    // The start-up script the page loads points Swagger UI at this origin's document.
    expect(html).toContain('<script src="/docs/init.js">');
    expect(await (await call('/docs/init.js')).text()).toContain("url: '/openapi.json'");
  });
});
