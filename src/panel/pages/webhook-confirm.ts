import { notFound } from '../../core/errors';
import { type KeyRef, scoped } from '../../db/tenant';
import { graceEnd, type WebhookRow, webhookQuery } from '../../webhooks/resource/store';
import { type C, idOf, pageOf, viewOf } from '../page';
import { disableConfirmPage, PANEL_GRACE_S, rotateConfirmPage } from '../views/webhook-confirm';

// The pages that ask before rotating or disabling a webhook: one round trip each (the session and
// the webhook), and nothing written until their form's POST confirms.

async function ownWebhook(c: C, key: KeyRef): Promise<WebhookRow> {
  const db = c.get('db');
  const [, hooks] = await scoped(db, key, webhookQuery(db, key, idOf(c)));
  const row = hooks[0];
  if (!row) throw notFound();
  return row;
}

/** What rotating does, with the grace to choose (24 hours unless a refused POST chose otherwise). */
export async function rotateConfirm(
  c: C,
  key: KeyRef,
  { chosen = PANEL_GRACE_S, error }: { chosen?: number; error?: string } = {},
): Promise<Response> {
  const row = await ownWebhook(c, key);
  const now = Date.now();
  const view = { ...viewOf(row, c), graceEnd: graceEnd(row, now) };
  return c.html(rotateConfirmPage(pageOf(c, true), view, now, chosen, error), error ? 422 : 200);
}

/** What disabling does: the URL answers 404 and what senders post meanwhile is not kept. */
export async function disableConfirm(c: C, key: KeyRef): Promise<Response> {
  const row = await ownWebhook(c, key);
  return c.html(disableConfirmPage(pageOf(c, true), viewOf(row, c)));
}
