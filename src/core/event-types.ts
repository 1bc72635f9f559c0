/**
 * The change events outbound webhooks deliver, and the patterns an endpoint subscribes with: an
 * exact type, `<record>.*` (every event of that record type) or `*` (all of them).
 */

export const RECORD_TYPES = ['company', 'contact', 'deal', 'task', 'user'] as const;
const CHANGES = ['created', 'updated', 'deleted', 'restored'] as const;

/** Every type a journal entry may carry, and the endpoint's own events. */
export const EVENT_TYPES = [
  ...RECORD_TYPES.flatMap((record) => CHANGES.map((change) => `${record}.${change}`)),
  'task.completed',
  'task.reopened',
  'contact.erased',
  'endpoint.disabled',
] as const;

/** The message `POST /v1/webhook-endpoints/{id}/test` sends: every endpoint gets it, asked for or not. */
export const PING = 'ping';

const known = new Set<string>(EVENT_TYPES);
const prefixes = new Set(EVENT_TYPES.map((type) => type.split('.')[0]));

/** Whether `pattern` is `*`, `<record>.*` of a known record, or a known type. */
export const isEventPattern = (pattern: string): boolean =>
  pattern === '*' || known.has(pattern) || (pattern.endsWith('.*') && prefixes.has(pattern.slice(0, -2)));

/** Whether an endpoint subscribed to `patterns` receives an event of `type`. */
export const subscribes = (patterns: readonly string[], type: string): boolean =>
  type === PING ||
  patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
