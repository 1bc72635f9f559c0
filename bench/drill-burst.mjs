// The fault drill's sender: `connections` concurrent clients post the burst as a webhook sender
// would, and the local server is restarted once in the middle of it. What gets no answer (the
// connection refused or cut, a 5xx, a timeout) is sent again with the same Idempotency-Key.

/** A try per event at most: the first, and retries after the restart (or a second apart). */
const MAX_TRIES = 5;
/** A request hung this long counts as unanswered. */
const TIMEOUT_MS = 30_000;

/**
 * @typedef {object} Failure
 * @property {string} reason `ECONNREFUSED`, `HTTP 503`, `timeout`, ...
 * @property {boolean} restart sent to the server being stopped, or while it was down
 *
 * @typedef {object} Sent
 * @property {number} [status] the answer; none when every try failed
 * @property {number} tries
 * @property {Failure[]} failures the tries that got no answer
 *
 * @typedef {object} Burst
 * @property {Sent[]} sent one per event, in the burst's order
 * @property {number} seconds from the first request to the last answer
 * @property {{ at_event: number, killed_at: number, down_s: number }} restart the event that set it
 *   off, when the server was stopped (epoch ms), and how long until the new one answered
 */

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a fetch got no response. @param {unknown} err */
function reasonOf(err) {
  if (err instanceof Error && err.name === 'TimeoutError') return 'timeout';
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error)
    return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Posts every event to `url`, `connections` at a time, in order. When event `restartAt` is taken,
 * `restart()` (stop the server, start it again on the same port) runs beside the load.
 * @param {{ url: string, events: import('./drill-events.mjs').DrillEvent[], connections: number,
 *   restartAt: number, restart: () => Promise<void>, progress: (text: string) => void }} options
 * @returns {Promise<Burst>}
 */
export async function burst({ url, events, connections, restartAt, restart, progress }) {
  const started = performance.now();
  // Until the restart begins, nothing fails because of it; while it runs, upAt is unknown.
  const restarting = {
    killedAt: Number.POSITIVE_INFINITY,
    upAt: Number.POSITIVE_INFINITY,
    wallClock: 0,
    done: Promise.resolve(),
  };
  /** @type {Sent[]} */
  const sent = [];
  let next = 0;
  let answered = 0;

  /** @param {import('./drill-events.mjs').DrillEvent} event @returns {Promise<Sent>} */
  async function send(event) {
    /** @type {Failure[]} */
    const failures = [];
    for (let tries = 1; ; tries++) {
      const sentAt = performance.now();
      let reason = '';
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': event.key },
          body: event.body,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        await res.arrayBuffer();
        if (res.status < 500) return { status: res.status, tries, failures };
        reason = `HTTP ${res.status}`;
      } catch (err) {
        reason = reasonOf(err);
      }
      const restart = performance.now() >= restarting.killedAt && sentAt <= restarting.upAt;
      failures.push({ reason, restart });
      if (tries === MAX_TRIES) return { tries, failures };
      // A sender retries once the server is back: here, as soon as the new one answers.
      await (restart ? restarting.done : sleep(1000));
    }
  }

  async function lane() {
    for (let index = next++; index < events.length; index = next++) {
      const event = events[index];
      if (!event) return;
      if (index === restartAt) {
        progress(`   restarting the server at event ${index}`);
        restarting.killedAt = performance.now();
        restarting.wallClock = Date.now();
        restarting.done = restart().then(() => {
          restarting.upAt = performance.now();
          progress(`   restarted in ${((restarting.upAt - restarting.killedAt) / 1000).toFixed(1)} s`);
        });
      }
      sent[index] = await send(event);
      if (++answered % 500 === 0) progress(`   ${answered} of ${events.length} answered`);
    }
  }

  await Promise.all(Array.from({ length: connections }, lane));
  await restarting.done;
  return {
    sent,
    seconds: (performance.now() - started) / 1000,
    restart: {
      at_event: restartAt,
      killed_at: restarting.wallClock,
      down_s: (restarting.upAt - restarting.killedAt) / 1000,
    },
  };
}
