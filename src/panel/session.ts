import { and, eq, gt, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sha256Hex } from '../auth/secrets';
import { shardedSecret } from '../core/sharded-secret';
import type { Db } from '../db/client';
import { apiKeys, panelSessions } from '../db/schema';
import type { AppEnv } from '../env';

/** How long a sign-in lasts; signing out or revoking the key ends it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * `__Host-` binds the cookie to this exact host over https. Browsers may refuse Secure cookies on
 * http://localhost, so `wrangler dev` gets a plain name without Secure.
 */
export const sessionCookie = (url: string) =>
  new URL(url).protocol === 'https:'
    ? { name: '__Host-crm_session', secure: true, prefix: 'host' as const }
    : { name: 'crm_session', secure: false, prefix: undefined };

// Hono adds the prefix to the name it is given.
const BASE_NAME = 'crm_session';

/**
 * The API key hash a session acts with, as a scalar subquery: null once the session has expired
 * or is gone. The key's own revocation is checked where the hash is used (`accountOf`), in the
 * same statement, so a page costs no round trip for its session.
 */
export const sessionKey = (tokenHash: string, now: number): SQL<string> =>
  sql<string>`(select ${apiKeys.keyHash} from ${panelSessions} join ${apiKeys} on ${apiKeys.id} = ${panelSessions.apiKeyId} where ${panelSessions.tokenHash} = ${tokenHash} and ${panelSessions.expiresAt} > ${now})`;

/** A session's cookie value names the shard of its key's account, as the key does. */
const sessionTokens = shardedSecret('');

/**
 * The hash of the request's session cookie, if it has one; the request's shard is the one the
 * cookie names (a shard the Worker does not have: no session, so the sign-in page).
 */
export async function sessionHash(c: Context<AppEnv>): Promise<string | undefined> {
  const token = getCookie(c, BASE_NAME, sessionCookie(c.req.url).prefix);
  const shard = token === undefined ? undefined : sessionTokens.shardOf(token);
  if (!token || shard === undefined || !(await c.get('shard').serve(shard))) return undefined;
  return sha256Hex(token);
}

/**
 * One batch: forgets expired sessions and opens one for `keyHash` when it is a live, unexpired key
 * (with any scopes: each page offers what they allow). Returns the new session's cookie value, or
 * undefined for an unknown, revoked or expired key.
 */
export async function openSession(db: Db, keyHash: string, now: number): Promise<string | undefined> {
  const token = sessionTokens.make(db.shard);
  const tokenHash = await sha256Hex(token);
  const [, inserted] = await db.batch([
    db.delete(panelSessions).where(lt(panelSessions.expiresAt, now)),
    db
      .insert(panelSessions)
      .select(
        db
          .select({
            id: sql<number>`null`.as('id'),
            tokenHash: sql<string>`${tokenHash}`.as('token_hash'),
            accountId: apiKeys.accountId,
            apiKeyId: apiKeys.id,
            createdAt: sql<number>`${now}`.as('created_at'),
            expiresAt: sql<number>`${now + SESSION_TTL_MS}`.as('expires_at'),
          })
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.keyHash, keyHash),
              isNull(apiKeys.revokedAt),
              or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
            ),
          ),
      )
      .returning({ id: panelSessions.id }),
  ]);
  return inserted.length ? token : undefined;
}

export function setSessionCookie(c: Context<AppEnv>, token: string): void {
  const { secure, prefix } = sessionCookie(c.req.url);
  setCookie(c, BASE_NAME, token, {
    path: '/',
    httpOnly: true,
    secure,
    sameSite: 'Strict',
    maxAge: SESSION_TTL_MS / 1000,
    ...(prefix && { prefix }),
  });
}

/** Deletes the request's session row (if any) and its cookie. */
export async function closeSession(c: Context<AppEnv>): Promise<void> {
  const hash = await sessionHash(c);
  if (hash) await c.get('db').delete(panelSessions).where(eq(panelSessions.tokenHash, hash));
  const { secure, prefix } = sessionCookie(c.req.url);
  deleteCookie(c, BASE_NAME, {
    path: '/',
    secure,
    httpOnly: true,
    sameSite: 'Strict',
    ...(prefix && { prefix }),
  });
}
