// B': the reference, answering with the headers the issue keeps on every answer of the service and
// the reference leaves out: the twelve security headers, a request id and Server-Timing. Everything
// else (SQL, bodies, status) is the reference's own. Set after the answer is made, one `set` each,
// as the cheapest form for a plain Worker. Server-Timing's text is fixed, as long as a read's.
import reference from '../../../shared/perf-ref/ref/worker.js';
// The service's own list, so the two cannot drift.
import { SECURITY_HEADERS } from '../../src/http/security.ts';

const TIMING = 'd1;dur=3.0;desc="1 round trip", total;dur=3.0';

export default {
  async fetch(request, env, ctx) {
    const response = await reference.fetch(request, env, ctx);
    const headers = response.headers;
    for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
    headers.set('X-Request-Id', crypto.randomUUID());
    headers.set('Server-Timing', TIMING);
    return response;
  },
};
