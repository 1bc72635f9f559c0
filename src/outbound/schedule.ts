/**
 * When a failed delivery is tried again: the Svix schedule (at once, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h: 8 attempts over 27 h 35 min), each delay stretched by up to 10 % of jitter (never
 * shortened, so the whole still spans at least 27 hours) so that a receiver that comes back is not
 * met by every delivery at once. Each delay is within a Queue message's limit of 12 hours.
 */
export const SCHEDULE_S = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;
export const MAX_TRIES = SCHEDULE_S.length;
/** The longest `delaySeconds` Cloudflare Queues take (12 hours). */
export const QUEUE_MAX_DELAY_S = 43_200;

/**
 * Seconds until the try after `tries` failed ones (1 after the first), or undefined when none is
 * left. A `Retry-After` (on 429 and 503) is honoured: never sooner than it asks, within the
 * Queue's limit. `scale` (0 to 1) shortens the schedule for a local drill (outbound/policy.ts
 * `retryScale`: 1 anywhere else); it never shortens a `Retry-After`.
 */
export function retryDelayS(
  tries: number,
  retryAfterS?: number,
  random = Math.random(),
  scale = 1,
): number | undefined {
  const scheduled = SCHEDULE_S[tries];
  if (scheduled === undefined) return undefined;
  const jittered = Math.ceil(scheduled * scale * (1 + 0.1 * random));
  return Math.min(Math.max(jittered, retryAfterS ?? 0), QUEUE_MAX_DELAY_S);
}

/** A `Retry-After` header (seconds, or an HTTP date) as seconds from `now`; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
