import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bearerToken, looksLikeApiKey } from '../auth/secrets';
import type { AppEnv, Bindings } from '../env';
import { limitedBody } from '../http/body-limit';
import { ApiError } from '../http/problem';
import { clientOf, rateLimit } from '../http/rate-limit';
import { endRevoked, revoking } from './revocation';
import {
  authorizationServer,
  clientIdAllowed,
  type GrantProps,
  oauthApi,
  oauthOrigin,
  REGISTER_PATH,
  resourceServer,
  TOKEN_PATH,
} from './server';

/** The Worker's own fetch, which the resource server calls once the token is good. */
type AppFetch = (request: Request, env: Bindings, ctx: ExecutionContext) => Response | Promise<Response>;

const noOAuth = () =>
  new ApiError(404, 'not_found', 'OAuth is served over https only (or http on localhost).');

function originOf(c: Context<AppEnv>): string {
  const origin = oauthOrigin(c.env, new URL(c.req.url));
  if (!origin) throw noOAuth();
  return origin;
}

/** The authorization server's own endpoints: metadata, token (and revocation), registration. */
const toAuthorizationServer = async (c: Context<AppEnv>) =>
  authorizationServer(originOf(c)).fetch(c.req.raw, c.env, c.executionCtx as ExecutionContext);

/**
 * The token endpoint, which is also RFC 7009's revocation endpoint (a `token` and no
 * `grant_type`): what a revocation ended in the library, it ends with its API key here
 * (src/oauth/revocation.ts).
 */
const toTokenEndpoint = async (c: Context<AppEnv>) => {
  const form = await c.req.raw
    .clone()
    .formData()
    .catch(() => undefined);
  const token = form?.get('token');
  if (typeof token !== 'string' || form?.has('grant_type')) return toAuthorizationServer(c);
  const api = oauthApi(c.env, originOf(c));
  const before = await revoking(api, token);
  const res = await toAuthorizationServer(c);
  if (res.ok && before) await endRevoked(api, c.env, token, before);
  return res;
};

/**
 * A token or revocation request for a client ID metadata document whose URL this Worker must not
 * fetch (src/oauth/cimd.ts) is refused before the library looks the client up.
 */
const fetchableClient: MiddlewareHandler<AppEnv> = async (c, next) => {
  const form = await c.req.raw
    .clone()
    .formData()
    .catch(() => undefined);
  const id = form?.get('client_id');
  if (typeof id === 'string' && !clientIdAllowed(id)) {
    return c.json({ error: 'invalid_client', error_description: 'This client_id URL is not fetched.' }, 401);
  }
  return next();
};

/** Each request counts against its address; a registration (which writes) also against the sign-in limit. */
const limited =
  (registration: boolean): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await rateLimit(c.env, 'CLIENT_RATE_LIMITER', () => clientOf(c));
    if (registration) await rateLimit(c.env, 'SIGN_IN_RATE_LIMITER', () => clientOf(c));
    return next();
  };

/**
 * RFC 9728 metadata for `/mcp`, at its path-suffixed address and at the bare one (the document of
 * the Worker's only protected resource), both answered by the library's resource server.
 */
function protectedResourceMetadata(app: AppFetch) {
  return async (c: Context<AppEnv>) => {
    const origin = originOf(c);
    const request = new Request(`${origin}/.well-known/oauth-protected-resource/mcp`, c.req.raw);
    return resourceServer(origin, { fetch: async (r, e, x) => app(r, e, x) }).fetch(
      request,
      c.env,
      c.executionCtx as ExecutionContext,
    );
  };
}

/** The OAuth endpoints outside the panel (whose consent page is the authorization endpoint). */
export function oauthRouter(app: AppFetch) {
  const metadata = protectedResourceMetadata(app);
  return new Hono<AppEnv>()
    .on(['GET', 'OPTIONS'], '/.well-known/oauth-protected-resource', limited(false), metadata)
    .on(['GET', 'OPTIONS'], '/.well-known/oauth-protected-resource/mcp', limited(false), metadata)
    .on(['GET', 'OPTIONS'], '/.well-known/oauth-authorization-server', limited(false), toAuthorizationServer)
    .on(['POST', 'OPTIONS'], TOKEN_PATH, limited(false), limitedBody, fetchableClient, toTokenEndpoint)
    .on(['POST', 'OPTIONS'], REGISTER_PATH, limited(true), limitedBody, toAuthorizationServer);
}

const grantOf = (c: Context<AppEnv>): GrantProps | undefined => {
  const props = (c.executionCtx as ExecutionContext & { props?: Partial<GrantProps> }).props;
  if (typeof props?.key !== 'string') return undefined;
  const { scopes } = props;
  const narrowed = Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string');
  return narrowed ? { key: props.key, scopes } : { key: props.key };
};

/** `/mcp`'s RFC 9728 metadata URL, which every 401 of `/mcp` names (MCP authorization spec). */
const challenge = (origin: string, header: string | null) =>
  `${header ?? 'Bearer'}, resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;

/**
 * Before `/mcp`: a bearer that is not an API key is an OAuth access token, which the library's
 * resource server checks (audience, expiry, revocation) and then hands back to the app with the
 * grant's props: this middleware, run again, puts the grant's key where the MCP route finds it
 * (`oauthKey`). API keys and requests with no token go straight on, as before OAuth; their 401s
 * name the metadata too, so a client that has no key finds the way to OAuth.
 */
export function mcpOAuth(app: AppFetch): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = oauthOrigin(c.env, new URL(c.req.url));
    const grant = grantOf(c);
    const token = bearerToken(c.req.header('Authorization'));
    if (origin && token && !looksLikeApiKey(token) && !grant) {
      return resourceServer(origin, { fetch: async (r, e, x) => app(r, e, x) }).fetch(
        c.req.raw,
        c.env,
        c.executionCtx as ExecutionContext,
      );
    }
    if (grant) c.set('oauthKey', grant.key);
    if (grant?.scopes) c.set('oauthScopes', grant.scopes);
    await next();
    const header = c.res.headers.get('WWW-Authenticate');
    if (origin && c.res.status === 401 && !header?.includes('resource_metadata=')) {
      c.res.headers.set('WWW-Authenticate', challenge(origin, header));
    }
  };
}
