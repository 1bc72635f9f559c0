import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { canonicalCnpj } from '../core/cnpj';
import { normalizePhone } from '../core/phone';
import type { RefTarget } from '../core/refs';
import { normalizeText } from '../core/text';
import { companies, contacts, deals, type TrashTable, tasks, users } from '../db/schema';

/**
 * A natural key: a body field, the column it is found by, and how a value sent becomes the stored
 * one (undefined: not a value of this key). The phone as the webhook normalises it
 * (src/core/phone.ts), the CNPJ masked or bare (src/core/cnpj.ts), emails case-insensitive.
 */
export type NaturalKey = {
  field: string;
  column: AnySQLiteColumn;
  /** The column's property in a row as Drizzle reads it. */
  prop: string;
  normal: (value: unknown) => string | undefined;
  /** Unique in the account: a second record with it is a 409. */
  unique: boolean;
};

const text = (value: unknown) => (typeof value === 'string' ? value.trim() || undefined : undefined);
const email = (value: unknown) => {
  const trimmed = text(value);
  return trimmed && normalizeText(trimmed);
};
const cnpj = (value: unknown) => (typeof value === 'string' ? canonicalCnpj(value) : undefined);
const phone = (value: unknown) => (typeof value === 'string' ? normalizePhone(value) : undefined);

const externalId = (column: AnySQLiteColumn): NaturalKey => ({
  field: 'external_id',
  column,
  prop: 'externalId',
  normal: text,
  unique: true,
});

/**
 * Each resource's natural keys, in the order an upsert tries them (the first that finds a record
 * wins): `external_id` first, the id the syncing system holds, then the business key.
 */
export const naturalKeys = {
  user: [
    externalId(users.externalId),
    { field: 'email', column: users.emailNorm, prop: 'emailNorm', normal: email, unique: true },
  ],
  company: [
    externalId(companies.externalId),
    { field: 'cnpj', column: companies.cnpj, prop: 'cnpj', normal: cnpj, unique: true },
  ],
  contact: [
    externalId(contacts.externalId),
    // Not unique: a contact's email or phone finds the oldest contact that has it.
    { field: 'email', column: contacts.emailNorm, prop: 'emailNorm', normal: email, unique: false },
    { field: 'phone', column: contacts.phone, prop: 'phone', normal: phone, unique: false },
  ],
  deal: [externalId(deals.externalId)],
  task: [externalId(tasks.externalId)],
} satisfies Record<RefTarget | 'task', NaturalKey[]>;

export const targetTables = {
  user: users,
  company: companies,
  contact: contacts,
  deal: deals,
} satisfies Record<RefTarget, TrashTable>;
