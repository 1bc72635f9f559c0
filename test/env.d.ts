import type { D1Migration } from 'cloudflare:test';
import type { Bindings } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      MIGRATION_DB: D1Database;
      /** A queue without a consumer: test/moves/support.ts runs each step of a move itself. */
      PARKED_MOVES: Queue<import('../src/moves/messages').MoveMessage>;
      /** 3 requests per key and minute, for the tests of the 429s. */
      LOW_API_RATE_LIMITER: RateLimit;
      LOW_HOOK_RATE_LIMITER: RateLimit;
      LOW_CLIENT_RATE_LIMITER: RateLimit;
      LOW_SIGN_IN_RATE_LIMITER: RateLimit;
      PROPERTY_SEED: string;
      PROPERTY_RUNS: string;
    }
    interface GlobalProps {
      mainModule: typeof import('../src/index');
    }
  }
}
