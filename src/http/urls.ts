import type { Context } from 'hono';
import { ownVar } from '../core/own-vars';
import type { AppEnv } from '../env';

/**
 * The origin of a request's URL (already serialized by the runtime: lower-case scheme and host, no
 * default port), read off its text without parsing it again; `URL` only for one with credentials.
 */
export function originOf(url: string): string {
  const slash = url.indexOf('/', url.indexOf('://') + 3);
  const origin = slash < 0 ? url : url.slice(0, slash);
  return origin.includes('@') ? new URL(url).origin : origin;
}

/** Absolute URL of a path of this API, for Location and Link headers. */
export function urlOf(c: Context<AppEnv>, pathAndQuery: string): string {
  const base = ownVar(c.env, 'PUBLIC_BASE_URL') || originOf(c.req.url);
  return `${base.replace(/\/$/, '')}${pathAndQuery}`;
}
