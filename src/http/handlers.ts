import type { Context } from 'hono';
import { createOwn, type Extras, getOwn, updateOwn, type Viewed, type WriteSpec } from '../db/own';
import type { ResourceTable, TrashTable } from '../db/schema';
import { restoreOwn, type TrashSpec, trashOwn } from '../db/trash';
import type { AppEnv } from '../env';

import { urlOf } from './urls';
import { visibleAnswer } from './visible';

type Valid<T> = { out: T };

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
) {
  return {
    get: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number } }>>) => {
      const row = await getOwn(c.get('db'), c.get('keyHash'), spec, c.req.valid('param').id);
      return c.json({ data: present(row, c) }, 200);
    },
    create: async <P extends string>(c: Context<AppEnv, P, Valid<{ json: C }>>) => {
      const row = await createOwn(c.get('db'), c.get('keyHash'), spec, c.req.valid('json'));
      c.header('Location', urlOf(c, `${path}/${row.id}`));
      return c.json({ data: present(row, c) }, 201);
    },
    update: async <P extends string>(c: Context<AppEnv, P, Valid<{ param: { id: number }; json: U }>>) => {
      const { id } = c.req.valid('param');
      const body = c.req.valid('json');
      const row = await updateOwn(c.get('db'), c.get('keyHash'), spec, id, body);
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
