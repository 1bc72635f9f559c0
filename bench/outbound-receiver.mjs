// The outbound drill's receiver: a plain Node HTTP server that verifies every delivery with the
// `standardwebhooks` package (not the CRM's code), answers as its current mode says, and writes
// down everything it was sent, in arrival order.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * What the receiver answers: `ok` 204, `fail` 500, `throttle` 429 with `Retry-After`, `down` no
 * answer at all (the server is closed: connection refused).
 * @typedef {'ok' | 'fail' | 'throttle' | 'down'} Mode
 *
 * One request as it arrived. `record` is `<record_type>:<record_id>` of the entry it carries.
 * @typedef {{ id: string, at: number, verified: boolean, status: number, record?: string, version?: number, type?: string }} Arrival
 */

/** @param {import('node:http').IncomingMessage} req @returns {Promise<string>} */
async function text(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The entry a verified body carries. @param {unknown} body */
function entryOf(body) {
  const data =
    /** @type {{ data?: { record_type?: string, record_id?: number, version?: number }, type?: string }} */ (
      body
    );
  const entry = data?.data;
  return {
    type: data?.type,
    record: entry?.record_type ? `${entry.record_type}:${entry.record_id}` : undefined,
    version: entry?.version,
  };
}

/**
 * Listens on 127.0.0.1 (`port`, or a free one). `setSecret` before the first delivery; `setMode`
 * switches what it answers (`down` closes the server, any other mode opens it again on the same
 * port).
 * @param {{ retryAfterS: number, port?: number }} options
 */
export async function startReceiver({ retryAfterS, port = 0 }) {
  /** @type {Arrival[]} */
  const arrivals = [];
  /** @type {Webhook | undefined} */
  let verifier;
  /** @type {Mode} */
  let mode = 'ok';

  const server = createServer(async (req, res) => {
    const body = await text(req);
    const id = String(req.headers['webhook-id'] ?? '');
    /** @type {unknown} */
    let parsed;
    try {
      parsed = verifier?.verify(body, /** @type {Record<string, string>} */ (req.headers));
    } catch {
      parsed = undefined;
    }
    const verified = parsed !== undefined;
    const status = !verified ? 400 : mode === 'fail' ? 500 : mode === 'throttle' ? 429 : 204;
    arrivals.push({ id, at: Date.now(), verified, status, ...entryOf(parsed) });
    res.writeHead(status, status === 429 ? { 'retry-after': String(retryAfterS) } : {});
    res.end(status === 400 ? 'signature not verified' : '');
  });
  // A closed server must refuse at once, not linger on kept-alive sockets.
  server.keepAliveTimeout = 1000;

  /** @param {number} at */
  const listen = (at) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(undefined);
      });
    });
  await listen(port);
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;

  const close = () =>
    new Promise((resolve) => {
      server.close(() => resolve(undefined));
      server.closeAllConnections();
    });

  return {
    url: `http://127.0.0.1:${bound}/crm`,
    arrivals,
    /** @param {string} secret */
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    /** @param {Mode} next */
    async setMode(next) {
      if (next === 'down' && server.listening) await close();
      if (next !== 'down' && !server.listening) await listen(bound);
      mode = next;
    },
    mode: () => mode,
    stop: () => (server.listening ? close() : Promise.resolve(undefined)),
  };
}
