import {
  OAuthAuthorizationServer,
  type OAuthAuthorizationServerOptions,
  OAuthError,
  OAuthResourceServer,
  type TokenExchangeCallbackOptions,
  type TokenExchangeCallbackResult,
} from '@cloudflare/workers-oauth-provider';
import { apiKeyShard, sha256Hex } from '../auth/secrets';
import { ownVar } from '../core/own-vars';
import { primaryDb } from '../db/client';
import { forwardedShardOf } from '../db/forwards';
import { isShard } from '../db/shards';
import type { Bindings } from '../env';
import { fetchableClientId, isUrlClientId } from './cimd';
import { grantKeyLive } from './grant-keys';
import { MCP_SCOPES } from './scopes';

/** Paths of the authorization server (RFC 8414 metadata, token and revocation, registration). */
export const AUTHORIZE_PATH = '/panel/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';

/** An access token lives an hour; the grant (its refresh tokens and the key behind them) 30 days. */
export const ACCESS_TOKEN_TTL_S = 3600;
export const GRANT_TTL_S = 30 * 24 * 3600;

/**
 * What an OAuth access token's grant carries, encrypted by the library with the token: the grant's
 * API key, and the token's own scopes when its request narrowed the grant's (RFC 6749 §3.3, §6).
 */
export type GrantProps = { key: string; scopes?: string[] };

/**
 * The origin OAuth is served at: PUBLIC_BASE_URL's, else the request's. Undefined when it is plain
 * http on a host that is not loopback: the library (rightly) issues no token for such a resource.
 */
export function oauthOrigin(env: Bindings, url: URL): string | undefined {
  const base = ownVar(env, 'PUBLIC_BASE_URL');
  const origin = base ? new URL(base).origin : url.origin;
  const { protocol, hostname } = new URL(origin);
  const loopback = hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
  return protocol === 'https:' || loopback ? origin : undefined;
}

export const resourceOf = (origin: string) => `${origin}/mcp`;

function authorizationOptions(origin: string): OAuthAuthorizationServerOptions<Bindings> {
  return {
    issuer: origin,
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    resources: [resourceOf(origin)],
    defaultResource: resourceOf(origin),
    scopesSupported: [...MCP_SCOPES],
    accessTokenTTL: ACCESS_TOKEN_TTL_S,
    refreshTokenTTL: GRANT_TTL_S,
    clientIdMetadataDocumentEnabled: true,
    tokenExchangeCallback: exchange,
  };
}

/**
 * Whether the grant's key is live on its account's database: the shard the key names
 * (src/auth/secrets.ts), or, for an account moved since, the shard its move forwarded the key to.
 */
async function grantKeyLiveAnywhere(env: Bindings, key: string): Promise<boolean> {
  const named = apiKeyShard(key);
  if (!isShard(env, named)) return false;
  if (await grantKeyLive(primaryDb(env, named), key, Date.now())) return true;
  const moved = await forwardedShardOf(env, await sha256Hex(key));
  return moved !== undefined && moved !== named && grantKeyLive(primaryDb(env, moved), key, Date.now());
}

/**
 * Each code or refresh exchange. A grant whose key no longer acts (revoked with
 * `DELETE /v1/api-keys/{id}`, or expired) issues no more tokens: `invalid_grant`, on which the
 * library also revokes the grant and its tokens, so the connection leaves the panel's list at the
 * client's next refresh instead of lingering. A token asked for fewer scopes than the grant's
 * carries them in its own props, which `/mcp` applies on top of the key's (src/mcp/route.ts); the
 * grant keeps its scopes, so a later refresh may ask for all of them again.
 */
async function exchange({
  props,
  env,
  scope,
  requestedScope,
}: TokenExchangeCallbackOptions<Bindings>): Promise<TokenExchangeCallbackResult | undefined> {
  const key = (props as Partial<GrantProps> | undefined)?.key;
  if (typeof key !== 'string' || !(await grantKeyLiveAnywhere(env, key))) {
    throw new OAuthError('invalid_grant', {
      description: "This connection's API key was revoked or has expired: connect again.",
    });
  }
  const narrowed = requestedScope.length < scope.length;
  return narrowed ? { accessTokenProps: { key, scopes: requestedScope } satisfies GrantProps } : undefined;
}

// One of each per origin and isolate: their options are fixed at construction.
const servers = new Map<string, OAuthAuthorizationServer<Bindings>>();

export function authorizationServer(origin: string): OAuthAuthorizationServer<Bindings> {
  let server = servers.get(origin);
  if (!server) {
    server = new OAuthAuthorizationServer(authorizationOptions(origin));
    servers.set(origin, server);
  }
  return server;
}

/** The library's helpers (consent, grants) for `origin`. */
export const oauthApi = (env: Bindings, origin: string) => authorizationServer(origin).getOAuthApi(env);

type Handler = { fetch: (request: Request, env: Bindings, ctx: ExecutionContext) => Promise<Response> };

const resources = new Map<string, OAuthResourceServer<Bindings, GrantProps>>();

/**
 * `/mcp` as an RFC 9728 protected resource: its metadata, the 401 challenge, and the token checked
 * for this audience (RFC 8707) before `handler` (the app) runs with the grant's props.
 */
export function resourceServer(origin: string, handler: Handler): OAuthResourceServer<Bindings, GrantProps> {
  let server = resources.get(origin);
  if (!server) {
    server = new OAuthResourceServer<Bindings, GrantProps>({
      resourceMetadata: {
        resource: resourceOf(origin),
        authorization_servers: [origin],
        resource_name: 'CRM Service',
      },
      handler,
      validateToken: (env) => (resource, token) =>
        authorizationServer(origin).validateToken<GrantProps>(resource, token, env),
    });
    resources.set(origin, server);
  }
  return server;
}

/** Whether a request's `client_id` may be looked up: an opaque id always, a URL only when fetchable. */
export const clientIdAllowed = (clientId: string | null | undefined) =>
  !clientId || !isUrlClientId(clientId) || fetchableClientId(clientId);
