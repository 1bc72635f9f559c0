/**
 * API key scopes, `<resource>:<operation>`, named by the service's own operations. A key without
 * scopes (null) has full access, as every key had before scopes existed.
 */
export const SCOPE_RESOURCES = [
  'users',
  'companies',
  'contacts',
  'deals',
  'tasks',
  'webhooks',
  'webhook_endpoints',
  'api_keys',
  'account',
  'events',
] as const;
export const OPERATIONS = ['read', 'insert', 'update', 'delete'] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Operation = (typeof OPERATIONS)[number];
export type Scope = `${ScopeResource | '*'}:${Operation | '*'}`;

/** The operations a resource has: every one, but the account (one row) is only read and updated, the change feed only read. */
const operationsOf = (resource: ScopeResource | '*'): readonly Operation[] =>
  resource === 'account' ? ['read', 'update'] : resource === 'events' ? ['read'] : OPERATIONS;

/** Every concrete `<resource>:<operation>` pair, no wildcard. */
export const CONCRETE_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((r) =>
  operationsOf(r).map((op): Scope => `${r}:${op}`),
);

/** Every scope a key may hold, wildcards included: what a create body's `scopes` may list. */
export const ALL_SCOPES = (['*', ...SCOPE_RESOURCES] as const).flatMap((resource) =>
  (['*', ...operationsOf(resource)] as const).map((op): Scope => `${resource}:${op}`),
) as [Scope, ...Scope[]];

/** The held scopes that grant `needed`: itself and its three wildcard forms. */
export function grantingScopes(needed: Scope): Scope[] {
  const [resource, op] = needed.split(':') as [ScopeResource | '*', Operation | '*'];
  return [...new Set<Scope>([needed, `${resource}:*`, `*:${op}`, '*:*'])];
}

/** Whether a key holding `held` (null: full access) may do `needed` (null: any key may). */
export function allows(held: readonly string[] | null, needed: Scope | null): boolean {
  if (held === null || needed === null) return true;
  return grantingScopes(needed).some((scope) => held.includes(scope));
}

/** The concrete `<resource>:<operation>` pairs a set of scopes stands for (null: all of them). */
function expand(scopes: readonly string[] | null): Set<string> {
  return new Set(CONCRETE_SCOPES.filter((pair) => allows(scopes, pair)));
}

/**
 * Whether `wanted` (null: full access) grants nothing `held` does not, today or later: every pair it
 * stands for is held, and each wildcard it lists is held as a wildcard too (`*:read` by `*:read` or
 * `*:*`). Holding every `<resource>:read` is not holding `*:read`: that one would also read a
 * resource added later.
 */
export function covers(held: readonly string[] | null, wanted: readonly string[] | null): boolean {
  const mine = expand(held);
  const wildcards = (wanted ?? ['*:*']).filter((scope) => scope.includes('*'));
  return (
    [...expand(wanted)].every((pair) => mine.has(pair)) &&
    wildcards.every((scope) => allows(held, scope as Scope))
  );
}

/** `/v1/<segment>` to the resource its scope names; null: any valid key may call it. */
const ROUTE_RESOURCES: Record<string, ScopeResource | null> = {
  users: 'users',
  companies: 'companies',
  contacts: 'contacts',
  deals: 'deals',
  tasks: 'tasks',
  // Categories exist only through tasks, so reading them is reading tasks.
  'task-categories': 'tasks',
  'inbound-webhooks': 'webhooks',
  'webhook-endpoints': 'webhook_endpoints',
  'api-keys': 'api_keys',
  // The account's webhooks and their event storage against its limits: a read of webhooks.
  usage: 'webhooks',
  // Its settings (the time zone dates with no time stand in): `account:read`, `account:update`.
  account: 'account',
  // The change feed (src/journal/): `events:read`; a record's history is a read of the record.
  events: 'events',
  me: null,
  // An import writes one resource: its route checks that resource's scopes for the import's mode
  // (src/routes/imports.ts), on creating, reading and cancelling it.
  imports: null,
};

const METHOD_OPERATIONS: Record<string, Operation> = {
  GET: 'read',
  HEAD: 'read',
  POST: 'insert',
  PUT: 'update',
  DELETE: 'delete',
};

/** POSTs that act on an existing row: the operation they are, named by the path's last segment. */
const ACTIONS: Record<string, Operation> = {
  // Restoring undoes a delete: whoever may send a row to the trash may take it back.
  restore: 'delete',
  'rotate-token': 'update',
  'rotate-secret': 'update',
  // Sending a delivery again, or a ping, changes nothing but the delivery log.
  resend: 'update',
  test: 'update',
  replay: 'update',
  // Processing a test event for real is a replay of it in production.
  process: 'update',
  // Recovering replays the failed events a filter finds.
  recover: 'update',
};

/**
 * The scope a `/v1` request needs, from its method and path (a template such as
 * `/v1/companies/{id}/restore` or the request's own): null when any key may, undefined when the
 * path names no known resource (a route added without a mapping here, refused by the document's
 * build and treated as needing full access).
 */
export function scopeOfRoute(method: string, path: string): Scope | null | undefined {
  const [, prefix, segment, ...rest] = path.split('/');
  if (prefix !== 'v1' || segment === undefined || !Object.hasOwn(ROUTE_RESOURCES, segment)) return undefined;
  const resource = ROUTE_RESOURCES[segment];
  if (resource === null || resource === undefined) return resource === null ? null : undefined;
  const last = rest.at(-1);
  const action = method === 'POST' && last && Object.hasOwn(ACTIONS, last) ? ACTIONS[last] : undefined;
  const op = action ?? (Object.hasOwn(METHOD_OPERATIONS, method) ? METHOD_OPERATIONS[method] : undefined);
  return op ? `${resource}:${op}` : undefined;
}

/** Scopes as stored and shown: each once, in a stable order. */
export const normalScopes = (scopes: readonly Scope[]): Scope[] =>
  ALL_SCOPES.filter((scope) => scopes.includes(scope));

/** The scopes writes of `ops` need: `:insert` to create, `:update` to update, both to upsert. */
export function writeScopes(resource: ScopeResource, ops: Iterable<'create' | 'update' | 'upsert'>): Scope[] {
  const wanted = new Set(ops);
  const insert = wanted.has('create') || wanted.has('upsert');
  const update = wanted.has('update') || wanted.has('upsert');
  return [
    ...(insert ? [`${resource}:insert` as const] : []),
    ...(update ? [`${resource}:update` as const] : []),
  ];
}
