import { and, count, eq, max, sql } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { looksLikeApiKey, sha256Hex } from '../auth/secrets';
import { signatureOf } from '../auth/signatures';
import { iso } from '../contracts/common';
import { fieldErrors } from '../contracts/field-errors';
import type { FieldError } from '../core/errors';
import { ownVar } from '../core/own-vars';
import { allows, type Scope } from '../core/scopes';
import { pickSample, sampleCandidates, samplePayload } from '../core/webhook-sample';
import { newWebhookToken } from '../core/webhook-token';
import { KeyGrant } from '../db/key-grant';
import { live } from '../db/live';
import { createOwn, listQuery, updateOwn } from '../db/own';
import { inboundEvents, inboundWebhooks, users } from '../db/schema';
import { accountOf, type KeyRef, ownRow, scoped } from '../db/tenant';
import type { AppEnv } from '../env';
import { limitedBody } from '../http/body-limit';
import { keyset } from '../http/pagination';
import { ApiError, asApiError, logError } from '../http/problem';
import { clientOf, rateLimit } from '../http/rate-limit';
import { urlOf } from '../http/urls';
import { eventStorageQuery, presentEventStorage } from '../model/event-storage';
import { takenSampleValues, takenSet } from '../model/webhook-samples';
import {
  eventSorts,
  InboundWebhookCreate,
  InboundWebhookQuery,
  InboundWebhookUpdate,
  MAX_FIELDS,
  WebhookEventQuery,
  webhookSorts,
} from '../webhooks/contract';
import {
  type EventRow,
  eventExtras,
  eventFilters,
  eventQuery,
  presentEvent,
  presentWebhook,
  replayEvent,
  sampleEvents,
  sampleFieldsOf,
  seesWebhookUrl,
  setOwnWebhook,
  webhookSpec,
} from '../webhooks/resource';
import { css, js } from './assets';
import {
  bodyOf,
  changedOnly,
  type Draft,
  draftFromForm,
  draftOf,
  errorsByControl,
  halvesDigest,
  tooManyRows,
} from './form';
import { chooseLang, langs, messages } from './i18n';
import { closeSession, openSession, sessionHash, sessionKey, setSessionCookie } from './session';
import { withStorageNotice } from './storage-notice';
import {
  configForm,
  editPage,
  eventPage,
  eventsPage,
  layout,
  listPage,
  messagePage,
  type Page,
  sampleConfirmPage,
  signInPage,
  type WebhookView,
} from './views';

type C = Context<AppEnv>;
type Row = typeof inboundWebhooks.$inferSelect;
type Flash = { kind: 'ok' | 'error'; text: string };

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function pageOf(c: C, signedIn: boolean): Page {
  const lang = chooseLang(getCookie(c, 'lang'), c.req.header('Accept-Language'));
  const url = new URL(c.req.url);
  // Until a page has read its key, it offers nothing that needs a scope.
  const held = c.get('panelKey')?.held;
  const can = (scope: Scope) => held !== undefined && allows(held, scope);
  return { lang, t: messages[lang], path: url.pathname + url.search, signedIn, can };
}

/** An origin this Worker serves pages from: the request's own, or the configured public one. */
function sameOrigin(c: C): boolean {
  const origin = c.req.header('Origin');
  if (!origin) return false;
  const own = [new URL(c.req.url).origin];
  const base = ownVar(c.env, 'PUBLIC_BASE_URL');
  if (base) own.push(new URL(base).origin);
  return own.includes(origin);
}

const toSignIn = (c: C) => c.redirect('/panel/sign-in', 303);

/**
 * Runs a page with the session's key, granted only for `scope` (the same rule as `/v1`): a missing,
 * expired or revoked session or key (the 401 of `scoped`) sends the browser to sign in, a key
 * without the scope gets a 403 page naming it, and a 404 or 400 of the shared functions a page.
 */
async function withSession(
  c: C,
  scope: Scope,
  handler: (key: KeyGrant) => Promise<Response>,
): Promise<Response> {
  const hash = await sessionHash(c);
  if (!hash) return toSignIn(c);
  const now = Date.now();
  const deferred = (touch: Promise<unknown>) =>
    c.executionCtx.waitUntil(touch.catch((err: unknown) => logError(err, c.get('requestId'))));
  const key = new KeyGrant(sessionKey(hash, now), scope, now, deferred, c.req.method !== 'GET');
  c.set('panelKey', key);
  try {
    return await handler(key);
  } catch (caught) {
    const err = asApiError(caught);
    if (!err) throw caught;
    const p = pageOf(c, true);
    if (err.status === 401) return toSignIn(c);
    if (err.status === 403) return c.html(messagePage(p, p.t.noScope, `${p.t.noScope} ${scope}`), 403);
    if (err.status === 404) return c.html(messagePage(p, p.t.notFound, p.t.notFound), 404);
    if (err.status === 400) return c.html(messagePage(p, p.t.badRequest, err.message), 400);
    throw err;
  }
}

const idOf = (c: C, name = 'id'): number => {
  const raw = c.req.param(name) ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ApiError(404, 'not_found', 'No such resource.');
  return Number(raw);
};

const viewOf = (row: Row, c: C): WebhookView => {
  const sees = seesWebhookUrl(c.get('panelKey')?.held);
  const shown = presentWebhook(row, sees ? (path) => urlOf(c, path) : null);
  return {
    id: row.id,
    name: row.name,
    url: shown.url,
    mode: row.mode,
    enabled: row.enabled,
    hasSecret: shown.has_secret,
  };
};

const usersOf = (c: C, key: KeyRef) =>
  c
    .get('db')
    .select({ id: users.id, name: users.name })
    .from(users)
    .where(and(eq(users.accountId, accountOf(key)), live(users)))
    .orderBy(users.nameNorm, users.id)
    .limit(500);

/**
 * The users the webhook's flows name (as owner or in a round robin), live or in the trash: each is
 * shown by name (one in the trash says so, one past the first 500 users is named too) and kept,
 * never dropped from the form because no option names them.
 */
const namedUsers = (c: C, key: KeyRef, id: number) =>
  c
    .get('db')
    .select({ id: users.id, name: users.name, deletedAt: users.deletedAt })
    .from(users)
    .where(
      and(
        eq(users.accountId, accountOf(key)),
        sql`${users.id} in (select t.value from ${inboundWebhooks} w, json_tree(w.flows) t where w.id = ${id} and w.account_id = ${accountOf(key)} and t.type = 'integer' and (t.key = 'user_id' or t.path like '%.round_robin'))`,
      ),
    );

const theWebhook = (c: C, key: KeyRef, id: number) =>
  c
    .get('db')
    .select()
    .from(inboundWebhooks)
    .where(ownRow(inboundWebhooks, key, id));

/**
 * The edit page in one round trip: the session, the webhook, the account's users and, when asked,
 * its latest test events, whose keys not yet declared are added as rows to review.
 */
async function renderEdit(
  c: C,
  key: KeyRef,
  id: number,
  state: { draft?: Draft; errors?: Map<string, string[]>; secretError?: string; flash?: Flash },
  status: 200 | 409 | 422 = 200,
) {
  const db = c.get('db');
  const wantSamples = c.req.method === 'GET' && c.req.query('sample') === '1';
  const [, hooks, people, named, samples, storage] = await scoped(
    db,
    key,
    theWebhook(c, key, id),
    usersOf(c, key),
    namedUsers(c, key, id),
    sampleEvents(db, key, id, wantSamples ? undefined : 0),
    eventStorageQuery(db, accountOf(key)),
  );
  const row = hooks[0];
  if (!row) throw new ApiError(404, 'not_found', 'No such resource.');
  const p = withStorageNotice(pageOf(c, true), presentEventStorage(storage, c.env));
  const draft = state.draft ?? draftOf(row);
  let flash = state.flash;
  if (wantSamples) flash = addSampleFields(p, draft, sampleFieldsOf(samples));
  const users = {
    live: people,
    named: named.map((u) => ({ id: u.id, name: u.name, trashed: u.deletedAt !== null })),
  };
  const was = await halvesDigest(bodyOf(draftOf(row)).body);
  const form = configForm(p, `/panel/webhooks/${id}`, draft, users, state.errors ?? new Map(), p.t.save, was);
  return c.html(editPage(p, viewOf(row, c), form, state.secretError, flash), status);
}

/** Adds the sample events' keys not declared yet as rows to review, as many as the mapping takes. */
function addSampleFields(p: Page, draft: Draft, found: { key: string; type: string }[]): Flash {
  const declared = new Set(draft.fields.map((f) => f.key));
  const fresh = found.filter((s) => !declared.has(s.key));
  const room = Math.max(0, MAX_FIELDS - draft.fields.filter((f) => f.key).length);
  draft.fields.push(
    ...fresh
      .slice(0, room)
      .map((s) => ({ key: s.key, type: s.type, required: false, target: '', formats: '' })),
  );
  if (!fresh.length) return { kind: 'error', text: p.t.samplesNone };
  return fresh.length > room
    ? { kind: 'error', text: p.t.samplesCapped }
    : { kind: 'ok', text: p.t.samplesAdded };
}

/** A refused write's field errors, or undefined for any other failure (rethrown by the caller). */
const refused = (caught: unknown): FieldError[] | undefined => {
  const err = asApiError(caught);
  return err && (err.status === 422 || err.status === 409)
    ? (err.errors ?? [{ path: '', code: err.code, message: err.message }])
    : undefined;
};

/** Updates the webhook through the same schema and write as `PUT /v1/inbound-webhooks/{id}`. */
async function update(c: C, key: KeyRef, id: number, body: unknown): Promise<FieldError[] | undefined> {
  const parsed = InboundWebhookUpdate.safeParse(body);
  if (!parsed.success) return fieldErrors(parsed.error, body);
  try {
    await updateOwn(c.get('db'), key, webhookSpec, id, parsed.data);
    return undefined;
  } catch (err) {
    const errors = refused(err);
    if (!errors) throw err;
    return errors;
  }
}

/** A form with more rows than a webhook holds: refused before its rows are read or shown. */
const refuseRows = (c: C) => {
  const p = pageOf(c, true);
  return c.html(messagePage(p, p.t.fixErrors, p.t.tooManyRows), 422);
};

const saved = (c: C, id: number, flash = 'saved') => c.redirect(`/panel/webhooks/${id}?done=${flash}`, 303);

/** Flash messages a redirect after a write asks for. */
const doneFlash = (c: C, p: Page): Flash | undefined => {
  const done = c.req.query('done');
  if (done === 'saved') return { kind: 'ok', text: p.t.saved };
  if (done === 'sample') return { kind: 'ok', text: p.t.sampleSent };
  if (done === 'replayed') return { kind: 'ok', text: p.t.replayed };
  return undefined;
};

/** The panel router. `deliver` hands a request to the whole Worker (to send a sample event). */
export function panelRouter(deliver: (request: Request, env: AppEnv['Bindings']) => Promise<Response>) {
  const panel = new Hono<AppEnv>();

  panel.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Content-Security-Policy')) c.res.headers.set('Content-Security-Policy', POLICY);
    // The API's no-referrer would make browsers send `Origin: null` on the panel's own form posts.
    c.res.headers.set('Referrer-Policy', 'same-origin');
    if (!c.req.path.startsWith('/panel/static/')) c.res.headers.set('Cache-Control', 'no-store');
  });

  // Cookies are SameSite=Strict already; the Origin check also stops a form posted from another site
  // through an older browser, and a sibling subdomain.
  panel.on(['POST'], '*', limitedBody, async (c, next) => {
    if (!sameOrigin(c)) {
      const p = pageOf(c, false);
      return c.html(messagePage(p, p.t.badOrigin, p.t.badOrigin), 403);
    }
    await next();
  });

  const asset = (body: string, type: string) =>
    createMiddleware<AppEnv>(async (c) =>
      c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' }),
    );
  panel.get('/static/panel.css', asset(css, 'text/css; charset=utf-8'));
  panel.get('/static/panel.js', asset(js, 'text/javascript; charset=utf-8'));

  panel.get('/', (c) => c.redirect('/panel/webhooks', 303));

  panel.get('/lang/:lang', (c) => {
    const lang = langs.find((l) => l === c.req.param('lang'));
    if (lang) setCookie(c, 'lang', lang, { path: '/panel', sameSite: 'Lax', maxAge: 365 * 24 * 3600 });
    const next = c.req.query('next') ?? '';
    // Only a path of the panel: never an open redirect.
    return c.redirect(/^\/panel(\/[^/\\]|$|\?)/.test(next) ? next : '/panel/webhooks', 303);
  });

  panel.get('/sign-in', (c) => c.html(signInPage(pageOf(c, false))));

  panel.post('/sign-in', async (c) => {
    const p = pageOf(c, false);
    try {
      await rateLimit(c.env, 'SIGN_IN_RATE_LIMITER', () => clientOf(c));
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        c.header('Retry-After', err.headers?.['Retry-After'] ?? '60');
        return c.html(signInPage(p, p.t.tooMany), 429);
      }
      throw err;
    }
    const form = await c.req.parseBody();
    const given = typeof form.api_key === 'string' ? form.api_key.trim() : '';
    const token = looksLikeApiKey(given)
      ? await openSession(c.get('db'), await sha256Hex(given), Date.now())
      : undefined;
    if (!token) return c.html(signInPage(p, p.t.badKey), 401);
    setSessionCookie(c, token);
    return c.redirect('/panel/webhooks', 303);
  });

  panel.post('/sign-out', async (c) => {
    await closeSession(c);
    return toSignIn(c);
  });

  panel.get('/webhooks', (c) =>
    withSession(c, 'webhooks:read', async (key) => {
      const query = InboundWebhookQuery.safeParse(c.req.query());
      if (!query.success) throw new ApiError(400, 'invalid_query', 'The query string is not valid.');
      const db = c.get('db');
      const page = keyset<Row>(inboundWebhooks, webhookSorts, query.data);
      const [, rows, stats, storage] = await scoped(
        db,
        key,
        listQuery(db, key, webhookSpec, page, []),
        db
          .select({
            webhookId: inboundEvents.webhookId,
            status: inboundEvents.status,
            n: count(),
            last: max(inboundEvents.receivedAt),
          })
          .from(inboundEvents)
          .where(eq(inboundEvents.accountId, accountOf(key)))
          .groupBy(inboundEvents.webhookId, inboundEvents.status),
        eventStorageQuery(db, accountOf(key)),
      );
      const shown = page.page(c, rows as Row[], (row) => row);
      const hooks = shown.data.map((row) => {
        const mine = stats.filter((s) => s.webhookId === row.id);
        const last = Math.max(0, ...mine.map((s) => s.last ?? 0));
        return {
          ...viewOf(row, c),
          lastEvent: last ? iso(last) : null,
          counts: Object.fromEntries(mine.map((s) => [s.status, s.n])),
        };
      });
      const p = withStorageNotice(pageOf(c, true), presentEventStorage(storage, c.env));
      return c.html(listPage(p, hooks, shown.meta.next_cursor));
    }),
  );

  panel.get('/webhooks/new', (c) =>
    withSession(c, 'webhooks:insert', async (key) => {
      const [, people] = await scoped(c.get('db'), key, usersOf(c, key));
      const p = pageOf(c, true);
      const draft: Draft = { name: '', fields: [], flows: [] };
      const users = { live: people, named: [] };
      return c.html(
        layout(p, p.t.newWebhook, configForm(p, '/panel/webhooks', draft, users, new Map(), p.t.create)),
      );
    }),
  );

  panel.post('/webhooks', (c) =>
    withSession(c, 'webhooks:insert', async (key) => {
      const submitted = await c.req.parseBody({ all: true });
      if (tooManyRows(submitted)) return refuseRows(c);
      const draft = draftFromForm(submitted);
      const { body, ...rows } = bodyOf(draft);
      const parsed = InboundWebhookCreate.safeParse(body);
      let errors = parsed.success ? undefined : fieldErrors(parsed.error, body);
      if (parsed.success) {
        try {
          const row = await createOwn(c.get('db'), key, webhookSpec, parsed.data);
          return saved(c, row.id);
        } catch (err) {
          errors = refused(err);
          if (!errors) throw err;
        }
      }
      const [, people] = await scoped(c.get('db'), key, usersOf(c, key));
      const p = pageOf(c, true);
      const form = configForm(
        p,
        '/panel/webhooks',
        draft,
        { live: people, named: [] },
        errorsByControl(errors ?? [], rows),
        p.t.create,
      );
      return c.html(layout(p, p.t.newWebhook, form, { kind: 'error', text: p.t.fixErrors }), 422);
    }),
  );

  panel.get('/webhooks/:id', (c) =>
    withSession(c, 'webhooks:read', (key) =>
      renderEdit(c, key, idOf(c), { flash: doneFlash(c, pageOf(c, true)) }),
    ),
  );

  panel.post('/webhooks/:id', (c) =>
    withSession(c, 'webhooks:update', async (key) => {
      const id = idOf(c);
      const submitted = await c.req.parseBody({ all: true });
      if (tooManyRows(submitted)) return refuseRows(c);
      const draft = draftFromForm(submitted);
      const { body, ...rows } = bodyOf(draft);
      const errors = await update(c, key, id, await changedOnly(body, submitted));
      if (!errors) return saved(c, id);
      const p = pageOf(c, true);
      return renderEdit(
        c,
        key,
        id,
        { draft, errors: errorsByControl(errors, rows), flash: { kind: 'error', text: p.t.fixErrors } },
        422,
      );
    }),
  );

  /** A one-setting form: the value goes through the same schema and update as a PUT on /v1. */
  const setting = (name: 'mode' | 'enabled' | 'secret', read: (value: string) => unknown) =>
    panel.post(`/webhooks/:id/${name}`, (c) =>
      withSession(c, 'webhooks:update', async (key) => {
        const id = idOf(c);
        const form = await c.req.parseBody();
        const value = typeof form[name] === 'string' ? form[name] : '';
        const errors = await update(c, key, id, { [name]: read(value) });
        if (!errors) return saved(c, id);
        const message = errors.map((e) => e.message).join(' ');
        const p = pageOf(c, true);
        return renderEdit(
          c,
          key,
          id,
          {
            ...(name === 'secret' && { secretError: message }),
            flash: { kind: 'error', text: message || p.t.fixErrors },
          },
          422,
        );
      }),
    );
  setting('mode', (v) => v);
  setting('enabled', (v) => (v === 'true' ? true : v === 'false' ? false : v));
  setting('secret', (v) => (v === '' ? null : v));

  panel.post('/webhooks/:id/rotate', (c) =>
    withSession(c, 'webhooks:update', async (key) => {
      const id = idOf(c);
      await setOwnWebhook(c.get('db'), key, id, { token: newWebhookToken() });
      return saved(c, id);
    }),
  );

  panel.post('/webhooks/:id/sample', (c) =>
    withSession(c, 'webhooks:update', async (key) => {
      const id = idOf(c);
      const form = await c.req.parseBody();
      const db = c.get('db');
      const candidates = sampleCandidates();
      const [, hooks, ...taken] = await scoped(
        db,
        key,
        theWebhook(c, key, id),
        ...takenSampleValues(db, key, candidates),
      );
      const row = hooks[0];
      if (!row) throw new ApiError(404, 'not_found', 'No such resource.');
      const body = JSON.stringify(samplePayload(row.fields, pickSample(candidates, takenSet(...taken))));
      // In production a sample writes real records: only a second, confirmed POST sends it.
      if (row.enabled && row.mode === 'production' && form.confirm !== 'yes') {
        return c.html(
          sampleConfirmPage(pageOf(c, true), viewOf(row, c), JSON.stringify(JSON.parse(body), null, 2)),
        );
      }
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (row.secret) {
        headers['X-Timestamp'] = timestamp;
        headers['X-Signature'] = await signatureOf(row.secret, timestamp, body);
      }
      const origin = new URL(c.req.url).origin;
      const res = await deliver(
        new Request(`${origin}/hooks/${row.token}`, { method: 'POST', headers, body }),
        c.env,
      );
      if (res.ok) return saved(c, id, 'sample');
      // A disabled webhook's URL answers a bare 404, as if it did not exist: only a problem has a body.
      const problem: { detail?: string; errors?: FieldError[] } = res.headers
        .get('Content-Type')
        ?.startsWith('application/problem+json')
        ? await res.json()
        : { detail: row.enabled ? `HTTP ${res.status}` : pageOf(c, true).t.disabledBanner };
      const text = [problem.detail, ...(problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].join(
        ' ',
      );
      return renderEdit(c, key, id, { flash: { kind: 'error', text } }, 422);
    }),
  );

  panel.get('/webhooks/:id/events', (c) =>
    withSession(c, 'webhooks:read', async (key) => {
      const id = idOf(c);
      // An empty select ("all") submits `status=`: no filter.
      const query = WebhookEventQuery.safeParse(
        Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== '')),
      );
      if (!query.success) throw new ApiError(400, 'invalid_query', 'The query string is not valid.');
      const db = c.get('db');
      const page = keyset<EventRow>(inboundEvents, eventSorts, query.data, '-received_at');
      const [, hooks, rows] = await scoped(
        db,
        key,
        theWebhook(c, key, id),
        listQuery(
          db,
          key,
          { table: inboundEvents, extras: eventExtras },
          page,
          eventFilters(id, query.data.status),
        ),
      );
      const row = hooks[0];
      if (!row) throw new ApiError(404, 'not_found', 'No such resource.');
      const shown = page.page(c, rows as EventRow[], presentEvent);
      const events = shown.data.map((e) => ({ ...e, receivedAt: e.received_at }));
      return c.html(
        eventsPage(pageOf(c, true), viewOf(row, c), events, query.data.status, shown.meta.next_cursor),
      );
    }),
  );

  panel.get('/webhooks/:id/events/:event_id', (c) =>
    withSession(c, 'webhooks:read', async (key) => {
      const id = idOf(c);
      const eventId = idOf(c, 'event_id');
      const db = c.get('db');
      const [, hooks, events] = await scoped(
        db,
        key,
        theWebhook(c, key, id),
        eventQuery(db, key, id, eventId),
      );
      const row = hooks[0];
      const event = events[0];
      if (!row || !event) throw new ApiError(404, 'not_found', 'No such resource.');
      const p = pageOf(c, true);
      return c.html(eventPage(p, viewOf(row, c), detailOf(presentEvent(event as EventRow)), doneFlash(c, p)));
    }),
  );

  panel.post('/webhooks/:id/events/:event_id/replay', (c) =>
    withSession(c, 'webhooks:update', async (key) => {
      const id = idOf(c);
      const eventId = idOf(c, 'event_id');
      const back = `/panel/webhooks/${id}/events/${eventId}`;
      try {
        await replayEvent(c.get('db'), key, c.env.EVENTS, id, eventId);
      } catch (err) {
        if (asApiError(err)?.status === 409) return c.redirect(back, 303);
        throw err;
      }
      return c.redirect(`${back}?done=replayed`, 303);
    }),
  );

  panel.get('*', (c) => {
    const p = pageOf(c, false);
    return c.html(messagePage(p, p.t.notFound, p.t.notFound), 404);
  });

  return panel;
}

const detailOf = (e: ReturnType<typeof presentEvent>) => ({
  id: e.id,
  status: e.status,
  attempts: e.attempts,
  error: e.error,
  receivedAt: e.received_at,
  processedAt: e.processed_at,
  payload: e.payload,
  preview: e.preview,
  result: e.result,
});
