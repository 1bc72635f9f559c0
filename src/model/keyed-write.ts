import { type Relation, relations } from '../contracts/relation-keys';
import { type ScopeResource, writeScopes } from '../core/scopes';
import type { Db } from '../db/client';
import type { Extras } from '../db/own';
import type { TrashTable } from '../db/schema';
import type { KeyRef } from '../db/tenant';
import { type BatchResource, runBatch } from './batch';
import type { Item } from './batch-items';

/**
 * A single create or update that names a relation by natural key (`company: { cnpj }` for
 * `company_id`), written as one item of the batch's write path: the key is resolved in the read
 * that checks every reference, so the write stays 2 round trips, with the batch's checks and the
 * problem the single call gives. `fields`: the body fields that make a write one of these.
 */
export function keyedWrite<T extends TrashTable, C, U, X extends Extras>(
  resource: BatchResource<T, C, U, X> & { names: { scope: ScopeResource } },
) {
  const scope = resource.names.scope;
  const list: readonly Relation[] = relations[resource.kind];
  return {
    fields: list.map((relation) => relation.field),
    /** `data`: the body as sent; the item parses its fields itself. */
    write: async (db: Db, key: KeyRef, op: Item['op'], data: Record<string, unknown>, id?: number) => {
      const input = { items: [{ op, id, data }], atomic: true };
      const [outcome] = await runBatch(db, key, resource, input, writeScopes(scope, [op]));
      if (!outcome || 'error' in outcome) throw outcome?.error;
      return outcome.row;
    },
  };
}
