import { notFound } from '../core/errors';
import { pickSample, sampleCandidates, samplePayload } from '../core/webhook-sample';
import type { Db } from '../db/client';
import { type KeyRef, scoped } from '../db/tenant';
import { takenSampleValues, takenSet } from '../model/webhook-samples';
import { type WebhookRow, webhookQuery } from './resource';

/** A sample event of a webhook: the body to post to its URL, and whether it would write records. */
export type SampleEvent = { webhook: WebhookRow; body: string; writesRecords: boolean };

/**
 * A sample event for the caller's webhook `id`, in one round trip: a body built from its declared
 * fields, whose phone, email and CNPJ no contact or company of the account holds (trash included),
 * so that a sample never matches, and so never renames, a real record. Drawn afresh on each call.
 * not_found when the webhook is not theirs.
 */
export async function sampleEvent(db: Db, keyHash: KeyRef, id: number): Promise<SampleEvent> {
  const candidates = sampleCandidates();
  const [, hooks, ...taken] = await scoped(
    db,
    keyHash,
    webhookQuery(db, keyHash, id),
    ...takenSampleValues(db, keyHash, candidates),
  );
  const webhook = hooks[0];
  if (!webhook) throw notFound();
  const body = JSON.stringify(samplePayload(webhook.fields, pickSample(candidates, takenSet(...taken))));
  // An enabled production webhook writes real records from it: its sender must confirm first.
  return { webhook, body, writesRecords: webhook.enabled && webhook.mode === 'production' };
}
