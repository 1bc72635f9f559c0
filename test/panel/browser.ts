import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import worker from '../../src/index';
import { BASE } from '../helpers';

type Form = Record<string, string | string[]>;

/** What a browser sends to the panel: its cookie, its Origin on a POST, a urlencoded form. */
export function panelRequest(
  path: string,
  options: {
    cookie?: string;
    form?: Form;
    origin?: string | null;
    headers?: Record<string, string>;
    base?: string;
  } = {},
): Request {
  const base = options.base ?? BASE;
  const headers = new Headers(options.headers);
  if (options.cookie) headers.set('Cookie', options.cookie);
  let body: URLSearchParams | undefined;
  if (options.form) {
    body = new URLSearchParams();
    for (const [name, value] of Object.entries(options.form)) {
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    }
    headers.set('Content-Type', 'application/x-www-form-urlencoded');
    if (options.origin !== null) headers.set('Origin', options.origin ?? new URL(base).origin);
  }
  return new Request(`${base}${path}`, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' });
}

export const panel = (path: string, options: Parameters<typeof panelRequest>[1] = {}) =>
  exports.default.fetch(panelRequest(path, options));

/** Like `panel`, with some of the Worker's bindings replaced (a low rate limiter). */
export const panelWithEnv = (
  bindings: Partial<typeof env>,
  path: string,
  options: Parameters<typeof panelRequest>[1],
) => worker.fetch(panelRequest(path, options), { ...env, ...bindings }, createExecutionContext());

/** Signs in with `key` and returns the `name=value` of the session cookie. */
export async function signIn(key: string): Promise<string> {
  const res = await panel('/panel/sign-in', { form: { api_key: key } });
  expect(res.status).toBe(303);
  const cookie = res.headers.get('Set-Cookie') ?? '';
  const pair = cookie.split(';')[0] ?? '';
  // The session's shard before its 256 random bits, as the key names it (none for shard 0).
  expect(pair).toMatch(/^crm_session=(s[1-9][0-9]*_)?[A-Za-z0-9_-]{43}$/);
  return pair;
}

/** A page's HTML, failing on any status but `status`. */
export async function page(res: Response, status = 200): Promise<string> {
  const body = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${body.slice(0, 500)}`);
  return body;
}
