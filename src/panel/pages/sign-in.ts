import { setCookie } from 'hono/cookie';
import { apiKeyShard, sha256Hex } from '../../auth/secrets';
import { primaryDb } from '../../db/client';
import { forwardedShardOf } from '../../db/forwards';
import { asApiError } from '../../http/problem';
import { clientOf, rateLimit } from '../../http/rate-limit';
import { langs } from '../i18n';
import { type C, pageOf, panelNext, toSignIn } from '../page';
import { closeSession, openSession, setSessionCookie } from '../session';
import { signInPage } from '../views/layout';

/** The sign-in form; `next`, a panel path (an OAuth consent page), is where it goes once signed in. */
export const signInForm = (c: C) =>
  c.html(signInPage(pageOf(c, false), undefined, panelNext(c.req.query('next'))));

/**
 * Opens a session for a live API key. Attempts count against `SIGN_IN_RATE_LIMITER` per client
 * address before any D1 round trip; a key that is not one gets the form again with a 401.
 */
export async function signIn(c: C): Promise<Response> {
  const p = pageOf(c, false);
  try {
    await rateLimit(c.env, 'SIGN_IN_RATE_LIMITER', () => clientOf(c));
  } catch (caught) {
    const err = asApiError(caught);
    if (err?.code !== 'rate_limited') throw caught;
    c.header('Retry-After', err.headers?.['Retry-After'] ?? '60');
    return c.html(signInPage(p, p.t.tooMany), 429);
  }
  const form = await c.req.parseBody();
  const next = panelNext(typeof form.next === 'string' ? form.next : undefined);
  const given = typeof form.api_key === 'string' ? form.api_key.trim() : '';
  // The key names its shard, where the session is kept; a shard the Worker lacks is a wrong key.
  const shard = apiKeyShard(given);
  const keyHash = await sha256Hex(given);
  let token =
    shard !== undefined && (await c.get('shard').serve(shard))
      ? await openSession(c.get('db'), keyHash, Date.now())
      : undefined;
  // A key of an account moved since it was made names the shard it left: the move's forward says
  // where the account is now, and the session is kept there (its cookie names that shard).
  if (!token && shard !== undefined) {
    const moved = await forwardedShardOf(c.env, keyHash);
    if (moved !== undefined && moved !== shard)
      token = await openSession(primaryDb(c.env, moved), keyHash, Date.now());
  }
  if (!token) return c.html(signInPage(p, p.t.badKey, next), 401);
  setSessionCookie(c, token);
  return c.redirect(next ?? '/panel/webhooks', 303);
}

export async function signOut(c: C): Promise<Response> {
  await closeSession(c);
  return toSignIn(c);
}

/** Sets the language cookie and goes back to the page it was asked from. */
export function switchLanguage(c: C): Response {
  const lang = langs.find((l) => l === c.req.param('lang'));
  if (lang) setCookie(c, 'lang', lang, { path: '/panel', sameSite: 'Lax', maxAge: 365 * 24 * 3600 });
  return c.redirect(panelNext(c.req.query('next')) ?? '/panel/webhooks', 303);
}
