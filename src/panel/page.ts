import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { DomainError, type FieldError, notFound } from '../core/errors';
import { allows, type Scope } from '../core/scopes';
import type { KeyGrant } from '../db/key-grant';
import type { AppEnv } from '../env';
import { urlOf } from '../http/urls';
import type { WebhookHead } from '../webhooks/log/event-reads';
import { hookPath, seesWebhookUrl } from '../webhooks/resource/store';
import { chooseLang, messages } from './i18n';
import { type FlashView, messagePage, type Page, type WebhookView } from './views/layout';
import { chooseZone, ZONE_COOKIE } from './zone';

// What every page module of the panel shares: the request's page settings, its path ids, the
// webhook's header and the answers after a write.

export type C = Context<AppEnv>;

/** The Content-Security-Policy of every panel page (the consent page widens its form-action). */
export const PANEL_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');
export type Flash = FlashView;
/** A page that runs with the session's key, granted for the scope its route names. */
export type SessionPage = (c: C, key: KeyGrant) => Promise<Response>;

export function pageOf(c: C, signedIn: boolean): Page {
  const lang = chooseLang(getCookie(c, 'lang'), c.req.header('Accept-Language'));
  const url = new URL(c.req.url);
  // Until a page has read its key, it offers nothing that needs a scope.
  const held = c.get('panelKey')?.held;
  const can = (scope: Scope) => held !== undefined && allows(held, scope);
  // Cloudflare's guess of the visitor's zone (from the IP), for an English speaker with no choice yet.
  const zone = chooseZone(
    getCookie(c, ZONE_COOKIE),
    lang,
    (c.req.raw.cf as { timezone?: unknown } | undefined)?.timezone,
  );
  // A preferences save goes back to the page it was asked from, which says so: a one-shot cookie
  // (not a query parameter, which a page's strict query check would refuse), dropped once shown.
  const prefsSaved = getCookie(c, SAVED_COOKIE) === '1';
  if (prefsSaved) deleteCookie(c, SAVED_COOKIE, { path: '/panel' });
  const flash = prefsSaved ? { kind: 'ok' as const, text: messages[lang].prefsSaved } : undefined;
  return { lang, t: messages[lang], zone, path: url.pathname + url.search, signedIn, can, flash };
}

export const toSignIn = (c: C) => c.redirect('/panel/sign-in', 303);

/**
 * `next` when it is a path of the panel to go back to, else undefined: never an open redirect
 * (`//evil`, `/panel\\..`); in printable ASCII (the pages link it percent-encoded), as a control
 * character is no header value and would make the redirect a 500; and at most 2,000 characters.
 */
export const panelNext = (next: string | undefined): string | undefined =>
  next !== undefined && next.length <= 2000 && /^\/panel(\/[^/\\]|$|\?)/.test(next) && /^[!-~]*$/.test(next)
    ? next
    : undefined;

/** The id in the path's `name` segment; anything but a whole number in range is not found. */
export const idOf = (c: C, name = 'id'): number => {
  const raw = c.req.param(name) ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw notFound();
  return Number(raw);
};

/** The webhook as the pages' header shows it: its URL only to a key that may see it. */
export const viewOf = (row: WebhookHead, c: C): WebhookView => ({
  id: row.id,
  name: row.name,
  url: seesWebhookUrl(c.get('panelKey')?.held) ? urlOf(c, hookPath(row)) : null,
  mode: row.mode,
  enabled: row.enabled,
  hasSecret: row.secret !== null,
});

/** Back to the webhook's page after a write, with the flash `done` names. */
export const saved = (c: C, id: number, flash = 'saved') =>
  c.redirect(`/panel/webhooks/${id}?done=${flash}`, 303);

/**
 * Where a test send's event is: the webhook's event list, newest first. The ingest answers no event
 * id, so the page cannot link the event itself; nor a status filter, since the event is pending
 * until the queue takes it, and a production webhook's is no test event.
 */
const sentEventLink = (c: C, p: Page) => ({
  href: `/panel/webhooks/${idOf(c)}/events`,
  text: p.t.sampleSentSee,
});

/** Flash messages a redirect after a write asks for. */
export const doneFlash = (c: C, p: Page): Flash | undefined => {
  const done = c.req.query('done');
  if (done === 'saved') return { kind: 'ok', text: p.t.saved };
  if (done === 'sample') return { kind: 'ok', text: p.t.sampleSent, link: sentEventLink(c, p) };
  if (done === 'replayed') return { kind: 'ok', text: p.t.replayed };
  if (done === 'rotated') return { kind: 'ok', text: p.t.rotated };
  if (done === 'disabled') return { kind: 'ok', text: p.t.disabledDone };
  if (done === 'production') return { kind: 'ok', text: p.t.nowProduction };
  if (done === 'test') return { kind: 'ok', text: p.t.nowTest };
  if (done === 'enabled') return { kind: 'ok', text: p.t.enabledDone };
  if (done === 'secret-saved') return { kind: 'ok', text: p.t.secretSaved };
  if (done === 'secret-removed') return { kind: 'ok', text: p.t.secretRemoved };
  return undefined;
};

/** A form with more rows than a webhook holds: refused before its rows are read or shown. */
export const refuseRows = (c: C) => {
  const p = pageOf(c, true);
  return c.html(messagePage(p, p.t.fixErrors, p.t.tooManyRows), 422);
};

/** A refused write's field errors (a broken rule or a conflict), or undefined for any other failure. */
export const refused = (caught: unknown): FieldError[] | undefined => {
  if (!(caught instanceof DomainError)) return undefined;
  const { code, errors, message } = caught;
  return code === 'validation_failed' || code === 'conflict' || code === 'webhook_limit_reached'
    ? (errors ?? [{ path: '', code, message }])
    : undefined;
};

const SAVED_COOKIE = 'prefs-saved';

/** Makes the next page shown say "Preferences saved." (within a minute). */
export const flashPrefsSaved = (c: C) =>
  setCookie(c, SAVED_COOKIE, '1', { path: '/panel', sameSite: 'Lax', httpOnly: true, maxAge: 60 });
