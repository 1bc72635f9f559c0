import type { Context } from 'hono';
import type { Db } from '../db/client';
import { createOwn, type Extras, getOwn, updateOwn, type Viewed, type WriteSpec } from '../db/own';
import type { ResourceTable, TrashTable } from '../db/schema';
import type { KeyRef } from '../db/tenant';
import { restoreOwn, type TrashSpec, trashOwn } from '../db/trash';
import type { AppEnv } from '../env';

import { urlOf } from './urls';
import { visibleAnswer } from './visible';

type Valid<T> = { out: T };

/**
 * Writes that name a relation by natural key (model/keyed-write.ts): a body holding one of
 * `fields` is written by `write`, the batch's path, instead of the spec's own.
 */
export type KeyedWrite<R> = {
  fields: readonly string[];
  write: (
    db: Db,
    key: KeyRef,
    op: 'create' | 'update',
    data: Record<string, unknown>,
    id?: number,
  ) => Promise<R>;
};

/**
 * The get, create and update handlers of a `/v1` resource: the typed wiring stays in each router
 * (`.openapi(routes.get, handlers.get)`), the flow is written once here.
 */
export function ownHandlers<
  T extends ResourceTable,
  C,
  U extends object,
  X extends Extras,
  P extends { id: number },
>(
  path: string,
  spec: WriteSpec<T, C, U, X>,
  /** The row as the API shows it; `c` serves fields that depend on the request, such as URLs. */
  present: (row: Viewed<T, X>, c: Context<AppEnv>) => P,
  keyed?: KeyedWrite<Viewed<T, X>>,
) {
  /**
   * The write of a body that names a relation by key, or undefined (the spec's own write). It
   * takes the body as sent (the validator's cache): the batch item parses it itself.
   */
  const byKey = (c: Context<AppEnv>, body: object) => {
    if (!keyed?.fields.some((field) => Object.hasOwn(body, field))) return undefined;
    return async (op: 'create' | 'update', id?: number) =>
      keyed.write(c.get('db'), c.get('keyHash'), op, (await c.req.json()) as Record<string, unknown>, id);
  };
  return {
    get: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number } }>>) => {
      const row = await getOwn(c.get('db'), c.get('keyHash'), spec, c.req.valid('param').id);
      return c.json({ data: present(row, c) }, 200);
    },
    // A route's body may be wider than C (relations by key; a task's `deal_id` optional where
    // `deal` may stand in): without a key, its contract made it C.
    create: async <P extends string, B extends object>(c: Context<AppEnv, P, Valid<{ json: B }>>) => {
      const body = c.req.valid('json');
      const write = byKey(c, body);
      const row = write
        ? await write('create')
        : await createOwn(c.get('db'), c.get('keyHash'), spec, body as unknown as C);
      c.header('Location', urlOf(c, `${path}/${row.id}`));
      return c.json({ data: present(row, c) }, 201);
    },
    update: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number }; json: U }>>) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const write = byKey(c, body);
      const row = write
        ? await write('update', id)
        : await updateOwn(c.get('db'), c.get('keyHash'), spec, id, body);
      // A key without the resource's `:read` learns only what it just wrote.
      return c.json({ data: visibleAnswer(c, present(row, c), Object.keys(body)) }, 200);
    },
  };
}

/** The delete (to the trash) and restore handlers of a resource with a trash. */
export function trashHandlers<T extends TrashTable, X extends Extras, P extends { id: number }>(
  spec: TrashSpec<T, X>,
  present: (row: Viewed<T, X>, c: Context<AppEnv>) => P,
) {
  return {
    remove: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number } }>>) => {
      await trashOwn(c.get('db'), c.get('keyHash'), spec, c.req.valid('param').id);
      return c.body(null, 204);
    },
    restore: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number } }>>) => {
      const row = await restoreOwn(c.get('db'), c.get('keyHash'), spec, c.req.valid('param').id);
      // Whoever may delete may restore: without the resource's `:read`, only what the restore changed.
      return c.json({ data: visibleAnswer(c, present(row, c), ['deleted_at']) }, 200);
    },
  };
}
