import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { sha256Hex } from '../auth/secrets';
import { ownVar } from '../core/own-vars';
import type { AppEnv, Bindings } from '../env';
import { ApiError } from './problem';

/**
 * The window of every limiter, in seconds: the `period` of their `[[ratelimits]]` in wrangler.toml
 * (a test holds the two equal). A client over the limit may retry after at most this long.
 */
export const RATE_LIMIT_PERIOD_S = 60;

type Limiter = 'API_RATE_LIMITER' | 'HOOK_RATE_LIMITER' | 'CLIENT_RATE_LIMITER' | 'SIGN_IN_RATE_LIMITER';

/**
 * Each limiter as a quota policy of the IETF draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers): its name in `RateLimit`/`RateLimit-Policy` and its
 * `limit` in wrangler.toml, which the binding cannot report (a test holds the two equal).
 */
export const policies = {
  API_RATE_LIMITER: { name: 'key', quota: 1000 },
  CLIENT_RATE_LIMITER: { name: 'client', quota: 6000 },
  HOOK_RATE_LIMITER: { name: 'webhook', quota: 600 },
  SIGN_IN_RATE_LIMITER: { name: 'sign-in', quota: 10 },
} as const satisfies Record<Limiter, { name: string; quota: number }>;

const policyItem = (limiter: Limiter) =>
  `"${policies[limiter].name}";q=${policies[limiter].quota};w=${RATE_LIMIT_PERIOD_S}`;

/**
 * `RateLimit-Policy` of every `/v1` answer: the two limits a `/v1` request counts against, so a
 * client can pace itself under them. A fixed string: it costs an answer one header set.
 */
export const API_RATE_POLICY = `${policyItem('API_RATE_LIMITER')}, ${policyItem('CLIENT_RATE_LIMITER')}`;

/**
 * Counts one request against `key` (a hash, never a credential; a function, so that a hash made
 * only for the limiter is not made when limits are off) and throws the 429 once it is over the
 * limit, with `RateLimit` naming the policy spent: nothing remains of it for at most the window
 * (the binding answers only over or under, so no count is reported before that). The binding's
 * counters live beside the Worker, so this costs no D1 round trip.
 * `RATE_LIMITS=off` is for local load runs only (bench, drill), never set in wrangler.toml.
 */
export async function rateLimit(
  env: Bindings,
  limiter: Limiter,
  key: () => string | Promise<string>,
): Promise<void> {
  if (ownVar(env, 'RATE_LIMITS') === 'off') return;
  const binding = ownVar(env, limiter);
  if (!binding) throw new Error(`The ${limiter} binding is missing (wrangler.toml [[ratelimits]])`);
  const { success } = await binding.limit({ key: await key() });
  if (!success) {
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests; retry in ${RATE_LIMIT_PERIOD_S} seconds.`,
      undefined,
      {
        'Retry-After': String(RATE_LIMIT_PERIOD_S),
        RateLimit: `"${policies[limiter].name}";r=0;t=${RATE_LIMIT_PERIOD_S}`,
        'RateLimit-Policy': policyItem(limiter),
      },
    );
  }
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const GROUP = /^[0-9a-f]{1,4}$/;

/** The four bytes of a dotted IPv4 address, or undefined. */
function ipv4Bytes(text: string): number[] | undefined {
  const bytes = IPV4.exec(text)?.slice(1).map(Number);
  return bytes?.every((byte) => byte <= 255) ? bytes : undefined;
}

/** The groups of one side of `::`; an IPv4 tail (`::ffff:1.2.3.4`) counts as the last two. */
function groupsOf(part: string, last: boolean): number[] | undefined {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    const bytes = last && i === pieces.length - 1 ? ipv4Bytes(piece) : undefined;
    if (bytes) {
      const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = bytes;
      groups.push((b0 << 8) | b1, (b2 << 8) | b3);
    } else if (GROUP.test(piece)) groups.push(Number.parseInt(piece, 16));
    else return undefined;
  }
  return groups;
}

/** The eight 16-bit groups of an IPv6 address in any of its written forms, or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  const halves = ip.split('::');
  if (halves.length > 2) return undefined;
  const [head = '', tail] = halves;
  if (tail === undefined) {
    const groups = groupsOf(head, true);
    return groups?.length === 8 ? groups : undefined;
  }
  const before = groupsOf(head, false);
  const after = groupsOf(tail, true);
  if (!before || !after || before.length + after.length > 7) return undefined;
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * What one client is, from its address: an IPv4 address whole; an IPv6 client usually holds a
 * whole /64, so its first four groups, the same whichever way the address is written (`::`,
 * leading zeros, capitals, a zone id). An IPv4-mapped address (`::ffff:1.2.3.4`) is its IPv4
 * client, not the /64 every such address shares. Anything else is taken as sent.
 */
export function clientPrefix(address: string): string {
  const ip = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  if (!ip.includes(':')) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groups;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) {
    return [g >> 8, g & 0xff, h >> 8, h & 0xff].join('.');
  }
  return [a, b, c, d].map((group) => group.toString(16)).join(':');
}

/** The caller's address as a limiter key, hashed like the other keys: no address is kept in the limiter. */
export function clientOf(c: Context): Promise<string> {
  return sha256Hex(`client:${clientPrefix(c.req.header('CF-Connecting-IP') ?? '')}`);
}

/**
 * Every `/v1` and `/hooks` request counts against its client address, before any key or token is
 * looked up: the per-key limits cannot stop a flood that makes up a new key or token for every
 * request, each of which would cost a D1 round trip to refuse.
 */
export const clientRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  await rateLimit(c.env, 'CLIENT_RATE_LIMITER', () => clientOf(c));
  await next();
});
