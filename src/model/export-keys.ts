import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { companies, contacts, deals, tasks, users } from '../db/schema';

type Owned = { accountId: AnySQLiteColumn; id: AnySQLiteColumn };

/**
 * A related row's natural key, read in the row's own statement: an export names a relation by what
 * another system knows it by (a CNPJ, an email, an external id), as an import finds it.
 */
const keyOf = <V>(related: Owned & object, column: AnySQLiteColumn, of: Owned, fk: AnySQLiteColumn): SQL<V> =>
  // The condition built with and(): Drizzle drops the table from columns written straight into a
  // select field's SQL (see model/tasks.ts).
  sql<V>`(select ${column} from ${related} where ${and(eq(related.accountId, of.accountId), eq(related.id, fk))})`;

const ownerEmail = <T extends Owned & { ownerId: AnySQLiteColumn }>(t: T) =>
  keyOf<string | null>(users, users.email, t, t.ownerId);

/** The natural keys of each resource's relations, as extras of its export's list. */
export const exportKeys = {
  users: {},
  companies: { ownerEmail: ownerEmail(companies) },
  contacts: {
    companyCnpj: keyOf<string | null>(companies, companies.cnpj, contacts, contacts.companyId),
    ownerEmail: ownerEmail(contacts),
  },
  deals: {
    companyCnpj: keyOf<string | null>(companies, companies.cnpj, deals, deals.companyId),
    contactEmail: keyOf<string | null>(contacts, contacts.email, deals, deals.contactId),
    ownerEmail: ownerEmail(deals),
  },
  tasks: { dealExternalId: keyOf<string | null>(deals, deals.externalId, tasks, tasks.dealId) },
};

/** Each extra's CSV column. */
export const exportKeyColumns: Record<string, string> = {
  ownerEmail: 'owner_email',
  companyCnpj: 'company_cnpj',
  contactEmail: 'contact_email',
  dealExternalId: 'deal_external_id',
};
