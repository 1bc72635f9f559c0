import { setCookie } from 'hono/cookie';
import { validZone } from '../../core/zones';
import { langs } from '../i18n';
import { type C, flashPrefsSaved, pageOf, panelNext } from '../page';
import { sessionHash } from '../session';
import { settingsPage } from '../views/settings';
import { ZONE_COOKIE } from '../zone';

const YEAR = 365 * 24 * 3600;

// The page needs no session (it reads and writes no data): a session cookie only adds the nav's links.
const signedIn = async (c: C) => (await sessionHash(c)) !== undefined;

/** The preferences form: the language and time zone, each kept in its own cookie. */
export async function settingsForm(c: C): Promise<Response> {
  const p = pageOf(c, await signedIn(c));
  return c.html(settingsPage(p, panelNext(c.req.query('next'))));
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
    const p = pageOf(c, await signedIn(c));
    return c.html(settingsPage(p, next, { kind: 'error', text: p.t.unknownZone }), 422);
  }
  const lang = langs.find((l) => l === text('lang'));
  const options = { path: '/panel', sameSite: 'Lax', maxAge: YEAR } as const;
  if (lang) setCookie(c, 'lang', lang, options);
  setCookie(c, ZONE_COOKIE, zone, options);
  flashPrefsSaved(c);
  return c.redirect(next ?? '/panel/settings', 303);
}
