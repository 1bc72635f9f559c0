import { getPath } from 'hono/utils/url';
import { apiKeyShard, bearerToken, sha256Hex } from '../auth/secrets';
import { forwardedShardOf } from '../db/forwards';
import { forwardedShard, forwardRequest } from '../db/shards';
import type { Bindings } from '../env';
import { webhookTokenShard } from '../webhooks/rules/token';

/**
 * Old credentials of a moved account keep working (docs/scaling.md, "Forwarding"). An API key or
 * webhook URL names the shard its account was made on; once a move has deleted the old copy, the
 * credential misses there: a /v1 401 or an ingest's empty 404. Only then is shard 0's
 * `credential_forwards` asked (by the credential's SHA-256, written at the move's switch), and the
 * request runs once more on the shard the account is on. A credential that is simply unknown costs
 * that one more round trip on its 401 or 404; every other request pays nothing.
 */

/**
 * The credential a request carries and the shard it names: a /v1 bearer key, or an ingest URL's
 * token; and whether its body must be kept for a second run. A /v1 write's key misses in its first
 * batch, which the route sends once it has read the body; ingest looks its webhook up before it
 * reads the body (docs/architecture.md), so at a /hooks miss the body is unread and goes along as
 * it is: the hot path pays no copy.
 */
function credentialOf(
  request: Request,
): { value: string; shard: number | undefined; miss: number; keepBody: boolean } | undefined {
  // The path as Hono's router reads it: no URL object for a check made on every request.
  const path = getPath(request);
  if (path.startsWith('/hooks/')) {
    const value = path.slice('/hooks/'.length);
    return { value, shard: webhookTokenShard(value), miss: 404, keepBody: false };
  }
  if (!path.startsWith('/v1/')) return undefined;
  const value = bearerToken(request.headers.get('Authorization') ?? undefined);
  return value === undefined ? undefined : { value, shard: apiKeyShard(value), miss: 401, keepBody: true };
}

/**
 * Runs `request`, and once more on the forwarded shard if its credential missed and was forwarded;
 * a forwarded request is never forwarded again. A /v1 request with a body keeps a copy of it (a tee
 * of the stream) for that second run; a body still unread at the miss goes along as it is.
 */
export async function withForwarding(
  request: Request,
  env: Bindings,
  run: (request: Request) => Promise<Response>,
): Promise<Response> {
  const credential = credentialOf(request);
  if (!credential || forwardedShard(request) !== undefined) return run(request);
  const spare = request.body && credential.keepBody ? request.clone() : undefined;
  const response = await run(request);
  if (response.status !== credential.miss) return response;
  const again = spare ?? (request.bodyUsed ? undefined : new Request(request));
  if (!again) return response;
  const shard = await forwardedShardOf(env, await sha256Hex(credential.value));
  if (shard === undefined || shard === credential.shard) return response;
  forwardRequest(again, shard);
  return run(again);
}
