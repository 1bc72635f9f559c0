import type { z } from '@hono/zod-openapi';
import type { BatchInput } from '../contracts/batch';
import { fieldErrors } from '../contracts/field-errors';
import { type Relation, relations } from '../contracts/relation-keys';
import { type FieldError, invalid } from '../core/errors';
import type { RefTarget } from '../core/refs';
import { expectationCodes } from '../core/said';
import { type NaturalKey, naturalKeys } from './natural-keys';

export type Kind = RefTarget | 'task';
export type Item = BatchInput['items'][number];

/** A relation given by natural key, its value as stored. */
export type KeyRef = { relation: Relation; key: NaturalKey; value: string };

/** An item checked on its own, before anything is read: its fields apart from its relations. */
export type Checked = {
  index: number;
  item: Item;
  /** `data` less the relations by natural key. */
  fields: Record<string, unknown>;
  /** The fields as an update parses them (what the item is is known after the read). */
  parsed: Record<string, unknown>;
  keyRefs: KeyRef[];
};

const failure = (path: string, code: string, message: string): FieldError => ({ path, code, message });

/** The relation at `relation.field` of `data`: one natural key of its target, as stored. */
function keyRef(relation: Relation, given: unknown, errors: FieldError[]): KeyRef | undefined {
  const keys: NaturalKey[] = naturalKeys[relation.target];
  const names = keys.map((k) => k.field).join(', ');
  const entries =
    given !== null && typeof given === 'object' && !Array.isArray(given) ? Object.entries(given) : [];
  const [entry, ...more] = entries;
  const key = entry && keys.find((k) => k.field === entry[0]);
  if (!entry || more.length || !key) {
    errors.push(failure(relation.field, 'invalid', `Expected an object with one of: ${names}.`));
    return undefined;
  }
  const value = key.normal(entry[1]);
  if (value === undefined) {
    // What the key takes (`cnpj`, `email`, `phone`) is an expectation the panel words.
    const expected = expectationCodes.includes(key.field) ? { params: { expected: key.field } } : {};
    errors.push({
      ...failure(`${relation.field}.${key.field}`, 'invalid', `Not a valid ${key.field}.`),
      ...expected,
    });
    return undefined;
  }
  return { relation, key, value };
}

/** `data` split into its fields and its relations by natural key; an id and its key both given is a 422. */
function split(kind: Kind, data: Record<string, unknown>, errors: FieldError[]) {
  const fields: Record<string, unknown> = { ...data };
  const keyRefs: KeyRef[] = [];
  for (const relation of relations[kind] as readonly Relation[]) {
    if (!Object.hasOwn(data, relation.field)) continue;
    delete fields[relation.field];
    if (Object.hasOwn(data, relation.idField)) {
      errors.push(
        failure(relation.field, 'invalid', `Give ${relation.field} or ${relation.idField}, not both.`),
      );
    }
    const ref = keyRef(relation, data[relation.field], errors);
    if (ref) keyRefs.push(ref);
  }
  return { fields, keyRefs };
}

/** The item's own rules: its op and id, its relations, its fields as an update parses them. */
export function checkItem(
  kind: Kind,
  schemas: { update: z.ZodType },
  item: Item,
  index: number,
  withParams = false,
): Checked {
  const errors: FieldError[] = [];
  if (item.op === 'update' && item.id === undefined) {
    errors.push(failure('id', 'required', 'An update names the record to update by its id.'));
  }
  if (item.op === 'create' && item.id !== undefined) {
    errors.push(failure('id', 'read_only', 'id is read-only. The API assigns it.'));
  }
  const { fields, keyRefs } = split(kind, item.data, errors);
  // As an update even for a create: a required field may still come from a relation by natural key
  // (a task's `deal_id` from `deal: { external_id }`); finalBody checks the create once it has.
  const result = schemas.update.safeParse(fields);
  if (!result.success) errors.push(...fieldErrors(result.error, fields, withParams));
  if (errors.length) throw invalid(errors);
  return { index, item, fields, parsed: result.data as Record<string, unknown>, keyRefs };
}

/** The body an item writes once its relations are ids: parsed again as the single call would. */
export function finalBody(
  schema: z.ZodType,
  checked: Checked,
  ids: Record<string, number>,
  withParams = false,
): Record<string, unknown> {
  const fields = { ...checked.fields, ...ids };
  const result = schema.safeParse(fields);
  if (!result.success) throw invalid(fieldErrors(result.error, fields, withParams));
  return result.data as Record<string, unknown>;
}
