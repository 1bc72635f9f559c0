import { fieldErrors } from '../../contracts/field-errors';
import type { FieldError } from '../../core/errors';
import { type UpdateRead, updateOwn, writeUpdate } from '../../db/own';
import type { inboundWebhooks } from '../../db/schema';
import type { KeyRef } from '../../db/tenant';
import { InboundWebhookUpdate } from '../../webhooks/contract/schemas';
import { rotateOwnWebhook, setOwnWebhook, webhookSpec } from '../../webhooks/resource/store';
import { addedRow, bodyOf, changedOnly, draftFromForm, errorsByControl, tooManyRows, withRow } from '../form';
import { type C, idOf, pageOf, panelNext, refused, refuseRows, type SessionPage, saved } from '../page';
import { saidText } from '../said-words';
import { GRACE_CHOICES, PANEL_GRACE_S } from '../views/webhook-confirm';
import { renderWebhook } from './webhook';
import { disableConfirm, rotateConfirm } from './webhook-confirm';

// The forms of the webhook's page: each write goes through the same schema and update as a PUT
// on `/v1/inbound-webhooks/{id}` and comes back to the page, with the errors of a refused one.

/**
 * Updates the webhook as `PUT /v1/inbound-webhooks/{id}` does: its field errors when refused. With
 * `read` (the webhook and its references, read in the page's own batch) it writes in one round trip.
 */
export async function update(
  c: C,
  key: KeyRef,
  id: number,
  body: unknown,
  read?: UpdateRead<typeof inboundWebhooks>,
): Promise<FieldError[] | undefined> {
  const parsed = InboundWebhookUpdate.safeParse(body);
  if (!parsed.success) return fieldErrors(parsed.error, body, true);
  const db = c.get('db');
  try {
    if (read) await writeUpdate(db, key, webhookSpec, read, parsed.data);
    else await updateOwn(db, key, webhookSpec, id, parsed.data);
    return undefined;
  } catch (err) {
    const errors = refused(err);
    if (!errors) throw err;
    return errors;
  }
}

/** Saves the configuration form: only the halves whose digest no longer matches are written. */
export async function saveWebhook(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const submitted = await c.req.parseBody({ all: true });
  if (tooManyRows(submitted)) return refuseRows(c);
  const draft = draftFromForm(submitted);
  // "Add a field" or "Add an action" without JS: the form again, with one more row, nothing saved.
  const added = addedRow(submitted);
  if (added) return renderWebhook(c, key, id, { draft: withRow(draft, added), added });
  const { body, ...rows } = bodyOf(draft);
  const errors = await update(c, key, id, await changedOnly(body, submitted));
  if (!errors) return saved(c, id);
  const p = pageOf(c, true);
  const flash = { kind: 'error', text: p.t.fixErrors } as const;
  return renderWebhook(c, key, id, { draft, errors: errorsByControl(errors, rows), flash }, 422);
}

/** The flash that says what a one-setting form did: the mode now, enabled, the secret set or removed. */
function settingDone(name: 'mode' | 'enabled' | 'secret', value: string): string {
  if (name === 'mode') return value === 'production' ? 'production' : 'test';
  if (name === 'enabled') return 'enabled';
  return value === '' ? 'secret-removed' : 'secret-saved';
}

/** A one-setting form (`mode`, `enabled`, `secret`): `read` turns the form's text into the value. */
const saveSetting =
  (name: 'mode' | 'enabled' | 'secret', read: (value: string) => unknown): SessionPage =>
  async (c, key) => {
    const id = idOf(c);
    const form = await c.req.parseBody();
    const value = typeof form[name] === 'string' ? form[name] : '';
    const errors = await update(c, key, id, { [name]: read(value) });
    // A form may name the panel page to come back to (the guided start's last step, its summary).
    const next = typeof form.next === 'string' ? panelNext(form.next) : undefined;
    if (!errors) return next ? c.redirect(next, 303) : saved(c, id, settingDone(name, value));
    const p = pageOf(c, true);
    const message = errors.map((e) => saidText(p, e)).join(' ');
    return renderWebhook(
      c,
      key,
      id,
      {
        ...(name === 'secret' && { secretError: message }),
        flash: { kind: 'error', text: message || p.t.fixErrors },
      },
      422,
    );
  };

export const saveMode = saveSetting('mode', (v) => v);
export const saveSecret = saveSetting('secret', (v) => (v === '' ? null : v));
const enable = saveSetting('enabled', (v) => (v === 'true' ? true : v === 'false' ? false : v));

/**
 * Turns the webhook on, or off once confirmed (`confirm=yes`, sent by the page that says what
 * disabling does): an unconfirmed disable is answered with that page (another account's id, its 404), and changes
 * nothing.
 */
export const saveEnabled: SessionPage = async (c, key) => {
  const form = await c.req.parseBody();
  const id = idOf(c);
  if (form.enabled !== 'false') return enable(c, key);
  if (form.confirm !== 'yes') return disableConfirm(c, key);
  await setOwnWebhook(c.get('db'), key, id, { enabled: false });
  return saved(c, id, 'disabled');
};

/**
 * Gives the webhook a new URL once confirmed, the old one working for the grace chosen on the
 * confirmation page (one of GRACE_CHOICES), as `POST /v1/inbound-webhooks/{id}/rotate-token` with
 * its `grace_period`. Unconfirmed, it shows that page and changes nothing.
 */
export async function rotateWebhook(c: C, key: KeyRef): Promise<Response> {
  const id = idOf(c);
  const form = await c.req.parseBody();
  if (form.confirm !== 'yes') return rotateConfirm(c, key);
  const grace = GRACE_CHOICES.find((s) => String(s) === form.grace);
  if (grace === undefined) {
    const p = pageOf(c, true);
    return rotateConfirm(c, key, { chosen: PANEL_GRACE_S, error: p.t.rotateBadGrace });
  }
  await rotateOwnWebhook(c.get('db'), key, id, grace);
  return saved(c, id, 'rotated');
}
