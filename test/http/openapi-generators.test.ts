// The OpenAPI document as client generators (openapi-python-client, openapi-generator, NSwag,
// openapi-typescript) and /docs' Swagger UI read it: shapes they choke on, names they need,
// patterns as strict as the API, and no example that "Try it out" would send.
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import { call, type Json, json, newAccount } from '../helpers';
import { resolvePointer } from '../openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

async function loadDocument(): Promise<Json> {
  const res = await call('/openapi.json');
  expect(res.status).toBe(200);
  return json(res);
}

function operations(doc: Json): { at: string; path: string; op: Json }[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ at: `${m.toUpperCase()} ${path}`, path, op: item[m] })),
  );
}

/** Every object node of the document, with its JSON pointer. */
function nodes(node: unknown, at = '#'): { at: string; node: Json }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => nodes(item, `${at}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  return [
    { at, node },
    ...Object.entries(node).flatMap(([key, value]) => nodes(value, `${at}/${key.replaceAll('/', '~1')}`)),
  ];
}

const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

describe('the OpenAPI document, for every generator', () => {
  it('puts a description beside a $ref instead of wrapping the $ref in allOf', async () => {
    const doc = await loadDocument();
    const wrapped = nodes(doc).filter(
      ({ node }) => Array.isArray(node.allOf) && node.allOf.length > 1 && node.allOf[0]?.$ref,
    );
    expect(wrapped.map(({ at }) => at)).toEqual([]);
    const { DealCreate, DealUpdate, ContactCreate } = doc.components.schemas;
    for (const status of [DealCreate.properties.status, DealUpdate.properties.status]) {
      expect(status).toEqual({ $ref: '#/components/schemas/DealStatus', description: expect.any(String) });
    }
    expect(ContactCreate.properties.custom_fields).toEqual({
      $ref: '#/components/schemas/CustomFields',
      description: expect.any(String),
    });
  });

  it("names a task flow's due object as a component, so generators do not name two models alike", async () => {
    const doc = await loadDocument();
    const schemas = doc.components.schemas;
    const createTask = schemas.WebhookAction.oneOf.find(
      (action: Json) => action.properties.action.enum?.[0] === 'create_task',
    );
    expect(createTask.properties.due).toEqual({ $ref: '#/components/schemas/WebhookTaskDue' });
    expect(Object.keys(schemas.WebhookTaskDue.properties)).toEqual(['from', 'days', 'hours']);
    expect(schemas.WebhookTaskDue.required).toEqual(['from']);
    const inline = nodes(doc).filter(({ at, node }) => at.endsWith('/properties/due') && !node.$ref);
    expect(inline.map(({ at }) => at)).toEqual([]);
  });

  it('names every value of every sort enum (x-enum-varnames)', async () => {
    const doc = await loadDocument();
    const sorts = operations(doc).flatMap(({ at, op }) =>
      (op.parameters ?? [])
        .filter((p: Json) => p.name === 'sort')
        .map((p: Json) => ({ at, schema: p.schema })),
    );
    expect(sorts.length).toBeGreaterThanOrEqual(7);
    for (const { at, schema } of sorts) {
      const names: string[] = schema['x-enum-varnames'];
      expect(names, at).toHaveLength(schema.enum.length);
      expect(new Set(names).size, at).toBe(names.length);
      schema.enum.forEach((value: string, i: number) => {
        const field = value.replace(/^-/, '').toUpperCase();
        expect(names[i], at).toBe(value.startsWith('-') ? `${field}_DESC` : `${field}_ASC`);
      });
    }
  });

  it('gives Swagger UI nothing to pre-fill into an optional parameter, and keeps the examples', async () => {
    const doc = await loadDocument();
    let kept = 0;
    for (const { at, path, op } of operations(doc)) {
      const declared = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])];
      for (const raw of declared) {
        const p = raw.$ref ? resolvePointer(doc, raw.$ref) : raw;
        if (p.required === true) continue;
        const schema = p.schema?.$ref ? resolvePointer(doc, p.schema.$ref) : (p.schema ?? {});
        // What Swagger UI 5 reads for a parameter's initial value (ParameterRow.setDefaultValue).
        const prefilled = [p.example, p.examples, schema.example, p.content, schema.default, p.default];
        expect(
          prefilled.filter((v) => v !== undefined && v !== 25),
          `${at} ${p.name}`,
        ).toEqual([]);
        if (Array.isArray(schema.examples)) kept++;
      }
    }
    // `owner_id=3,7` and the like are still shown, where a request does not take them from.
    expect(kept).toBeGreaterThanOrEqual(10);
    const owner = doc.paths['/v1/deals'].get.parameters.find((p: Json) => p.name === 'owner_id');
    expect(owner.schema.examples).toEqual(['3,7']);
  });

  it('describes every operation beyond its summary', async () => {
    const doc = await loadDocument();
    const bare = operations(doc).filter(
      ({ op }) =>
        typeof op.description !== 'string' || op.description.length < 40 || op.description === op.summary,
    );
    expect(bare.map(({ at }) => at)).toEqual([]);
    // By sound: "an inbound webhook", "a user" (a `u` said "you").
    const articles = operations(doc).filter(({ op }) =>
      /\ba (?:[aeio]|u(?!s|ni))|\ban (?:[^aeiou]|us|uni)/i.test(op.summary),
    );
    expect(articles.map(({ op }) => op.summary)).toEqual([]);
  });

  it("names a contact and carries package.json's version", async () => {
    const doc = await loadDocument();
    expect(doc.info.version).toBe(packageJson.version);
    expect(doc.info.contact).toEqual({ name: expect.stringMatching(/\S/) });
  });

  it("documents GET /v1/inbound-webhooks/{id}/events/{event_id} with the log's event schema", async () => {
    const doc = await loadDocument();
    const op = doc.paths['/v1/inbound-webhooks/{id}/events/{event_id}']?.get;
    expect(op?.operationId).toBe('getInboundWebhookEvent');
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookEventResponse',
    });
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500']);
  });
});

describe('patterns as strict as the API', () => {
  it('the deals status filter: a status or a comma-separated list, as GET /v1/deals reads it', async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const status = doc.paths['/v1/deals'].get.parameters.find((p: Json) => p.name === 'status').schema;
    const accepted = ['open', 'open,won', ' won , lost ', 'lost,lost'];
    const refused = ['Open', 'open,', ',open', 'closed', '', 'open;won', 'open won'];
    for (const [i, value] of [...accepted, ...refused].entries()) {
      const res = await call(`/v1/deals?status=${encodeURIComponent(value)}`, { key });
      expect(res.status === 200, `API on ${JSON.stringify(value)}`).toBe(i < accepted.length);
      expect(matches(status.pattern, value), `pattern on ${JSON.stringify(value)}`).toBe(i < accepted.length);
    }
  });

  it("a webhook field's target: a fixed target or a custom field, as POST /v1/inbound-webhooks reads it", async () => {
    const doc = await loadDocument();
    const { key } = await newAccount();
    const target = doc.components.schemas.WebhookField.properties.target;
    const schema = target.$ref ? resolvePointer(doc, target.$ref) : target;
    const valid = (value: string) => matches(schema.pattern, value) && !schema.not.enum.includes(value);
    const accepted = [
      'contact.name',
      'deal.name',
      'company.name',
      'contact.custom_fields.veiculo',
      'deal.custom_fields.placa-1_A',
    ];
    const refused = [
      'contact.age',
      'contact.custom_fields.__proto__',
      'contact.custom_fields.',
      'contact.custom_fields.a.b',
      'company.custom_fields.x',
      `deal.custom_fields.${'k'.repeat(101)}`,
      'contactXname',
      'Contact.name',
    ];
    for (const [i, value] of [...accepted, ...refused].entries()) {
      const body = { name: 'W', fields: [{ key: 'campo', type: 'string', target: value }] };
      const res = await call('/v1/inbound-webhooks', { method: 'POST', key, body });
      expect(res.status === 201, `API on ${value}: ${await res.clone().text()}`).toBe(i < accepted.length);
      expect(valid(value), `schema on ${value}`).toBe(i < accepted.length);
    }
  });
});
