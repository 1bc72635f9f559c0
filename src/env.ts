import type { Db } from './db/client';
import type { KeyGrant } from './db/key-grant';
import type { D1Meter } from './db/meter';
import type { RequestShard } from './db/shards';
import type { IdempotencyClaim } from './http/idempotency-claim';
import type { ImportMessage } from './model/import-messages';
import type { MoveMessage } from './moves/messages';
import type { DeliveryMessage } from './outbound/messages';
import type { EventMessage } from './webhooks/log/event-messages';

export type Bindings = {
  /** Shard 0; shards 1, 2, … are `DB_1`, `DB_2`, … (src/db/shards.ts: the only reader of these). */
  DB: D1Database;
  [shard: `DB_${number}`]: D1Database | undefined;
  /** The docs Worker (workers/docs): /docs' static files, dist/assets, built by scripts/assets.mjs. */
  DOCS: Fetcher;
  EVENTS: Queue<EventMessage>;
  /** Outbound webhook deliveries (src/outbound/): one message per attempt due. */
  OUTBOUND: Queue<DeliveryMessage>;
  /** CSV import files while their import runs (docs/import-export.md#csv-import). */
  IMPORT_FILES: R2Bucket;
  /** One message per chunk of an import to read: src/queue/imports.ts. */
  IMPORTS: Queue<ImportMessage>;
  /** One message per step of an account's move between shards: src/moves/. */
  MOVES: Queue<MoveMessage>;
  /** Worker secret; when unset every /admin route answers 404. */
  ADMIN_TOKEN?: string;
  PUBLIC_BASE_URL: string;
  /** Origins allowed to call /v1 from a browser, comma-separated; empty: none. */
  CORS_ORIGINS: string;
  /** `on` only in tests and the local fault drill: see src/webhooks/rules/faults.ts. */
  FAULT_INJECTION?: string;
  /** Requests per API key (its hash) and window: `[[ratelimits]]` in wrangler.toml. */
  API_RATE_LIMITER: RateLimit;
  /** Events per webhook token (its hash) and window: `[[ratelimits]]` in wrangler.toml. */
  HOOK_RATE_LIMITER: RateLimit;
  /** Requests per client address (its hash) and window, before any key is checked. */
  CLIENT_RATE_LIMITER: RateLimit;
  /** Panel sign-in attempts per client address (its hash) and window. */
  SIGN_IN_RATE_LIMITER: RateLimit;
  /** OAuth clients, grants and tokens (hashed), kept by @cloudflare/workers-oauth-provider. */
  OAUTH_KV: KVNamespace;
  /** `off` only for local load runs (bench, drill): see src/http/rate-limit.ts. */
  RATE_LIMITS?: string;
  /** Days webhook events are kept before the cron purges them (`[vars]`; default 30). */
  EVENT_RETENTION_DAYS?: string;
  /** Days change journal entries are kept before the cron purges them (`[vars]`; default 30). */
  JOURNAL_RETENTION_DAYS?: string;
  /** MiB of webhook events an account may keep; over it ingest answers 429 (`[vars]`; default 256). */
  EVENT_STORAGE_QUOTA_MIB?: string;
  /** The share of that quota, in percent, one webhook's events may take (`[vars]`; default 25). */
  EVENT_STORAGE_WEBHOOK_PERCENT?: string;
  /** `true` only from `.dev.vars` (never [vars]): outbound webhooks may post to http://localhost:<port>. */
  OUTBOUND_ALLOW_HTTP_LOCALHOST?: string;
  /** From `.dev.vars` alone, with OUTBOUND_ALLOW_HTTP_LOCALHOST: the retry schedule times this (0 to 1). */
  OUTBOUND_RETRY_SCALE?: string;
  /** The drill's shorter cron window in ms, honoured only with FAULT_INJECTION=on. */
  STRANDED_AFTER_MS?: string;
};

export type Variables = {
  requestId: string;
  /** The shard the request's D1 session opens on, chosen from its credential (src/db/shards.ts). */
  shard: RequestShard;
  db: Db;
  /** The request's D1 round trips, as its `Server-Timing` tells them (src/http/middleware.ts). */
  meter: D1Meter;
  /**
   * The bearer API key as the queries see it: its SHA-256 while the key may do the route's
   * operation; checked against D1 inside the request's first batch.
   */
  keyHash: KeyGrant;
  /** SHA-256 of the bearer API key, as the rate limiter counts it. */
  apiKeyHash: string;
  /** The panel session's key, once a page has asked for it: its scopes decide what the page offers. */
  panelKey?: KeyGrant;
  /** On `/mcp` with an OAuth access token: the API key its grant acts as (src/oauth/grant-keys.ts). */
  oauthKey?: string;
  /** With it, the access token's own scopes when its request narrowed the grant's: `/mcp` applies both. */
  oauthScopes?: readonly string[];
  /** Inert unless the request is a `/v1` POST with an Idempotency-Key. */
  claim: IdempotencyClaim;
};

export type AppEnv = { Bindings: Bindings; Variables: Variables };
