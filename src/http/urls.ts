import type { Context } from 'hono';
import { ownVar } from '../core/own-vars';
import type { AppEnv } from '../env';

/** Absolute URL of a path of this API, for Location and Link headers. */
export function urlOf(c: Context<AppEnv>, pathAndQuery: string): string {
  const base = ownVar(c.env, 'PUBLIC_BASE_URL') || new URL(c.req.url).origin;
  return `${base.replace(/\/$/, '')}${pathAndQuery}`;
}
