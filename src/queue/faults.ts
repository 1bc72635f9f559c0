import type { Bindings } from '../env';

/**
 * Fault injection for tests and the local fault drill. It needs the FAULT_INJECTION variable,
 * which only the test config and the drill set (wrangler.toml never does; a test checks that), and
 * then acts only on events whose own body asks for it with `"__fault"`:
 * - `"consumer"`: the first processing attempt throws a transient error;
 * - `"send"`: ingest stores the event but skips the queue send, as if it had failed.
 */
export type Fault = 'consumer' | 'send';

export function injected(env: Pick<Bindings, 'FAULT_INJECTION'>, payload: unknown, fault: Fault): boolean {
  return (
    env.FAULT_INJECTION === 'on' &&
    typeof payload === 'object' &&
    payload !== null &&
    (payload as { __fault?: unknown }).__fault === fault
  );
}
