import { z } from '@hono/zod-openapi';
import type { RefTarget } from '../core/refs';
import { writeBodies } from './common';

/**
 * The natural keys a relation may name its record by, in the order an upsert tries them
 * (model/natural-keys.ts says how each is found and normalised).
 */
export const relationKeys = {
  user: ['external_id', 'email'],
  company: ['external_id', 'cnpj'],
  contact: ['external_id', 'email', 'phone'],
  deal: ['external_id'],
} as const satisfies Record<RefTarget, readonly string[]>;

/** A relation given by natural key: `company: { cnpj }` fills `company_id`. */
export type Relation = { field: string; idField: string; target: RefTarget };

const owner = { field: 'owner', idField: 'owner_id', target: 'user' } as const;
const company = { field: 'company', idField: 'company_id', target: 'company' } as const;

/** The relations each resource's writes may give by natural key, wherever an id is taken. */
export const relations = {
  user: [],
  company: [owner],
  contact: [company, owner],
  deal: [company, { field: 'contact', idField: 'contact_id', target: 'contact' }, owner],
  task: [{ field: 'deal', idField: 'deal_id', target: 'deal' }, owner],
} as const satisfies Record<RefTarget | 'task', readonly Relation[]>;

export type RelationKind = keyof typeof relations;

/** One relation's body field: an object holding exactly one natural key of its target. */
function byKey({ target, idField }: Relation) {
  const keys: readonly string[] = relationKeys[target];
  const names = keys.join(', ');
  return z
    .strictObject(Object.fromEntries(keys.map((key) => [key, z.string().max(255).optional()])))
    .superRefine((value, ctx) => {
      if (keys.filter((key) => value[key] !== undefined).length !== 1) {
        ctx.addIssue({ code: 'custom', message: `Expected an object with one of: ${names}.` });
      }
    })
    .optional()
    .openapi({
      description: `The ${target} by one of its natural keys (${names}) instead of \`${idField}\`; a key no live ${target} of the account holds is a 422. Not with \`${idField}\``,
    });
}

/** The body fields of a resource's relations by natural key. */
type KeyedShape<K extends RelationKind> = {
  [R in (typeof relations)[K][number] as R['field']]: ReturnType<typeof byKey>;
};

/**
 * A resource's request bodies: its writable fields and its relations by natural key (the routes'
 * bodies; the model, the flows and a batch item's fields take the fields alone).
 */
export function keyedBodies<K extends RelationKind, S extends z.ZodRawShape>(
  kind: K,
  shape: S,
  readOnly: Record<string, string> = {},
) {
  const list: readonly Relation[] = relations[kind];
  const keyed = Object.fromEntries(list.map((r) => [r.field, byKey(r)])) as KeyedShape<K>;
  return writeBodies({ ...shape, ...keyed }, readOnly);
}
