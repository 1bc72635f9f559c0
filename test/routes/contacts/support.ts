import { insertRow, resource } from '../../helpers';

// Shared by the contacts route tests (test/routes/contacts/*.test.ts).

export const { get, listIds, put } = resource('/v1/contacts');

/** A contact row written straight to D1, so its created_at (epoch ms) can be chosen. */
export const insertContact = (accountId: number, name: string, createdAt: number): Promise<number> =>
  insertRow('contacts', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    custom_fields: '{}',
    created_at: createdAt,
    updated_at: createdAt,
  });
