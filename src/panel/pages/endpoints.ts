import { fieldErrors } from '../../contracts/field-errors';
import {
  endpointSorts,
  WebhookEndpointCreate,
  WebhookEndpointQuery,
  WebhookEndpointUpdate,
} from '../../contracts/webhook-endpoints';
import { DomainError, type FieldError } from '../../core/errors';
import { getOwn, listOwn } from '../../db/own';
import { webhookEndpoints } from '../../db/schema';
import { type KeyRef, scoped } from '../../db/tenant';
import { trashOwn } from '../../db/trash';
import { KeyInUse } from '../../http/idempotency-claim';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import {
  createEndpoint,
  type EndpointRow,
  endpointSpec,
  endpointTrash,
  presentEndpoint,
  updateEndpoint,
} from '../../outbound/endpoints';
import { outboundPolicy } from '../../outbound/policy';
import { type Done, once } from '../form-token';
import { urlRefusalLabels } from '../outbound-text';
import { type C, idOf, pageOf, refused, type SessionPage } from '../page';
import { saidText } from '../said-words';
import {
  againPage,
  askPage,
  type Endpoint,
  type EndpointDraft,
  endpointBase,
  endpointPage,
  listView,
  newEndpointPage,
  secretPage,
  words,
} from '../views/endpoints';
import type { FlashView, Page } from '../views/layout';
import { counted } from '../views/layout';

// The outbound endpoints' list, create and edit, enable and disable, and delete: each write goes
// through the same contract and model functions as `/v1/webhook-endpoints` (src/outbound/).

type Form = Record<string, string | File | (string | File)[]>;

const texts = (form: Form, name: string): string[] => {
  const value = form[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is string => typeof v === 'string',
  );
};
const text = (form: Form, name: string) => texts(form, name)[0];

/** The form's values as typed (absent ones empty). */
const draftOf = (form: Form): EndpointDraft => ({
  url: text(form, 'url') ?? '',
  description: text(form, 'description') ?? '',
  event_types: texts(form, 'event_types'),
});

const draftOfRow = (e: Endpoint): EndpointDraft => ({
  url: e.url,
  description: e.description ?? '',
  event_types: e.event_types,
});

/** A refused write's errors in the page's words, by field: the URL policy's codes, else the API's. */
function errorWords(p: Page, errors: FieldError[]): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  const urlWords: Readonly<Record<string, string>> = urlRefusalLabels[p.lang];
  for (const e of errors) {
    const field = e.path.split('.')[0] || 'url';
    const said = e.code && Object.hasOwn(urlWords, e.code) ? (urlWords[e.code] as string) : saidText(p, e);
    byField.set(field, [...(byField.get(field) ?? []), said]);
  }
  return byField;
}

/** The errors of a refused write, or undefined for another failure (the guard's to show). */
function refusedWords(p: Page, caught: unknown): Map<string, string[]> | undefined {
  if (caught instanceof DomainError && caught.code === 'webhook_endpoint_limit_reached') {
    return new Map([['url', [words(p).limitReached]]]);
  }
  const errors = refused(caught);
  return errors && errorWords(p, errors);
}

/** The flash a redirect after a write asks for (`done`, and `n` for a count). */
export function endpointFlash(p: Page, query: Record<string, string>): FlashView | undefined {
  const t = words(p);
  const ok = (text: string): FlashView => ({ kind: 'ok', text });
  switch (query.done) {
    case 'saved':
      return ok(t.savedDone);
    case 'unchanged':
      return ok(t.nothingChanged);
    case 'enabled':
      return ok(query.from ? t.enabledRecover : t.enabledDone);
    case 'disabled':
      return ok(t.disabledDone);
    case 'deleted':
      return ok(t.deletedDone);
    case 'resent':
      return ok(t.resentDone);
    case 'busy':
      return { kind: 'error', text: t.resendBusy };
    case 'recovered':
      return /^\d{1,6}$/.test(query.n ?? '') ? ok(counted(p, t.recoverDone, Number(query.n))) : undefined;
    default:
      return undefined;
  }
}

/** The page's own parameters, which the `/v1` query does not take. */
export const withoutFlash = (query: Record<string, string>) => {
  const { done: _done, n: _n, from: _from, ...rest } = query;
  return rest;
};

/** An instant as the API writes it (ISO 8601 in UTC), or undefined: a default the log's recover may start from. */
export const sinceOf = (text: string): string | undefined =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text) && !Number.isNaN(Date.parse(text))
    ? text
    : undefined;

/** The account's endpoints: the `/v1` list's query, page and presenter, in one round trip. */
export async function endpointsPage(c: C, key: KeyRef): Promise<Response> {
  const query = WebhookEndpointQuery.safeParse(withoutFlash(c.req.query()));
  if (!query.success || query.data.deleted)
    throw badRequest('invalid_query', 'The query string is not valid.');
  const page = keyset<EndpointRow>(webhookEndpoints, endpointSorts, query.data);
  const rows = await listOwn(c.get('db'), key, endpointSpec, page, []);
  const shown = page.page(c, rows, (row) => presentEndpoint(row));
  const p = pageOf(c, true);
  return c.html(listView(p, shown.data, shown.meta.next_cursor, endpointFlash(p, c.req.query())));
}

/** The form of a new endpoint (the session checked in its one round trip). */
export async function newEndpoint(c: C, key: KeyRef): Promise<Response> {
  await scoped(c.get('db'), key);
  return c.html(newEndpointPage(pageOf(c, true), { url: '', description: '', event_types: [] }, new Map()));
}

/**
 * Creates an endpoint through `POST /v1/webhook-endpoints`'s contract and `createEndpoint`, and
 * answers with the page that shows its secret, this once; a refused form comes back with each
 * error by its control and the typed values kept.
 */
export async function createEndpointPage(c: C, key: KeyRef): Promise<Response> {
  const form = await c.req.parseBody({ all: true });
  const p = pageOf(c, true);
  const again = (at: string | undefined) => c.html(againPage(p, words(p).createdAgain, at));
  return once(c, key, form, () => createFromForm(c, key, draftOf(form)), again);
}

async function createFromForm(c: C, key: KeyRef, draft: EndpointDraft): Promise<Done | Response> {
  const body = { ...draft, description: draft.description || undefined };
  const parsed = WebhookEndpointCreate.safeParse(body);
  const p = pageOf(c, true);
  let errors = parsed.success ? undefined : errorWords(p, fieldErrors(parsed.error, body, true));
  if (parsed.success) {
    try {
      const policy = outboundPolicy(c.env, c.req.url);
      const { row, secret } = await createEndpoint(c.get('db'), key, parsed.data, policy);
      const res = c.html(secretPage(p, presentEndpoint(row), secret, words(p).createdTitle, ''), 201);
      return { res, location: endpointBase(row.id) };
    } catch (err) {
      if (err instanceof KeyInUse) throw err;
      errors = refusedWords(p, err);
      if (!errors) throw err;
    }
  }
  return c.html(newEndpointPage(p, draft, errors ?? new Map()), 422);
}

/** The endpoint's page: its facts, the actions the key allows and the edit form, in one round trip. */
export async function endpointView(c: C, key: KeyRef): Promise<Response> {
  const row = await getOwn(c.get('db'), key, endpointSpec, idOf(c));
  const e = presentEndpoint(row);
  const p = pageOf(c, true);
  const form = { draft: draftOfRow(e), errors: new Map<string, string[]>() };
  return c.html(endpointPage(p, e, form, endpointFlash(p, c.req.query())));
}

/**
 * The fields of the edit form whose value differs from the one it was shown with (`was.*`): a save
 * changes only what the person changed, and leaves what someone else changed meanwhile.
 */
function changedBody(form: Form, draft: EndpointDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const sent = (name: string) => form[name] !== undefined;
  if (sent('url') && draft.url !== text(form, 'was.url')) body.url = draft.url;
  if (sent('description') && draft.description !== text(form, 'was.description')) {
    body.description = draft.description;
  }
  if ([...draft.event_types].sort().join(' ') !== text(form, 'was.event_types')) {
    body.event_types = draft.event_types;
  }
  return body;
}

/** Saves the edit form through `PUT /v1/webhook-endpoints/{id}`'s contract and `updateEndpoint`. */
export async function saveEndpoint(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = await c.req.parseBody({ all: true });
  const draft = draftOf(form);
  const body = changedBody(form, draft);
  const p = pageOf(c, true);
  if (!Object.keys(body).length) {
    await getOwn(c.get('db'), key, endpointSpec, id);
    return c.redirect(`${endpointBase(id)}?done=unchanged`, 303);
  }
  const parsed = WebhookEndpointUpdate.safeParse(body);
  let errors = parsed.success ? undefined : errorWords(p, fieldErrors(parsed.error, body, true));
  if (parsed.success) {
    try {
      await updateEndpoint(c.get('db'), key, id, parsed.data, outboundPolicy(c.env, c.req.url));
      return c.redirect(`${endpointBase(id)}?done=saved`, 303);
    } catch (err) {
      errors = refusedWords(p, err);
      if (!errors) throw err;
    }
  }
  const e = presentEndpoint(await getOwn(c.get('db'), key, endpointSpec, id));
  const flash = { kind: 'error', text: words(p).fixErrors } as const;
  return c.html(endpointPage(p, e, { draft, errors: errors ?? new Map() }, flash), 422);
}

/** The endpoint, or 404: what a question page is about. */
export const ownEndpoint = async (c: C, key: KeyRef) =>
  presentEndpoint(await getOwn(c.get('db'), key, endpointSpec, idOf(c)));

/**
 * Turns the endpoint on, or off once confirmed (`confirm=yes`, sent by the page that says what
 * disabling does): an unconfirmed disable is answered with that page, and changes nothing.
 */
export const saveEnabled: SessionPage = async (c, key) => {
  const id = idOf(c);
  const form = await c.req.parseBody();
  const p = pageOf(c, true);
  const t = words(p);
  if (form.enabled !== 'true' && form.enabled !== 'false') throw badRequest('invalid_query', 'enabled');
  const enabled = form.enabled === 'true';
  if (!enabled && form.confirm !== 'yes') {
    const e = await ownEndpoint(c, key);
    const back = endpointBase(e.id);
    const ask = {
      title: t.disableTitle,
      text: t.disableWhat,
      action: `${back}/enabled`,
      button: t.disableConfirm,
      back,
    };
    return c.html(askPage(p, ask, { enabled: 'false' }));
  }
  await updateEndpoint(c.get('db'), key, id, { enabled }, outboundPolicy(c.env, c.req.url));
  const from = typeof form.failing_since === 'string' ? sinceOf(form.failing_since) : undefined;
  // Back on after failing: to the log, its recover starting from when the failures began.
  if (enabled && from !== undefined) {
    return c.redirect(`${endpointBase(id)}/deliveries?done=enabled&from=${encodeURIComponent(from)}`, 303);
  }
  return c.redirect(`${endpointBase(id)}?done=${enabled ? 'enabled' : 'disabled'}`, 303);
};

/** Sends the endpoint to the trash once confirmed, as `DELETE /v1/webhook-endpoints/{id}`. */
export const deleteEndpoint: SessionPage = async (c, key) => {
  const id = idOf(c);
  const form = await c.req.parseBody();
  if (form.confirm !== 'yes') {
    const p = pageOf(c, true);
    const t = words(p);
    const e = await ownEndpoint(c, key);
    const back = endpointBase(e.id);
    const text = t.deleteWhat.replace('{id}', String(e.id));
    return c.html(
      askPage(p, { title: t.deleteTitle, text, action: `${back}/delete`, button: t.deleteConfirm, back }),
    );
  }
  await trashOwn(c.get('db'), key, endpointTrash, id);
  return c.redirect('/panel/endpoints?done=deleted', 303);
};
