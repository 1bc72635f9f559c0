import { setCookie } from 'hono/cookie';
import { DomainError } from '../../core/errors';
import { logError } from '../../core/log';
import { validZone } from '../../core/zones';
import { KeyGrant } from '../../db/key-grant';
import { getAccount, updateAccount } from '../../model/account';
import { langs } from '../i18n';
import { type C, flashPrefsSaved, pageOf, panelNext } from '../page';
import { sessionHash, sessionKey } from '../session';
import { type AccountZone, settingsPage } from '../views/settings';
import { ZONE_COOKIE } from '../zone';

const YEAR = 365 * 24 * 3600;

/**
 * The account's zone as the session's key may read it: the zone, `denied` without `account:read`,
 * undefined with no session (or one that ended). The person's own preferences need no session.
 */
async function accountZone(c: C): Promise<AccountZone | undefined> {
  const hash = await sessionHash(c);
  if (!hash) return undefined;
  const now = Date.now();
  const deferred = (touch: Promise<unknown>) =>
    c.executionCtx.waitUntil(touch.catch((err: unknown) => logError(err, c.get('requestId'))));
  const key = new KeyGrant(sessionKey(hash, now), 'account:read', now, deferred);
  c.set('panelKey', key);
  try {
    return { zone: (await getAccount(c.get('db'), key)).time_zone };
  } catch (caught) {
    const code = caught instanceof DomainError ? caught.code : undefined;
    if (code === 'insufficient_scope') return 'denied';
    if (code === 'unauthorized' || code === 'api_key_expired') return undefined;
    throw caught;
  }
}

/** The preferences form: the language and time zone, each kept in its own cookie; and the account's zone. */
export async function settingsForm(c: C): Promise<Response> {
  const account = await accountZone(c);
  const p = pageOf(c, account !== undefined || (await sessionHash(c)) !== undefined);
  const saved =
    c.req.query('saved') === 'account' ? { kind: 'ok' as const, text: p.t.accountZoneSaved } : undefined;
  return c.html(settingsPage(p, panelNext(c.req.query('next')), saved, account));
}

/**
 * Saves the preferences and goes back to the page they were asked from, which says so in a flash. A zone not in the
 * runtime's list changes nothing and gets the form again (422); a missing language keeps the cookie.
 */
export async function saveSettings(c: C): Promise<Response> {
  const form = await c.req.parseBody();
  const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined);
  const zone = validZone(text('zone'));
  const next = panelNext(text('next'));
  if (!zone) {
    const account = await accountZone(c);
    const p = pageOf(c, account !== undefined);
    return c.html(settingsPage(p, next, { kind: 'error', text: p.t.unknownZone }, account), 422);
  }
  const lang = langs.find((l) => l === text('lang'));
  const options = { path: '/panel', sameSite: 'Lax', maxAge: YEAR } as const;
  if (lang) setCookie(c, 'lang', lang, options);
  setCookie(c, ZONE_COOKIE, zone, options);
  flashPrefsSaved(c);
  return c.redirect(next ?? '/panel/settings', 303);
}

/**
 * Changes the account's time zone (`account:update`, as `PUT /v1/account`) and shows the page again
 * saying so; a zone not in the runtime's list changes nothing and gets the form again (422).
 */
export async function saveAccountZone(c: C, key: KeyGrant): Promise<Response> {
  const form = await c.req.parseBody();
  const zone = validZone(typeof form.time_zone === 'string' ? form.time_zone : undefined);
  if (!zone) {
    const p = pageOf(c, true);
    return c.html(
      settingsPage(p, undefined, { kind: 'error', text: p.t.unknownZone }, { zone: p.zone }),
      422,
    );
  }
  await updateAccount(c.get('db'), key, { time_zone: zone });
  return c.redirect('/panel/settings?saved=account', 303);
}
