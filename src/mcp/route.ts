import type { Context } from 'hono';
import { bearerToken, looksLikeApiKey } from '../auth/secrets';
import { unauthorized } from '../core/errors';
import { ownVar } from '../core/own-vars';
import type { AppEnv, Bindings } from '../env';
import { bodyTooLarge, MAX_BODY_BYTES, readLimited } from '../http/body-limit';
import { countIn } from '../http/middleware';
import { ApiError } from '../http/problem';
import { clientOf, rateLimit } from '../http/rate-limit';
import type { V1Request } from './call';
import type { OpenApiDocument } from './operations';
import type { McpSession } from './server';
import { type Tool, toolsOf, visibleTools } from './tools';

/** The app's own fetch: `/v1` in-process, every check of its chain included. */
export type AppFetch = (
  request: Request,
  env: Bindings,
  ctx: Context<AppEnv>['executionCtx'],
) => Response | Promise<Response>;

/** The client limit was counted once for the `/mcp` request: its `/v1` calls do not count again. */
const COUNTED: RateLimit = { limit: async () => ({ success: true }) };

/**
 * DNS rebinding (the transport spec's MUST): a request from a browser page carries its Origin, and
 * only this service's own origin may call. Clients that are not browsers send none. With
 * PUBLIC_BASE_URL set, only its host is served; without it, the Worker answers on the hosts its
 * routes give it (Cloudflare routes no other host to it).
 */
function checkOrigin(c: Context<AppEnv>, url: URL): void {
  const base = ownVar(c.env, 'PUBLIC_BASE_URL');
  const own = base ? new URL(base) : url;
  if (base && url.host !== own.host) {
    throw new ApiError(403, 'host_not_allowed', `This server answers MCP at ${own.origin}/mcp only.`);
  }
  const origin = c.req.header('Origin');
  if (origin !== undefined && origin !== own.origin) {
    throw new ApiError(403, 'origin_not_allowed', 'A page of another origin may not call /mcp.');
  }
}

/** The JSON-RPC message, when the body is one; anything else is left to the SDK to refuse. */
type Message = { method?: unknown; params?: { name?: unknown } };

function messageOf(bytes: Uint8Array): Message | undefined {
  try {
    const message: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return message !== null && typeof message === 'object' ? (message as Message) : undefined;
  } catch {
    return undefined;
  }
}

/** The key's scopes from `/v1/me` (which also checks the key), or `/v1`'s refusal of it. */
async function scopesOf(send: McpSession['send']): Promise<readonly string[] | null | Response> {
  const me = await send({ path: '/v1/me', method: 'GET', headers: {} });
  if (!me.ok) return me;
  const { data } = (await me.json()) as { data: { api_key: { scopes: string[] | null } } };
  return data.api_key.scopes;
}

/**
 * `POST /mcp`: stateless, a fresh MCP server per request (src/mcp/server.ts), as the API key of the
 * Authorization header or of the OAuth grant whose token it carries. A `tools/call` is one `/v1` request made in-process with the same key, so its
 * scope, validation, idempotency and key rate limit are `/v1`'s; any other message first asks
 * `/v1/me` for the key's scopes, so tools/list shows only the tools the key may call.
 */
export function mcpRoute(app: AppFetch, document: () => OpenApiDocument) {
  let catalogue: Tool[] | undefined;
  return async (c: Context<AppEnv>): Promise<Response> => {
    const url = new URL(c.req.url);
    checkOrigin(c, url);
    await rateLimit(c.env, 'CLIENT_RATE_LIMITER', () => clientOf(c));
    // An OAuth access token was checked by src/oauth/routes.ts, which hands on its grant's key.
    const token = c.get('oauthKey') ?? bearerToken(c.req.header('Authorization'));
    if (!token || !looksLikeApiKey(token)) throw unauthorized();
    const bytes = await readLimited(c.req.raw, MAX_BODY_BYTES);
    if (!bytes) throw bodyTooLarge(MAX_BODY_BYTES);
    const env = { ...c.env, CLIENT_RATE_LIMITER: COUNTED };
    const { origin } = url;
    const client = c.req.header('CF-Connecting-IP');
    const send = async (request: V1Request) => {
      const inner = new Request(`${origin}${request.path}`, {
        method: request.method,
        headers: {
          ...request.headers,
          Authorization: `Bearer ${token}`,
          'X-Request-Id': c.get('requestId'),
          ...(client ? { 'CF-Connecting-IP': client } : {}),
        },
        body: request.body,
      });
      // Its round trips are this request's: /mcp's Server-Timing counts them.
      countIn(inner, c.get('meter'));
      return app(inner, env, c.executionCtx);
    };
    const message = messageOf(bytes);
    const method = typeof message?.method === 'string' ? message.method : '';
    catalogue ??= toolsOf(document());
    // A call's server needs only the tool it calls (an unknown name finds none: the SDK's error).
    let tools: readonly Tool[] = catalogue;
    if (method === 'tools/call') tools = catalogue.filter((tool) => tool.spec.name === message?.params?.name);
    else if (!method.startsWith('notifications/')) {
      const scopes = await scopesOf(send);
      if (scopes instanceof Response) return scopes;
      tools = visibleTools(catalogue, scopes);
    }
    // An OAuth token that narrowed its grant's scopes sees, and may call, no more than it asked for.
    const narrowed = c.get('oauthScopes');
    if (narrowed && method !== 'tools/call') tools = visibleTools(tools, narrowed);
    const session: McpSession = { tools, send, ...(narrowed && { narrowed }) };
    // The SDK reads no body it is handed parsed: the request itself goes along (its body read here).
    // Only a body that is not JSON goes as a copy, for the SDK to read and refuse in its own words.
    const forwarded =
      message === undefined
        ? new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: bytes })
        : c.req.raw;
    // Imported on the first /mcp request: the SDK's module setup (its protocol schemas) is not paid at
    // the Worker's start (docs/mcp.md, Cost).
    const { serveMcp } = await import('./server');
    const res = await serveMcp(forwarded, session, message);
    // A stream (an SSE answer) opens before its tool has run: read whole before the verdict is
    // looked at. A JSON answer is made once the tool has run.
    if (res.headers.get('Content-Type')?.startsWith('application/json')) return session.verdict ?? res;
    const body = await res.arrayBuffer();
    return session.verdict ?? new Response(body, res);
  };
}
