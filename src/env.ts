import type { Db } from './db/client';
import type { EventMessage } from './queue/messages';

export type Bindings = {
  DB: D1Database;
  EVENTS: Queue<EventMessage>;
  /** Worker secret; when unset every /admin route answers 404. */
  ADMIN_TOKEN?: string;
  PUBLIC_BASE_URL: string;
  /** `on` only in tests and the local fault drill: see src/queue/faults.ts. */
  FAULT_INJECTION?: string;
  /** The drill's shorter cron window in ms, honoured only with FAULT_INJECTION=on. */
  STRANDED_AFTER_MS?: string;
};

export type Variables = {
  requestId: string;
  db: Db;
  /** SHA-256 of the bearer API key; checked against D1 inside the request's first batch. */
  keyHash: string;
};

export type AppEnv = { Bindings: Bindings; Variables: Variables };
