import { and, eq, inArray, or } from 'drizzle-orm';
import { signatureOf } from '../../auth/signatures';
import { notFound } from '../../core/errors';
import { leaves } from '../../core/json-paths';
import type { Db } from '../../db/client';
import { companies, contacts } from '../../db/schema';
import { accountOf, type KeyRef, scoped } from '../../db/tenant';
import { sampleEvents } from '../log/event-reads';
import {
  pickSample,
  type SampleCandidates,
  sampleCandidates,
  samplePayload,
  storedForms,
} from '../rules/sample';
import { type WebhookRow, webhookQuery } from './store';

/**
 * A sample event of a webhook, as its sender would post it: the body, its headers (JSON, signed
 * when the webhook has a secret), and whether it would write records.
 */
export type SampleEvent = {
  webhook: WebhookRow;
  body: string;
  headers: Record<string, string>;
  writesRecords: boolean;
};

/**
 * A sample event for the caller's webhook `id`, in one round trip: a body built from its declared
 * fields, whose phone, email and CNPJ no contact or company of the account holds (trash included),
 * so that a sample never matches, and so never renames, a real record. Drawn afresh on each call,
 * and signed now. With `withExamples`, a field that is not a phone, email or CNPJ takes the newest
 * value its key has in the webhook's latest test events (read in the same round trip). not_found
 * when the webhook is not theirs.
 */
export async function sampleEvent(
  db: Db,
  keyHash: KeyRef,
  id: number,
  withExamples = false,
): Promise<SampleEvent> {
  const candidates = sampleCandidates();
  const [, hooks, samples, ...taken] = await scoped(
    db,
    keyHash,
    webhookQuery(db, keyHash, id),
    sampleEvents(db, keyHash, id, withExamples ? undefined : 0),
    ...takenValues(db, keyHash, candidates),
  );
  const webhook = hooks[0];
  if (!webhook) throw notFound();
  const examples = new Map<string, unknown>();
  for (const { payload } of samples) {
    for (const [key, value] of leaves(JSON.parse(payload) as unknown))
      if (!examples.has(key)) examples.set(key, value);
  }
  const values = pickSample(candidates, takenSet(...taken));
  const body = JSON.stringify(samplePayload(webhook.fields, values, new Date(), examples));
  return {
    webhook,
    body,
    headers: await senderHeaders(webhook.secret, body),
    // An enabled production webhook writes real records from it: its sender must confirm first.
    writesRecords: webhook.enabled && webhook.mode === 'production',
  };
}

/** The headers a sender posts `body` with: JSON, and signed at this second when there is a secret. */
export async function senderHeaders(secret: string | null, body: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (secret) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers['X-Timestamp'] = timestamp;
    headers['X-Signature'] = await signatureOf(secret, timestamp, body);
  }
  return headers;
}

/**
 * The account's contacts and companies that hold one of a sample's candidate phones, emails or
 * CNPJs, in the trash or not: two statements for the batch that reads the webhook, so the check
 * costs no round trip of its own.
 */
function takenValues(db: Db, keyHash: KeyRef, candidates: SampleCandidates) {
  const forms = storedForms(candidates);
  const account = accountOf(keyHash);
  return [
    db
      .select({ phone: contacts.phone, email: contacts.emailNorm })
      .from(contacts)
      .where(
        and(
          eq(contacts.accountId, account),
          or(inArray(contacts.phone, forms.phones), inArray(contacts.emailNorm, forms.emails)),
        ),
      ),
    db
      .select({ cnpj: companies.cnpj })
      .from(companies)
      .where(and(eq(companies.accountId, account), inArray(companies.cnpj, forms.cnpjs))),
  ] as const;
}

/** Every value the rows of `takenValues` hold. */
const takenSet = (...rows: Record<string, string | null>[][]): Set<string> =>
  new Set(
    rows
      .flat()
      .flatMap((r) => Object.values(r))
      .filter((v): v is string => v !== null),
  );
