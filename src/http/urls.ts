import type { Context } from 'hono';
import { ownVar } from '../core/own-vars';
import type { AppEnv } from '../env';

/**
 * Absolute URL of a path of this API, for Location and Link headers. `requestUrl`: the request's
 * URL when the caller has parsed it already (a list's Link), so it is not parsed twice.
 */
export function urlOf(c: Context<AppEnv>, pathAndQuery: string, requestUrl?: URL): string {
  const base = ownVar(c.env, 'PUBLIC_BASE_URL') || (requestUrl ?? new URL(c.req.url)).origin;
  return `${base.replace(/\/$/, '')}${pathAndQuery}`;
}
