import { describe, expect, it } from 'vitest';
import { call, type Json, json } from '../../helpers';
import { deref } from '../../openapi';
import { COMPANY_KEYS } from './support';

describe('companies: OpenAPI', () => {
  async function document(): Promise<Json> {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    return json(res);
  }

  const requestSchema = (doc: Json, path: string, method: string): Json =>
    deref(doc, doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema);

  /** The properties a client may write: every property not marked readOnly. */
  const writable = (doc: Json, schema: Json): string[] =>
    Object.entries<Json>(schema?.properties ?? {})
      .filter(([, property]) => deref(doc, property)?.readOnly !== true)
      .map(([name]) => name)
      .sort();

  it('describes the Company schema with exactly its properties', async () => {
    const doc = await document();
    const company = doc.components?.schemas?.Company;
    expect(company, 'components.schemas.Company').toBeDefined();
    expect(Object.keys(company.properties).sort()).toEqual(COMPANY_KEYS);
    const props = company.properties;
    expect(deref(doc, props.follower_ids).type).toBe('array');
    expect(deref(doc, props.follower_ids).items.type).toBe('integer');
    expect(deref(doc, props.deal_count).type).toBe('integer');
    expect(deref(doc, props.lead_count).type).toBe('integer');
    expect(JSON.stringify(deref(doc, props.cnpj))).toContain('string');
  });

  it('documents the 201 of POST /v1/companies as a Company, its 409 and 422, and the 422 of PUT', async () => {
    const doc = await document();
    const post201 = doc.paths['/v1/companies'].post.responses['201'];
    const created = deref(doc, post201.content['application/json'].schema);
    expect(deref(doc, created.properties.data)).toEqual(doc.components.schemas.Company);
    expect(doc.paths['/v1/companies'].post.responses['409'], 'POST documents 409').toBeDefined();
    expect(doc.paths['/v1/companies'].post.responses['422'], 'POST documents 422').toBeDefined();
    expect(doc.paths['/v1/companies/{id}'].put.responses['422'], 'PUT documents 422').toBeDefined();
  });

  it('write bodies have exactly the writable fields; counts are read-only or absent; POST requires name and cnpj', async () => {
    const doc = await document();
    const createBody = requestSchema(doc, '/v1/companies', 'post');
    const updateBody = requestSchema(doc, '/v1/companies/{id}', 'put');
    // `owner`: the owner by natural key instead of `owner_id`.
    const fields = [
      'cnpj',
      'external_id',
      'follower_ids',
      'name',
      'observations',
      'owner',
      'owner_id',
      'segment',
    ];
    for (const [label, schema] of [
      ['create', createBody],
      ['update', updateBody],
    ] as const) {
      expect(schema, `${label} body schema`).toBeDefined();
      expect(writable(doc, schema), label).toEqual(fields);
      for (const count of ['deal_count', 'lead_count', 'id', 'created_at', 'updated_at']) {
        const property = deref(doc, schema.properties?.[count]);
        expect(property === undefined || property.readOnly === true, `${label}.${count}`).toBe(true);
      }
    }
    expect([...(createBody.required ?? [])].sort()).toEqual(['cnpj', 'name']);
    expect(updateBody.required ?? []).toEqual([]);
  });

  it('lists exactly the filters, sort and paging parameters of GET /v1/companies', async () => {
    const doc = await document();
    const params = (doc.paths['/v1/companies']?.get?.parameters ?? []).map((p: Json) => deref(doc, p));
    const query = params.filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
    expect(query.sort()).toEqual(
      [
        'cnpj',
        'created_at__gt',
        'created_at__gte',
        'created_at__lt',
        'created_at__lte',
        'cursor',
        'deleted',
        'external_id',
        'limit',
        'name',
        'name__contains',
        'owner_id',
        'segment',
        'segment__contains',
        'sort',
      ].sort(),
    );
    const sort = params.find((p: Json) => p.name === 'sort');
    expect([...(deref(doc, sort.schema).enum ?? [])].sort()).toEqual(
      ['-created_at', '-name', 'created_at', 'name'].sort(),
    );
  });
});
