import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { DomainError } from '../core/errors';
import { logError } from '../core/log';
import { ownVar } from '../core/own-vars';
import type { Scope } from '../core/scopes';
import { KeyGrant } from '../db/key-grant';
import type { AppEnv } from '../env';
import { limitedBody, limitedBodyOf } from '../http/body-limit';
import { ApiError } from '../http/problem';
import { formPairs } from '../webhooks/ingest/charset';
import { css, js } from './assets';
import { EXPORTED, type Exporter, exportList } from './exports';
import { type C, PANEL_POLICY, pageOf, type SessionPage, toSignIn } from './page';
import { connectionsList, revokeConnection } from './pages/connections';
import {
  deliveriesLog,
  recoverEndpoint,
  resendDelivery,
  rotateEndpoint,
  testEndpointPage,
} from './pages/endpoint-actions';
import {
  createEndpointPage,
  deleteEndpoint,
  endpointsPage,
  endpointView,
  newEndpoint,
  saveEndpoint,
  saveEnabled as saveEndpointEnabled,
} from './pages/endpoints';
import { eventPage, processEventPage, replayEventPage } from './pages/event';
import { deleteEventsPage, eventsPage, replayEventsPage } from './pages/events';
import { guidedStep, resendExample, saveFlows, saveMapping, startCreate, startPage } from './pages/guided';
import {
  cancelFromPanel,
  importErrorsCsv,
  importShown,
  importsList,
  PANEL_FILE_BYTES,
  previewImport,
  startFromPanel,
} from './pages/imports';
import { leadSearchPage } from './pages/lead-search';
import { authorizeDecision, authorizeForm } from './pages/oauth';
import { companyPage, contactPage, dealPage, taskPage } from './pages/records';
import { type Deliver, sendSample, testSendForm } from './pages/samples';
import { saveAccountZone, saveSettings, settingsForm } from './pages/settings';
import { signIn, signInForm, signOut, switchLanguage } from './pages/sign-in';
import { webhookPage } from './pages/webhook';
import { disableConfirm, rotateConfirm } from './pages/webhook-confirm';
import { rotateWebhook, saveEnabled, saveMode, saveSecret, saveWebhook } from './pages/webhook-writes';
import { createWebhook, newWebhookPage, webhooksPage } from './pages/webhooks';
import { detailText } from './said-words';
import { sessionHash, sessionKey } from './session';
import { messagePage } from './views/layout';

// The panel's paths, its session guard and its security headers; each page is a module of pages/.

/** An origin this Worker serves pages from: the request's own, or the configured public one. */
function sameOrigin(c: C): boolean {
  const origin = c.req.header('Origin');
  if (!origin) return false;
  const own = [new URL(c.req.url).origin];
  const base = ownVar(c.env, 'PUBLIC_BASE_URL');
  if (base) own.push(new URL(base).origin);
  return own.includes(origin);
}

/**
 * The page a failure of the shared functions is shown as, by its code: a missing, expired or
 * revoked session or key sends the browser to sign in, a key without the scope gets a 403 page
 * naming it, and what is not the account's or a query that is no good a page; undefined for a
 * failure that is no page's (the app's error handler answers it).
 */
function failurePage(c: C, scope: Scope | null, caught: unknown): Response | Promise<Response> | undefined {
  const code = caught instanceof DomainError || caught instanceof ApiError ? caught.code : undefined;
  const p = pageOf(c, true);
  switch (code) {
    case 'unauthorized':
    case 'api_key_expired':
      return toSignIn(c);
    case 'insufficient_scope':
      return c.html(
        messagePage(
          p,
          p.t.noScope,
          `${p.t.noScope} ${(caught as DomainError).members?.required_scope ?? scope}`,
        ),
        403,
      );
    case 'not_found':
      return c.html(messagePage(p, p.t.notFound, p.t.notFound), 404);
    case 'invalid_query':
    case 'invalid_cursor':
      return c.html(messagePage(p, p.t.badRequest, detailText(p, code, (caught as Error).message)), 400);
    default:
      return undefined;
  }
}

/**
 * The session guard: runs `page` with the session's key, granted only for `scope` (the same rule
 * as `/v1`); with no session cookie, straight to sign in.
 */
const guarded =
  (scope: Scope | null, page: SessionPage) =>
  async (c: C): Promise<Response> => {
    const hash = await sessionHash(c);
    if (!hash) return toSignIn(c);
    const now = Date.now();
    const deferred = (touch: Promise<unknown>) =>
      c.executionCtx.waitUntil(touch.catch((err: unknown) => logError(err, c.get('requestId'))));
    const key = new KeyGrant(sessionKey(hash, now), scope, now, deferred, c.req.method !== 'GET');
    c.set('panelKey', key);
    try {
      return await page(c, key);
    } catch (caught) {
      const shown = failurePage(c, scope, caught);
      if (!shown) throw caught;
      return shown;
    }
  };

/** Security headers of every panel answer. */
const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (!c.res.headers.has('Content-Security-Policy'))
    c.res.headers.set('Content-Security-Policy', PANEL_POLICY);
  // The API's no-referrer would make browsers send `Origin: null` on the panel's own form posts.
  c.res.headers.set('Referrer-Policy', 'same-origin');
  if (!c.req.path.startsWith('/panel/static/')) c.res.headers.set('Cache-Control', 'no-store');
});

// Cookies are SameSite=Strict already; the Origin check also stops a form posted from another site
// through an older browser, and a sibling subdomain.
const originCheck = createMiddleware<AppEnv>(async (c, next) => {
  if (!sameOrigin(c)) {
    const p = pageOf(c, false);
    return c.html(messagePage(p, p.t.badOrigin, p.t.badOrigin), 403);
  }
  await next();
});

/**
 * Whether the request's form can be read as sent. The pages read it with Hono's parseBody, which
 * throws on a multipart body the runtime cannot parse (no boundary, cut short), and reads bytes
 * that are not UTF-8 (a Latin-1 "Jo\xe3o", raw or percent-encoded) as U+FFFD, which would be
 * stored without a word; `/v1` refuses such bytes too. Parsed once here, the pages read it again
 * from Hono's cache.
 */
async function formReadable(c: C): Promise<boolean> {
  try {
    await c.req.parseBody();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return false;
  }
  if (!/^application\/x-www-form-urlencoded/i.test(c.req.header('Content-Type') ?? '')) return true;
  return formPairs(new Uint8Array(await c.req.arrayBuffer()), 'utf-8').guessed.length === 0;
}

// A form that cannot be read as sent is the sender's mistake: a 400 page, never a 500 or U+FFFD.
const readableForm = createMiddleware<AppEnv>(async (c, next) => {
  if (!(await formReadable(c))) {
    const p = pageOf(c, false);
    return c.html(messagePage(p, p.t.badRequest, p.t.badForm), 400);
  }
  await next();
});

// A CSV sent to the import page may be larger than a form: a limit of its own, checked as early.
const uploadLimit = limitedBodyOf(PANEL_FILE_BYTES);
const bodyLimit = createMiddleware<AppEnv>((c, next) =>
  (c.req.path === '/panel/imports/preview' ? uploadLimit : limitedBody)(c, next),
);

const asset = (body: string, type: string) =>
  createMiddleware<AppEnv>(async (c) =>
    c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' }),
  );

/**
 * The panel router. `deliver` hands a request to the whole Worker (to send a sample event);
 * `exporter` runs a list's `/v1` export with the session's key (the lists' export buttons).
 */
export function panelRouter(deliver: Deliver, exporter?: Exporter) {
  const hook = '/webhooks/:id';
  const out = '/endpoints/:id';
  const exports = new Hono<AppEnv>();
  if (exporter) {
    for (const resource of EXPORTED) {
      exports.get(`/export/${resource}`, guarded(`${resource}:read`, exportList(exporter, resource)));
    }
  }
  return new Hono<AppEnv>()
    .use('*', securityHeaders)
    .on(['POST'], '*', bodyLimit, originCheck, readableForm)
    .get('/static/panel.css', asset(css, 'text/css; charset=utf-8'))
    .get('/static/panel.js', asset(js, 'text/javascript; charset=utf-8'))
    .get('/', (c) => c.redirect('/panel/webhooks', 303))
    .get('/lang/:lang', switchLanguage)
    .get('/settings', settingsForm)
    .post('/settings', saveSettings)
    .post('/settings/account', guarded('account:update', saveAccountZone))
    .get('/settings/connections', connectionsList)
    .post('/settings/connections/:grant/revoke', revokeConnection)
    .get('/oauth/authorize', authorizeForm)
    .post('/oauth/authorize', authorizeDecision)
    .get('/sign-in', signInForm)
    .post('/sign-in', signIn)
    .post('/sign-out', signOut)
    .get('/webhooks', guarded('webhooks:read', webhooksPage))
    .get('/search', guarded('webhooks:read', leadSearchPage))
    .get('/webhooks/new', guarded('webhooks:insert', newWebhookPage))
    .post('/webhooks', guarded('webhooks:insert', createWebhook))
    .get('/webhooks/start', guarded('webhooks:insert', startPage))
    .post('/webhooks/start', guarded('webhooks:insert', startCreate))
    .get(`${hook}/start/:step`, guarded('webhooks:update', guidedStep))
    .post(`${hook}/start/3`, guarded('webhooks:update', saveMapping))
    .post(`${hook}/start/4`, guarded('webhooks:update', saveFlows))
    .post(`${hook}/start/5`, guarded('webhooks:update', resendExample(deliver)))
    .get(hook, guarded('webhooks:read', webhookPage))
    .post(hook, guarded('webhooks:update', saveWebhook))
    .post(`${hook}/mode`, guarded('webhooks:update', saveMode))
    .post(`${hook}/enabled`, guarded('webhooks:update', saveEnabled))
    .post(`${hook}/secret`, guarded('webhooks:update', saveSecret))
    .get(`${hook}/rotate`, guarded('webhooks:update', rotateConfirm))
    .post(`${hook}/rotate`, guarded('webhooks:update', rotateWebhook))
    .get(`${hook}/disable`, guarded('webhooks:update', disableConfirm))
    .get(`${hook}/sample`, guarded('webhooks:update', testSendForm))
    .post(`${hook}/sample`, guarded('webhooks:update', sendSample(deliver)))
    .get(`${hook}/events`, guarded('webhooks:read', eventsPage))
    .post(`${hook}/events/replay`, guarded('webhooks:update', replayEventsPage))
    .post(`${hook}/events/delete`, guarded('webhooks:delete', deleteEventsPage))
    .get(`${hook}/events/:event_id`, guarded('webhooks:read', eventPage))
    .post(`${hook}/events/:event_id/replay`, guarded('webhooks:update', replayEventPage))
    .get('/endpoints', guarded('webhook_endpoints:read', endpointsPage))
    .get('/endpoints/new', guarded('webhook_endpoints:insert', newEndpoint))
    .post('/endpoints', guarded('webhook_endpoints:insert', createEndpointPage))
    .get(out, guarded('webhook_endpoints:read', endpointView))
    .post(out, guarded('webhook_endpoints:update', saveEndpoint))
    .post(`${out}/enabled`, guarded('webhook_endpoints:update', saveEndpointEnabled))
    .post(`${out}/rotate`, guarded('webhook_endpoints:update', rotateEndpoint))
    .post(`${out}/test`, guarded('webhook_endpoints:update', testEndpointPage))
    .post(`${out}/delete`, guarded('webhook_endpoints:delete', deleteEndpoint))
    .get(`${out}/deliveries`, guarded('webhook_endpoints:read', deliveriesLog))
    .post(`${out}/deliveries/:delivery_id/resend`, guarded('webhook_endpoints:update', resendDelivery))
    .post(`${out}/recover`, guarded('webhook_endpoints:update', recoverEndpoint))
    .get('/imports', guarded(null, importsList))
    .post('/imports/preview', guarded(null, previewImport))
    .post('/imports', guarded(null, startFromPanel))
    .get('/imports/:id', guarded(null, importShown))
    .post('/imports/:id/cancel', guarded(null, cancelFromPanel))
    .get('/imports/:id/errors.csv', guarded(null, importErrorsCsv))
    .route('/', exports)
    .get('/contacts/:id', guarded('contacts:read', contactPage))
    .get('/deals/:id', guarded('deals:read', dealPage))
    .get('/tasks/:id', guarded('tasks:read', taskPage))
    .get('/companies/:id', guarded('companies:read', companyPage))
    .post(`${hook}/events/:event_id/process`, guarded('webhooks:update', processEventPage))
    .get('*', (c) => {
      const p = pageOf(c, false);
      return c.html(messagePage(p, p.t.notFound, p.t.notFound), 404);
    });
}
