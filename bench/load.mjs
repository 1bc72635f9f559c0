// Load for one endpoint at a fixed concurrency, through autocannon.
import autocannon from 'autocannon';

/**
 * One request of an endpoint: each may differ from the one before (another id, a body with a
 * unique CNPJ).
 * @typedef {{ method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers?: Record<string, string> }} Call
 */

/**
 * What one stretch of load saw.
 * @typedef {{ latencies: number[], seconds: number, failures: number }} Sample
 *
 * @typedef {object} Measured
 * @property {number} requests answered with a 2xx
 * @property {number} rps 2xx answers per second
 * @property {number} p50 ms @property {number} p99 ms
 * @property {number} failures non-2xx answers, connection errors and timeouts
 */

/** Nearest-rank percentile of ascending `sorted`. @param {number[]} sorted @param {number} p */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Several stretches of the same endpoint as one. @param {Sample[]} samples @returns {Measured} */
export function summarize(samples) {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const seconds = samples.reduce((sum, s) => sum + s.seconds, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
  };
}

/**
 * `connections` clients send `next()` back to back for `seconds`. Latencies are taken from every
 * response at full precision (autocannon's own histogram rounds to whole milliseconds, too coarse
 * for a 1.3x budget on requests of a few ms); only 2xx answers count.
 * @param {{ origin: string, headers: Record<string, string>, next: () => Call, connections: number, seconds: number }} options
 * @returns {Promise<Sample>}
 */
export function load({ origin, headers, next, connections, seconds }) {
  /** @type {number[]} */
  const latencies = [];
  let failures = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        connections,
        duration: seconds,
        headers,
        requests: [
          {
            setupRequest: (request) => {
              const call = next();
              return {
                ...request,
                method: call.method,
                path: call.path,
                headers: { ...request.headers, ...call.headers },
                body: call.body === undefined ? undefined : JSON.stringify(call.body),
              };
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        // autocannon counts timeouts among its errors.
        resolve({ latencies, seconds: result.duration || seconds, failures: failures + result.errors });
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failures++;
    });
  });
}
