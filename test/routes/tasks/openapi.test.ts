import { describe, expect, it } from 'vitest';
import { call, type Json, json } from '../../helpers';
import { deref } from '../../openapi';
import { TASK_KEYS } from './support';

/** Whether a property schema is marked read-only, directly or in one of its allOf parts. */
const isReadOnly = (doc: Json, node: Json): boolean => {
  const schema = deref(doc, node);
  return (
    schema?.readOnly === true ||
    (schema?.allOf ?? []).some((part: Json) => deref(doc, part)?.readOnly === true)
  );
};

describe('tasks: OpenAPI', () => {
  const load = async (): Promise<Json> => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    return json(res);
  };

  it('describes the Task resource exactly: owner_ids read-only, no owner_id', async () => {
    const doc = await load();
    const task = doc.components.schemas.Task;
    expect(task).toBeDefined();
    expect(Object.keys(task.properties).sort()).toEqual(TASK_KEYS);
    expect(task.properties).not.toHaveProperty('owner_id');
    expect(task.required).toEqual(expect.arrayContaining(TASK_KEYS));
    const ownerIds = deref(doc, task.properties.owner_ids);
    expect(isReadOnly(doc, task.properties.owner_ids)).toBe(true);
    expect(ownerIds.type).toBe('array');
    expect(deref(doc, ownerIds.items).type).toBe('integer');
    expect(deref(doc, task.properties.is_completed).type).toBe('boolean');

    const one = deref(
      doc,
      doc.paths['/v1/tasks/{id}'].get.responses['200'].content['application/json'].schema,
    );
    expect(one.properties.data.$ref).toBe('#/components/schemas/Task');
    const page = deref(doc, doc.paths['/v1/tasks'].get.responses['200'].content['application/json'].schema);
    expect(page.properties.data.items.$ref).toBe('#/components/schemas/Task');
  });

  it.each([
    ['post', '/v1/tasks', 'TaskCreate'],
    ['put', '/v1/tasks/{id}', 'TaskUpdate'],
  ])('%s %s takes %s, with owner_id writable and owner_ids read-only', async (method, path, name) => {
    const doc = await load();
    const ref = doc.paths[path][method].requestBody.content['application/json'].schema;
    expect(ref.$ref).toBe(`#/components/schemas/${name}`);
    const body = deref(doc, ref);
    const props = body.properties;
    for (const field of [
      'deal_id',
      'name',
      'description',
      'due_date',
      'category',
      'owner_id',
      'is_completed',
    ]) {
      expect(props, `${name}.${field}`).toHaveProperty(field);
    }
    expect(isReadOnly(doc, props.owner_id)).toBe(false);
    for (const field of ['owner_ids', 'completed_at', 'id', 'created_at', 'updated_at']) {
      if (field in props) expect(isReadOnly(doc, props[field]), `${name}.${field}`).toBe(true);
    }
    const required: string[] = body.required ?? [];
    // deal_id or `deal` (by external_id): one of them, which the API checks and the field says.
    if (name === 'TaskCreate') expect([...required].sort()).toEqual(['category', 'name']);
    else expect(required).toEqual([]);
    expect(body.additionalProperties).toBe(false);
  });

  it('documents the list filters and the eight sorts', async () => {
    const doc = await load();
    const params: Json[] = (doc.paths['/v1/tasks'].get.parameters ?? []).map((p: Json) => deref(doc, p));
    const names = params.filter((p) => p.in === 'query').map((p) => p.name);
    expect([...names].sort()).toEqual(
      [
        'category',
        'cursor',
        'deal_id',
        'deleted',
        'due_date__gt',
        'due_date__gte',
        'due_date__lt',
        'due_date__lte',
        'external_id',
        'is_completed',
        'limit',
        'owner_id',
        'sort',
      ].sort(),
    );
    const sort = deref(doc, params.find((p) => p.name === 'sort').schema);
    expect([...sort.enum].sort()).toEqual(
      [
        'due_date',
        '-due_date',
        'deal_id',
        '-deal_id',
        'updated_at',
        '-updated_at',
        'created_at',
        '-created_at',
      ].sort(),
    );
  });
});
