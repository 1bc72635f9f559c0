import { ownVar } from '../../core/own-vars';

/**
 * Fault injection for tests and the local fault drill. It needs the FAULT_INJECTION variable,
 * which only the test config and the drill set (wrangler.toml never does; a test checks that), and
 * then acts only on events whose own body asks for it with `"__fault"`:
 * - `"consumer"`: the first processing attempt throws a transient error;
 * - `"send"`: ingest stores the event but skips the queue send, as if it had failed.
 * The drill also shortens the cron's stranded window with STRANDED_AFTER_MS, under the same guard.
 */
export type Fault = 'consumer' | 'send';

/** The variables of src/env.ts's Bindings that fault injection reads (webhooks/ sits below env.ts). */
type FaultVars = { FAULT_INJECTION?: string; STRANDED_AFTER_MS?: string };

export function injected(env: Pick<FaultVars, 'FAULT_INJECTION'>, payload: unknown, fault: Fault): boolean {
  return (
    ownVar(env, 'FAULT_INJECTION') === 'on' &&
    typeof payload === 'object' &&
    payload !== null &&
    Object.hasOwn(payload, '__fault') &&
    (payload as { __fault?: unknown }).__fault === fault
  );
}

/**
 * The cron's stranded window: `fallback`, or STRANDED_AFTER_MS (milliseconds, a positive integer)
 * when fault injection is on, so the drill sees the cron recover events without waiting minutes.
 */
export function strandedAfterMs(env: FaultVars, fallback: number): number {
  const ms = Number(ownVar(env, 'STRANDED_AFTER_MS'));
  return ownVar(env, 'FAULT_INJECTION') === 'on' && Number.isSafeInteger(ms) && ms > 0 ? ms : fallback;
}
