import type { FieldError } from '../../core/errors';
import { notFound } from '../../core/errors';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { MAX_FIELDS } from '../../webhooks/contract/schemas';
import { hourlyQuery, latestQuery, overviewOf } from '../../webhooks/log/event-overview';
import { sampleEvents, sampleFieldsOf } from '../../webhooks/log/event-reads';
import { eventStorageQuery, presentEventStorage } from '../../webhooks/log/event-storage';
import { graceEnd, webhookQuery } from '../../webhooks/resource/store';
import { suggestTargets } from '../../webhooks/rules/target-guess';
import { examplesByKey } from '../examples';
import { bodyOf, type Draft, draftOf, fieldDraftOf, halvesDigest, type RowKind } from '../form';
import { namedUsers, usersOf } from '../owners';
import { type C, doneFlash, type Flash, idOf, pageOf, viewOf } from '../page';
import { withStorageNotice } from '../storage-notice';
import { configForm } from '../views/config-form';
import { editPage, type Page } from '../views/layout';
import { overviewSection } from '../views/overview';

/** What a write shows again on the webhook's page: the typed form, its errors, a flash. */
export type EditState = {
  draft?: Draft;
  errors?: Map<string, FieldError[]>;
  secretError?: string;
  flash?: Flash;
  /** The list a row was just added to, without JS (its new row takes the focus). */
  added?: RowKind;
};

/**
 * The webhook's page in one round trip: the session, the webhook, the account's users, the storage
 * notice, its overview (events per hour over 7 days, its last failed and rejected events) and its
 * latest test events, whose values the fields table shows as examples and, when asked
 * (`?sample=1`), whose keys not yet declared are added as rows to review.
 */
export async function renderWebhook(
  c: C,
  key: KeyRef,
  id: number,
  state: EditState,
  status: 200 | 409 | 422 = 200,
) {
  const db = c.get('db');
  const wantSamples = c.req.method === 'GET' && c.req.query('sample') === '1';
  const now = Date.now();
  const [, hooks, people, named, samples, storage, hourly, failed, rejected] = await scoped(
    db,
    key,
    webhookQuery(db, key, id),
    usersOf(db, key),
    namedUsers(db, key, id),
    sampleEvents(db, key, id),
    eventStorageQuery(db, accountOf(key)),
    hourlyQuery(db, key, id, now),
    latestQuery(db, key, id, 'failed'),
    latestQuery(db, key, id, 'rejected'),
  );
  const row = hooks[0];
  if (!row) throw notFound();
  const p = withStorageNotice(pageOf(c, true), presentEventStorage(storage, c.env));
  const draft = state.draft ?? draftOf(row);
  let flash = state.flash;
  // A webhook still in test came from the guided start, most likely: the way back to its steps.
  if (flash && c.req.query('done') === 'saved' && row.mode === 'test')
    flash = { ...flash, link: { href: `/panel/webhooks/${id}/start/5`, text: p.t.gBackToSteps } };
  if (wantSamples) flash = addSampleFields(p, draft, sampleFieldsOf(samples));
  const users = {
    live: people,
    named: named.map((u) => ({ id: u.id, name: u.name, trashed: u.deletedAt !== null })),
    examples: examplesByKey(samples),
  };
  const was = await halvesDigest(bodyOf(draftOf(row)).body);
  const shown = await halvesDigest(bodyOf(draft).body);
  const unsaved = shown.fields !== was.fields || shown.flows !== was.flows;
  const form = configForm(
    p,
    `/panel/webhooks/${id}`,
    draft,
    { ...users, unsaved, added: state.added },
    state.errors ?? new Map(),
    p.t.save,
    was,
  );
  const view = { ...viewOf(row, c), graceEnd: graceEnd(row, now) };
  const overview = overviewSection(p, row, overviewOf(hourly, failed, rejected, now));
  return c.html(editPage(p, view, form, state.secretError, flash, overview), status);
}

/**
 * Adds the sample events' keys not declared yet as rows to review, as many as the mapping takes,
 * each with the target, type and format its key and example suggest (webhooks/rules/target-guess.ts).
 */
function addSampleFields(
  p: Page,
  draft: Draft,
  found: { key: string; type: string; example: unknown }[],
): Flash {
  const declared = new Set(draft.fields.map((f) => f.key));
  const fresh = found.filter((s) => !declared.has(s.key));
  const room = Math.max(0, MAX_FIELDS - draft.fields.filter((f) => f.key).length);
  const filled = draft.fields.map((f) => f.target).filter(Boolean);
  const guesses = suggestTargets(
    fresh.slice(0, room).map((s) => [s.key, s.example]),
    filled,
  );
  draft.fields.push(...guesses.map(fieldDraftOf));
  if (!fresh.length) return { kind: 'error', text: p.t.samplesNone };
  return fresh.length > room
    ? { kind: 'error', text: p.t.samplesCapped }
    : { kind: 'ok', text: p.t.samplesAdded };
}

/** The webhook's page: its configuration form, settings and the flash of the write before. */
export const webhookPage = (c: C, key: KeyRef) =>
  renderWebhook(c, key, idOf(c), { flash: doneFlash(c, pageOf(c, true)) });
