import {
  AuthorizationError,
  type AuthRequest,
  authorizationErrorRedirect,
  CimdFetchError,
} from '@cloudflare/workers-oauth-provider';
import { DomainError } from '../../core/errors';
import { allows, type Scope } from '../../core/scopes';
import { KeyGrant } from '../../db/key-grant';
import type { Bindings } from '../../env';
import { ownKey } from '../../model/api-keys';
import { createGrantKey } from '../../oauth/grant-keys';
import { isMcpScope, MCP_SCOPES } from '../../oauth/scopes';
import { clientIdAllowed, GRANT_TTL_S, oauthApi, oauthOrigin } from '../../oauth/server';
import { oauthText } from '../oauth-text';
import { type C, PANEL_POLICY, pageOf } from '../page';
import { sessionHash, sessionKey } from '../session';
import { messagePage } from '../views/layout';
import { consentPage } from '../views/oauth';

// The authorization endpoint (OAuth 2.1): the library parses and checks the request (client,
// exact redirect URI, resource, PKCE), the person signs in with a key as for any panel page,
// and picks the scopes an assistant gets, no wider than the key's (docs/mcp.md, *OAuth*).

type Api = ReturnType<typeof oauthApi>;

const headersOf = (source: Headers, extra: Record<string, string> = {}) => {
  const headers = new Headers(source);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return headers;
};

/** A page saying what is wrong with the request, never a redirect to where it asked. */
function refusal(c: C, status: 400 | 403 | 404, text: string): Response | Promise<Response> {
  const p = pageOf(c, false);
  return c.html(messagePage(p, oauthText[p.lang].consentBadRequest, text), status);
}

/**
 * The library's refusal of a request: back to the client only when it validated the redirect URI
 * (`redirectTo`), else a page here; a metadata document that could not be fetched is a page too.
 */
function refused(c: C, caught: unknown): Response | Promise<Response> {
  if (caught instanceof AuthorizationError) {
    return caught.redirectTo ? c.redirect(caught.redirectTo, 302) : refusal(c, 400, caught.description);
  }
  if (caught instanceof CimdFetchError)
    return refusal(c, 400, oauthText[pageOf(c, false).lang].consentBadClient);
  throw caught;
}

type Signed = { api: Api; request: AuthRequest; key: KeyGrant; held: string[] | null; accountId: number };

/**
 * The request checked and the session's key read, or the answer that ends here: no OAuth on this
 * origin, a client URL this Worker will not fetch, no session (sign in, then back here), a request
 * the library refuses, or one without PKCE S256 (OAuth 2.1: a code is bound to its verifier).
 */
async function signedRequest(c: C): Promise<Signed | Response> {
  const url = new URL(c.req.url);
  const back = () => c.redirect(`/panel/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
  const hash = await sessionHash(c);
  if (!hash) return back();
  const origin = oauthOrigin(c.env as Bindings, url);
  const o = oauthText[pageOf(c, false).lang];
  if (!origin) return refusal(c, 404, o.consentBadRequest);
  if (!clientIdAllowed(c.req.query('client_id'))) return refusal(c, 400, o.consentBadClient);
  const api = oauthApi(c.env, origin);
  let request: AuthRequest;
  try {
    request = await api.parseAuthRequest(new Request(url, { headers: c.req.raw.headers }));
  } catch (caught) {
    return refused(c, caught);
  }
  if (!request.codeChallenge || request.codeChallengeMethod !== 'S256') {
    return c.redirect(
      authorizationErrorRedirect(request, 'invalid_request', 'PKCE with S256 is required.'),
      302,
    );
  }
  const now = Date.now();
  const key = new KeyGrant(sessionKey(hash, now), null, now);
  c.set('panelKey', key);
  try {
    const own = await ownKey(c.get('db'), key);
    return { api, request, key, held: own.scopes, accountId: own.accountId };
  } catch (caught) {
    const code = caught instanceof DomainError ? caught.code : undefined;
    if (code === 'unauthorized' || code === 'api_key_expired') return back();
    throw caught;
  }
}

const offeredTo = (held: string[] | null) => MCP_SCOPES.filter((scope) => allows(held, scope));

/**
 * The panel's policy, but `form-action` also allows the client's redirect URI: browsers apply it to
 * the redirect that answers the form's POST, which goes there.
 */
function consentPolicy(redirectUri: string): string {
  const target = new URL(redirectUri);
  const source =
    target.protocol === 'http:' || target.protocol === 'https:' ? target.origin : target.protocol;
  return PANEL_POLICY.replace("form-action 'self'", `form-action 'self' ${source}`);
}

/** The consent form for a checked request; its one-time handle and binding cookie come from the library. */
async function showConsent(
  c: C,
  s: Signed,
  checked: readonly string[],
  error?: string,
  status: 200 | 403 | 422 = 200,
) {
  const p = pageOf(c, true);
  const o = oauthText[p.lang];
  const offered = offeredTo(s.held);
  if (offered.length === 0) return c.html(messagePage(p, o.consentTitle, o.consentNoScopes), 403);
  const [consent, transaction] = await Promise.all([
    s.api.describeConsent(s.request),
    s.api.beginConsent(s.request),
  ]);
  const url = new URL(c.req.url);
  const form = { action: url.pathname + url.search, handle: transaction.handle, offered, checked };
  const page = await consentPage(p, o, consent, form, error);
  return new Response(page.toString(), {
    status,
    headers: headersOf(transaction.headers, {
      'Content-Type': 'text/html; charset=UTF-8',
      'Content-Security-Policy': consentPolicy(s.request.redirectUri),
    }),
  });
}

/** GET: the consent form, the scopes the client asked for (that the key holds) ticked, else the reads. */
export async function authorizeForm(c: C): Promise<Response> {
  const s = await signedRequest(c);
  if (s instanceof Response) return s;
  const offered = offeredTo(s.held);
  const asked = s.request.scope.filter((scope) => (offered as string[]).includes(scope));
  const checked = asked.length ? asked : offered.filter((scope) => scope.endsWith(':read'));
  return showConsent(c, s, checked);
}

/** The ticked scopes, or the one the key does not hold (then nothing is granted). */
function chosenScopes(
  form: Record<string, unknown>,
  held: string[] | null,
): { scopes: Scope[]; wider?: string } {
  const raw = form.scope;
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (value): value is string => typeof value === 'string',
  );
  const wider = values.find((value) => !isMcpScope(value) || !allows(held, value));
  return { scopes: [...new Set(values)].filter(isMcpScope), ...(wider !== undefined && { wider }) };
}

/**
 * POST: deny sends the client `access_denied`; approve checks the scopes against the key (a wider
 * one refuses the whole approval, before the one-time handle is spent), then spends the handle,
 * makes the grant's key and lets the library write the grant and the code.
 */
export async function authorizeDecision(c: C): Promise<Response> {
  const s = await signedRequest(c);
  if (s instanceof Response) return s;
  const o = oauthText[pageOf(c, true).lang];
  const form = await c.req.parseBody({ all: true });
  const handle = typeof form.handle === 'string' ? form.handle : '';
  try {
    if (form.decision !== 'approve') {
      const denied = await s.api.denyConsent(c.req.raw, handle);
      return new Response(null, {
        status: 303,
        headers: headersOf(denied.headers, { Location: denied.redirectTo }),
      });
    }
    const { scopes, wider } = chosenScopes(form, s.held);
    if (wider !== undefined) return showConsent(c, s, scopes, `${o.consentWider} ${wider}`, 403);
    if (scopes.length === 0) return showConsent(c, s, scopes, o.consentPickOne, 422);
    const approved = await s.api.approveConsent(c.req.raw, handle, { scope: scopes });
    const consent = await s.api.describeConsent(approved.request);
    const now = Date.now();
    const name = `MCP: ${consent.clientName}`.slice(0, 100);
    const grant = { name, scopes, expiresAt: now + GRANT_TTL_S * 1000 };
    const made = await createGrantKey(c.get('db'), s.key, grant, now).catch((err: unknown) => {
      // The account's cap on live keys (409): the client hears why, the grant is not made.
      if (err instanceof DomainError && err.code === 'conflict') return err;
      throw err;
    });
    if (made instanceof DomainError) {
      return c.redirect(authorizationErrorRedirect(approved.request, 'access_denied', made.message), 303);
    }
    const { redirectTo } = await s.api.completeAuthorization({
      request: approved.request,
      userId: String(made.accountId),
      metadata: { client: consent.clientName, redirectHost: consent.redirectHost, keyId: made.id },
      scope: scopes,
      props: { key: made.secret },
      // Each approval is a connection of its own, listed and revoked in the settings.
      revokeExistingGrants: false,
    });
    return new Response(null, {
      status: 303,
      headers: headersOf(approved.headers, { Location: redirectTo }),
    });
  } catch (caught) {
    if (caught instanceof AuthorizationError && !caught.redirectTo) return refusal(c, 400, o.consentUsed);
    return refused(c, caught);
  }
}
