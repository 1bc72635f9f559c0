import { html } from 'hono/html';
import { fieldErrors } from '../../contracts/field-errors';
import type { FieldError } from '../../core/errors';
import { createOwn, listQuery } from '../../db/own';
import { inboundWebhooks } from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { keyset } from '../../http/pagination';
import { badRequest } from '../../http/problem';
import { InboundWebhookCreate, InboundWebhookQuery, webhookSorts } from '../../webhooks/contract/schemas';
import { eventStatsQuery, statsOf } from '../../webhooks/log/event-reads';
import { eventStorageQuery, presentEventStorage } from '../../webhooks/log/event-storage';
import { type WebhookRow, webhookSpec } from '../../webhooks/resource/store';
import {
  addedRow,
  bodyOf,
  type Draft,
  draftFromForm,
  errorsByControl,
  type RowKind,
  tooManyRows,
  withRow,
} from '../form';
import { usersOf } from '../owners';
import { type C, pageOf, refused, refuseRows, saved, viewOf } from '../page';
import { withStorageNotice } from '../storage-notice';
import { configForm } from '../views/config-form';
import { layout, listPage, modeBanner } from '../views/layout';

/** What a new webhook will be: enabled, in test mode. */
const NEW = { mode: 'test', enabled: true } as const;

/**
 * The webhooks page: one page of the account's webhooks (the `/v1` list's query and sorts) with
 * each one's event counts and last event, and the storage notice, in one round trip.
 */
export async function webhooksPage(c: C, key: KeyRef): Promise<Response> {
  const query = InboundWebhookQuery.safeParse(c.req.query());
  if (!query.success) throw badRequest('invalid_query', 'The query string is not valid.');
  const db = c.get('db');
  const page = keyset<WebhookRow>(inboundWebhooks, webhookSorts, query.data);
  const [, rows, stats, storage] = await scoped(
    db,
    key,
    listQuery(db, key, webhookSpec, page, []),
    eventStatsQuery(db, key),
    eventStorageQuery(db, accountOf(key)),
  );
  const shown = page.page(c, rows as WebhookRow[], (row) => row);
  const hooks = shown.data.map((row) => ({ ...viewOf(row, c), ...statsOf(stats, row.id) }));
  const p = withStorageNotice(pageOf(c, true), presentEventStorage(storage, c.env));
  return c.html(listPage(p, hooks, shown.meta.next_cursor));
}

/**
 * The form of a new webhook, with the account's users to pick owners from: blank, shown again with
 * one more row (`added`, the add buttons without JS), or refused (`errors`, a 422).
 */
async function newWebhookForm(
  c: C,
  key: KeyRef,
  draft: Draft,
  shown: { added?: RowKind; errors?: Map<string, FieldError[]> },
) {
  const [, people] = await scoped(c.get('db'), key, usersOf(c.get('db'), key));
  const p = pageOf(c, true);
  const users = { live: people, named: [], added: shown.added };
  const form = configForm(p, '/panel/webhooks', draft, users, shown.errors ?? new Map(), p.t.create);
  if (!shown.errors)
    return c.html(
      layout(p, p.t.newWebhook, html`${modeBanner(p, NEW)}<p>${p.t.newWebhookTestHint}</p>${form}`),
    );
  return c.html(
    layout(p, p.t.newWebhook, html`${modeBanner(p, NEW)}${form}`, { kind: 'error', text: p.t.fixErrors }),
    422,
  );
}

/** The form of a new webhook. */
export const newWebhookPage = (c: C, key: KeyRef) =>
  newWebhookForm(c, key, { name: '', fields: [], flows: [] }, {});

/**
 * Creates a webhook through the same schema and write as `POST /v1/inbound-webhooks`; a refused
 * form comes back with each error by its control and the typed values kept.
 */
export async function createWebhook(c: C, key: KeyRef): Promise<Response> {
  const submitted = await c.req.parseBody({ all: true });
  if (tooManyRows(submitted)) return refuseRows(c);
  const draft = draftFromForm(submitted);
  // "Add a field" or "Add an action" without JS: the form again, with one more row, nothing created.
  const added = addedRow(submitted);
  if (added) return newWebhookForm(c, key, withRow(draft, added), { added });
  const { body: sent, ...rows } = bodyOf(draft);
  // A new webhook starts in test mode, so its first events preview and write nothing; the form
  // has no mode control. /v1 keeps `production` as its default (a default changing breaks clients).
  const body = { mode: 'test', ...sent };
  const parsed = InboundWebhookCreate.safeParse(body);
  let errors = parsed.success ? undefined : fieldErrors(parsed.error, body, true);
  if (parsed.success) {
    try {
      const row = await createOwn(c.get('db'), key, webhookSpec, parsed.data);
      return saved(c, row.id);
    } catch (err) {
      errors = refused(err);
      if (!errors) throw err;
    }
  }
  return newWebhookForm(c, key, draft, { errors: errorsByControl(errors ?? [], rows) });
}
