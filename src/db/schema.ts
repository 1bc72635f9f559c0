import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Timestamps are epoch milliseconds: compact, index-friendly, and exact for keyset cursors.
const timestamps = {
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
};

/** The columns every tenant-owned table starts with. */
const owned = () => ({
  id: integer('id').primaryKey(),
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id),
});

/** A display name and its normalised twin that filters and sorts run on (see domain/text.ts). */
const named = () => ({
  name: text('name').notNull(),
  nameNorm: text('name_norm').notNull(),
});

export type CustomFields = Record<string, string | number | boolean | null>;

export const accounts = sqliteTable('accounts', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    keyHash: text('key_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.keyHash), index('api_keys_account_idx').on(t.accountId)],
);

// Every tenant-owned table carries a unique (account_id, id) so that references can be composite
// foreign keys: the database itself refuses a row that points into another account.
export const users = sqliteTable(
  'users',
  {
    ...owned(),
    ...named(),
    email: text('email').notNull(),
    emailNorm: text('email_norm').notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('users_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('users_email_uq').on(t.accountId, t.emailNorm),
    index('users_created_idx').on(t.accountId, t.createdAt, t.id),
    index('users_name_idx').on(t.accountId, t.nameNorm, t.id),
  ],
);

export const companies = sqliteTable(
  'companies',
  {
    ...owned(),
    ...named(),
    cnpj: text('cnpj').notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('companies_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('companies_cnpj_uq').on(t.accountId, t.cnpj),
    index('companies_created_idx').on(t.accountId, t.createdAt, t.id),
  ],
);

export const contacts = sqliteTable(
  'contacts',
  {
    ...owned(),
    ...named(),
    email: text('email'),
    emailNorm: text('email_norm'),
    phone: text('phone'),
    companyId: integer('company_id'),
    ownerId: integer('owner_id'),
    customFields: text('custom_fields', { mode: 'json' }).$type<CustomFields>().notNull().default(sql`'{}'`),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('contacts_account_id_uq').on(t.accountId, t.id),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.ownerId], foreignColumns: [users.accountId, users.id] }),
    index('contacts_created_idx').on(t.accountId, t.createdAt, t.id),
    index('contacts_name_idx').on(t.accountId, t.nameNorm, t.id),
    index('contacts_email_idx').on(t.accountId, t.emailNorm),
    index('contacts_phone_idx').on(t.accountId, t.phone),
    index('contacts_company_idx').on(t.accountId, t.companyId),
    index('contacts_owner_idx').on(t.accountId, t.ownerId),
  ],
);

export const dealStatuses = ['open', 'won', 'lost'] as const;

export const deals = sqliteTable(
  'deals',
  {
    ...owned(),
    ...named(),
    companyId: integer('company_id'),
    contactId: integer('contact_id'),
    ownerId: integer('owner_id'),
    status: text('status', { enum: dealStatuses }).notNull().default('open'),
    value: real('value'),
    customFields: text('custom_fields', { mode: 'json' }).$type<CustomFields>().notNull().default(sql`'{}'`),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('deals_account_id_uq').on(t.accountId, t.id),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.contactId], foreignColumns: [contacts.accountId, contacts.id] }),
    foreignKey({ columns: [t.accountId, t.ownerId], foreignColumns: [users.accountId, users.id] }),
    index('deals_created_idx').on(t.accountId, t.createdAt, t.id),
    index('deals_updated_idx').on(t.accountId, t.updatedAt, t.id),
    index('deals_name_idx').on(t.accountId, t.nameNorm, t.id),
    index('deals_company_idx').on(t.accountId, t.companyId),
    index('deals_contact_idx').on(t.accountId, t.contactId),
    index('deals_owner_idx').on(t.accountId, t.ownerId),
    index('deals_status_idx').on(t.accountId, t.status),
  ],
);

/** A table whose rows belong to one account. */
export type TenantTable = typeof users | typeof companies | typeof contacts | typeof deals;
