import type { Context } from 'hono';
import { allows, scopeOfRoute } from '../core/scopes';
import type { AppEnv } from '../env';

/**
 * What a write answers to the key that made it: the row whole when the key may read the resource
 * (`<resource>:read`, the scope a GET of the request's path needs), else only the row's `id` and
 * the `changed` fields: a `contacts:update` key's `PUT {}`, or a `contacts:delete` key's restore,
 * must not read the contact it could not GET.
 */
export function visibleAnswer<P extends { id: number }>(
  c: Context<AppEnv>,
  data: P,
  changed: readonly string[],
): P | (Partial<P> & Pick<P, 'id'>) {
  const read = scopeOfRoute('GET', c.req.path);
  // `held` is read with the key in the write's first batch; unread, nothing more is shown.
  const held = c.get('keyHash').held;
  if (read !== undefined && held !== undefined && allows(held, read)) return data;
  const shown: Partial<P> & Pick<P, 'id'> = { id: data.id } as Partial<P> & Pick<P, 'id'>;
  for (const field of changed) {
    if (Object.hasOwn(data, field)) shown[field as keyof P] = data[field as keyof P];
  }
  return shown;
}
