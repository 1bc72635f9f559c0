import { and, eq, inArray, or } from 'drizzle-orm';
import { type SampleCandidates, storedForms } from '../core/webhook-sample';
import type { Db } from '../db/client';
import { companies, contacts } from '../db/schema';
import { accountOf, type KeyRef } from '../db/tenant';

/**
 * The account's contacts and companies that hold one of a sample's candidate phones, emails or
 * CNPJs, in the trash or not: two statements for the batch that reads the webhook, so the check
 * costs no round trip of its own.
 */
export function takenSampleValues(db: Db, keyHash: KeyRef, candidates: SampleCandidates) {
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

/** Every value the rows of `takenSampleValues` hold. */
export const takenSet = (...rows: Record<string, string | null>[][]): Set<string> =>
  new Set(
    rows
      .flat()
      .flatMap((r) => Object.values(r))
      .filter((v): v is string => v !== null),
  );
