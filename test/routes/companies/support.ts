import { withCheckDigits } from '../../cnpj';
import { call, create, insertRow, newAccount, newUser, resource } from '../../helpers';

// Shared by the companies route tests (test/routes/companies/*.test.ts).

export const { get, listIds, put } = resource('/v1/companies');
export const deals = resource('/v1/deals');
export const contacts = resource('/v1/contacts');

export const post = (key: string, body: unknown) => call('/v1/companies', { method: 'POST', key, body });

let serial = 0;
/** A valid numeric CNPJ, different on every call (canonical form). */
export function nextCnpj(): string {
  serial += 1;
  return withCheckDigits(`${20_000_000 + serial}0001`);
}

export const COMPANY_KEYS = [
  'cnpj',
  'created_at',
  'deal_count',
  'deleted_at',
  'external_id',
  'follower_ids',
  'id',
  'lead_count',
  'name',
  'observations',
  'owner_id',
  'segment',
  'updated_at',
];

/** A company row written straight to D1, so created_at (epoch ms) can be chosen. */
export const insertCompanyAt = (
  accountId: number,
  name: string,
  createdAt: number,
  extra: { segment?: string; owner_id?: number; cnpj?: string } = {},
): Promise<number> =>
  insertRow('companies', {
    account_id: accountId,
    name,
    name_norm: name.toLowerCase(),
    cnpj: extra.cnpj ?? nextCnpj(),
    owner_id: extra.owner_id ?? null,
    segment: extra.segment ?? null,
    segment_norm: extra.segment?.toLowerCase() ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  });

/** `count` users of the account, written straight to D1; their ids in ascending order. */
export async function insertUsers(accountId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bulk${i}@example.com`;
    ids.push(
      await insertRow('users', {
        account_id: accountId,
        name: `Bulk ${i}`,
        name_norm: `bulk ${i}`,
        email,
        email_norm: email,
        created_at: 1_700_000_000_000 + i,
        updated_at: 1_700_000_000_000 + i,
      }),
    );
  }
  return ids;
}

/** A user of the account, through the API; its id. */
export const newUserId = async (key: string, name: string): Promise<number> => (await newUser(key, name)).id;

/**
 * A new account with users Owner and Follower, and a company `name` with every field set: owned by
 * Owner, followed by `followers` of the two, in that order.
 */
export async function companyWithEveryField(name: string, followers: ('owner' | 'follower')[]) {
  const { key } = await newAccount();
  const users = { owner: await newUserId(key, 'Owner'), follower: await newUserId(key, 'Follower') };
  const company = await create(key, '/v1/companies', {
    name,
    cnpj: nextCnpj(),
    owner_id: users.owner,
    segment: 'Varejo',
    observations: 'Notes',
    follower_ids: followers.map((user) => users[user]),
  });
  return { key, ...users, company };
}
